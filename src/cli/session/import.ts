// `fisk-ai session import`: a verified journal into the store.
import type { Options } from "../context/options.js";
import { EXIT } from "../exit-codes.js";
import { UsageError } from "../cli-errors.js";
import { storeWhere, type SessionContext } from "../context/session-context.js";

export const options = {
  name: { flag: "--name <ID>", help: "the id of the imported session (default: the journal's)" },
} as const satisfies Options;

export async function run({ positionals, values, io, sessionStore }: SessionContext<typeof options>): Promise<number> {
  if (positionals.length !== 1) throw new UsageError("session import takes one file (or - for stdin)");
  const [{ importSession }, { resumeCommand }] = await Promise.all([import("./handlers/transfer.js"), import("../context/resume-hint.js")]);
  const runId = await importSession(await sessionStore(values), positionals[0] as string, values.name, io.stdin);
  io.stdout.write(`imported session ${runId}; resume with: ${resumeCommand(runId, storeWhere(values), io.env)}\n`);
  return EXIT.completed;
}
