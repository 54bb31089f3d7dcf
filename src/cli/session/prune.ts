// `fisk-ai session prune`: remove the sessions matching every filter given.
import type { Command } from "commander";
import { UsageError } from "../cli-errors.js";
import { retentionFrom, type SessionContext } from "../context/session-context.js";

export function options(command: Command): void {
  command
    .option("--older-than <AGE>", "last written more than AGE ago: 30m, 12h, 7d, 2w")
    .option("--status <LIST>", "in one of these statuses, comma-separated")
    .option("--keep-last <N>", "not among the N most recently written sessions")
    .option("--dry-run", "print what would be removed and its bytes, and remove nothing")
    .option("--json", "what was (or would be) removed, as JSON");
}

export async function run({ positionals, values, io, sessionStore }: SessionContext): Promise<number> {
  if (positionals.length > 0) throw new UsageError("session prune takes no arguments: say what to remove with --older-than, --status and --keep-last");
  const { pruneFilters, pruneSessions } = await import("./handlers/prune.js");
  const filters = pruneFilters(values, await retentionFrom(values));
  return pruneSessions(await sessionStore(values), filters, { dryRun: values.dryRun === true, json: values.json === true, now: Date.now() }, io);
}
