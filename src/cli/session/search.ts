// `fisk-ai session search`: the sessions that hold a text.
import type { Options } from "../context/options.js";
import { EXIT } from "../exit-codes.js";
import { UsageError } from "../cli-errors.js";
import type { SessionContext } from "../context/session-context.js";

export const options = {
  json: { flag: "--json", help: "the matches as JSON" },
} as const satisfies Options;

export async function run({ positionals, values, io, sessionStore }: SessionContext<typeof options>): Promise<number> {
  if (positionals.length !== 1) throw new UsageError('session search takes the text to find, as one argument (quote it): fisk-ai session search "TEXT"');
  const { searchSessions } = await import("./handlers/search.js");
  await searchSessions(await sessionStore(values), positionals[0] as string, { json: values.json === true }, io.stdout);
  return EXIT.completed;
}
