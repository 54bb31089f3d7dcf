// A queue's changes as events, for a console that follows a whole pool on one connection:
// an entry that appears (queued), changes state (queued, parked) or leaves (left). Read by
// listing the queue each time its watch wakes, and at least every pollMs.
import type { QueuedRun, RunQueue } from "./run-queue.js";

/** The queue as it was when the following began, then one change of it at a time. */
export type QueueChange = { kind: "snapshot"; entries: QueuedRun[] } | { kind: "queued" | "parked"; entry: QueuedRun } | { kind: "left"; runId: string };

/** Yields the queue as it is now, then its changes, until `signal` aborts (the iteration rejects with the abort). */
export async function* queueChanges(queue: RunQueue, signal: AbortSignal, pollMs = 1000): AsyncGenerator<QueueChange> {
  const watch = queue.watch();
  try {
    const entries = await queue.list();
    let known = new Map(entries.map((entry) => [entry.runId, entry.state]));
    yield { kind: "snapshot", entries };
    for (;;) {
      await watch.next(pollMs, signal);
      signal.throwIfAborted();
      const now = await queue.list();
      const seen = new Map(now.map((entry) => [entry.runId, entry.state]));
      for (const entry of now) if (known.get(entry.runId) !== entry.state) yield { kind: entry.state, entry };
      for (const runId of known.keys()) if (!seen.has(runId)) yield { kind: "left", runId };
      known = seen;
    }
  } finally {
    watch.close();
  }
}
