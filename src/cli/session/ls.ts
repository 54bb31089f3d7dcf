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
  const [{ listSessions }, { writeSessionList }, { quarantineSummary }] = await Promise.all([
    import("../../session/list-sessions.js"),
    import("../text/session-list.js"),
    import("../../queue/quarantine.js"),
  ]);
  const { store, queue } = await sessionBackend(values);
  const here = values.here === true ? process.cwd() : undefined;
  const listing = await listSessions(store, { here, queue });
  if (listing.quarantined.length > 0) io.stderr.write(`fisk-ai: ${quarantineSummary(listing.quarantined)}\n`);
  writeSessionList(listing, { json: values.json === true, layout, here, dir: (store as { dir?: string }).dir }, io.stdout);
  return EXIT.completed;
}
