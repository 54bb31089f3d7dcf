// `fisk-ai session ls`: the sessions, newest first.
import type { Command } from "commander";
import { EXIT } from "../../exit-codes.js";
import { UsageError } from "../../cli-errors.js";
import type { SessionContext } from "../../session-command.js";

export function options(command: Command): void {
  command
    .option("--json", "one JSON array of the sessions")
    .option("--here", "only the sessions started in this directory")
    .option("--tree", "child sessions under their parent with the lines of a tree drawn (with --json: nested in `children`)")
    .option("--flat", "one row a session, newest first, children not set under their parent");
}

export async function run({ positionals, values, io, sessionBackend }: SessionContext): Promise<number> {
  if (positionals.length > 0) throw new UsageError("session ls takes no arguments");
  if (values.tree === true && values.flat === true)
    throw new UsageError("session ls lays children out as a tree (--tree) or not at all (--flat): give one of them");
  const layout = values.tree === true ? "tree" : values.flat === true ? "flat" : "indented";
  const { listSessions } = await import("../../session-list.js");
  const { store, queue } = await sessionBackend(values);
  await listSessions(store, { json: values.json === true, here: values.here === true ? process.cwd() : undefined, layout, queue }, io.stdout);
  return EXIT.completed;
}
