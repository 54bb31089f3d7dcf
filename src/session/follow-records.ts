// A session's records as they are journaled, from any process that reaches its store: the
// records from a seq on, then each new one as a worker appends it, until the session is at
// rest (no queue entry) or parked for a decision. The queue's watch of the session wakes
// it, and it looks at least every pollMs. What awaitSubmitted and the server's event
// streams both read.
import type { RunQueue } from "../queue/run-queue.js";
import type { JournalRecord } from "../runstate/records/records.js";
import type { Store } from "../runstate/store/store.js";

/** How followRecords follows a session. */
export interface FollowOptions {
  /** How long it waits to hear of a change before it asks the store and queue anyway, in milliseconds (default 100). */
  pollMs?: number;
  /** Aborting it stops the following (the iteration rejects with the abort). */
  signal?: AbortSignal;
}

/**
 * Yields `runId`'s records from seq `fromSeq` on, in seq order, each once, as they are
 * journaled; ends once the session has no queue entry or its entry is parked, after its
 * last record. A session nobody queued yields what is stored and ends.
 */
export async function* followRecords(
  store: Store,
  queue: RunQueue,
  runId: string,
  fromSeq: number,
  options: FollowOptions = {},
): AsyncGenerator<JournalRecord> {
  let next = fromSeq;
  // Made before the first look, so a record or a finish meanwhile wakes the first wait.
  const watch = queue.watch(runId);
  try {
    for (;;) {
      // The entry is read before the records: a run journals its last record before it leaves the queue.
      const entry = await queue.get(runId);
      for await (const record of store.readRecords(runId, next)) {
        next = record.seq + 1;
        yield record;
      }
      if (entry === undefined || entry.state === "parked") return;
      await watch.next(options.pollMs ?? 100, options.signal);
      options.signal?.throwIfAborted();
    }
  } finally {
    watch.close();
  }
}

/** Where a session stands once followRecords ends: its last record's terminal reason (a run may hold the journal a moment longer), else its listed status. */
export async function restingStatus(store: Store, runId: string): Promise<{ status: string; lastSeq: number }> {
  const { status, lastSeq } = await store.summarize(runId, { digest: false });
  for await (const record of store.readRecords(runId, lastSeq)) if ("terminal" in record) return { status: record.terminal.reason, lastSeq: record.seq };
  return { status, lastSeq };
}
