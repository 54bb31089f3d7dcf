// `fisk-ai session ls`: the sessions, newest first.
import type { Options } from "../context/options.js";
import { EXIT } from "../exit-codes.js";
import { UsageError } from "../cli-errors.js";
import type { SessionContext } from "../context/session-context.js";

export const options = {
  json: { flag: "--json", help: "one JSON array of the sessions" },
  here: { flag: "--here", help: "only the sessions started in this directory" },
  tree: { flag: "--tree", help: "child sessions under their parent with the lines of a tree drawn (with --json: nested in `children`)" },
  flat: { flag: "--flat", help: "one row a session, newest first, children not set under their parent" },
} as const satisfies Options;

export async function run({ positionals, values, io, sessionBackend }: SessionContext<typeof options>): Promise<number> {
  if (positionals.length > 0) throw new UsageError("session ls takes no arguments");
  if (values.tree === true && values.flat === true)
    throw new UsageError("session ls lays children out as a tree (--tree) or not at all (--flat): give one of them");
  const layout = values.tree === true ? "tree" : values.flat === true ? "flat" : ("indented" as const);
  const { listSessions } = await import("../text/session-list.js");
  const { store, queue } = await sessionBackend(values);
  const listing: Parameters<typeof listSessions>[1] = {
    json: values.json === true,
    here: values.here === true ? process.cwd() : undefined,
    layout,
    queue,
    warn: (line: string) => io.stderr.write(`fisk-ai: ${line}\n`),
  };
  await listSessions(store, listing, io.stdout);
  return EXIT.completed;
}
