// Orphans: open sessions nobody holds and the pool does not know of, a plain
// `run --checkpoint` whose process died (or a submit that died between journaling the
// session and queuing it). `session ls` marks them and `worker --adopt` takes them: one
// definition, so what is shown orphaned is exactly what a worker adopts.
import type { RunQueue } from "./run-queue.js";
import type { RunSummary } from "../runstate/store/store.js";

/** Whether `summary` is an orphan: open (no terminal record, no live holder) and not in the queue (`queued`: its run ids). */
export function isOrphan(summary: RunSummary, queued: ReadonlySet<string>): boolean {
  return summary.status === "open" && summary.meta !== undefined && !queued.has(summary.runId);
}

/** The run ids the queue holds, queued or parked; none without a queue (a store the pool cannot use). */
export async function queuedRunIds(queue: RunQueue | undefined): Promise<Set<string>> {
  return new Set(queue === undefined ? [] : (await queue.list()).map((entry) => entry.runId));
}
