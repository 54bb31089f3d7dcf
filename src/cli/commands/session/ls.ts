// `fisk-ai session ls`: the sessions, newest first.
import type { Command } from "commander";
import { EXIT } from "../../exit-codes.js";
import { UsageError } from "../../cli-errors.js";
import type { SessionContext } from "../../session-command.js";

export function options(command: Command): void {
  command
    .option("--json", "one JSON array of the sessions")
    .option("--here", "only the sessions started in this directory");
}

export async function run({ positionals, values, io, sessionStore }: SessionContext): Promise<number> {
  if (positionals.length > 0) throw new UsageError("session ls takes no arguments");
  const { listSessions } = await import("../../session-list.js");
  await listSessions(await sessionStore(values), { json: values.json === true, here: values.here === true ? process.cwd() : undefined }, io.stdout);
  return EXIT.completed;
}
