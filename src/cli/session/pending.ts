// `fisk-ai session pending`: every call waiting for a decision.
import type { Options } from "../context/options.js";
import { EXIT } from "../exit-codes.js";
import { UsageError } from "../cli-errors.js";
import type { SessionContext } from "../context/session-context.js";

export const options = {
  json: { flag: "--json", help: "one JSON array of the calls" },
} as const satisfies Options;

export async function run({ positionals, values, io, sessionStore }: SessionContext<typeof options>): Promise<number> {
  if (positionals.length > 0) throw new UsageError("session pending takes no arguments");
  const { showPending } = await import("./handlers/decide.js");
  await showPending(await sessionStore(values), values.json === true, io.stdout);
  return EXIT.completed;
}
