// `fisk-ai session prune`: remove the sessions matching every filter given.
import type { Options } from "../context/options.js";
import { UsageError } from "../cli-errors.js";
import { retentionFrom, type SessionContext } from "../context/session-context.js";

export const options = {
  olderThan: { flag: "--older-than <AGE>", help: "last written more than AGE ago: 30m, 12h, 7d, 2w" },
  status: { flag: "--status <LIST>", help: "in one of these statuses, comma-separated" },
  keepLast: { flag: "--keep-last <N>", help: "not among the N most recently written sessions" },
  dryRun: { flag: "--dry-run", help: "print what would be removed and its bytes, and remove nothing" },
  json: { flag: "--json", help: "what was (or would be) removed, as JSON" },
} as const satisfies Options;

export async function run({ positionals, values, io, sessionStore }: SessionContext<typeof options>): Promise<number> {
  if (positionals.length > 0) throw new UsageError("session prune takes no arguments: say what to remove with --older-than, --status and --keep-last");
  const { pruneFilters, pruneSessions } = await import("./handlers/prune.js");
  const filters = pruneFilters(values, await retentionFrom(values));
  return pruneSessions(await sessionStore(values), filters, { dryRun: values.dryRun === true, json: values.json === true, now: Date.now() }, io);
}
