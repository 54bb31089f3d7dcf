// A session's records as they are journaled, from any process that reaches its store: the
// records from a seq on, then each new one as a worker appends it, until the session is at
// rest (no queue entry) or parked for a decision. The queue's watch of the session wakes
// it. A server holds one follower per event stream, each looking by itself when it hears
// nothing: so the look that bounds a missed wake-up is seldom, except just after a
// terminal record, when the run's entry leaves the queue next and not every queue's watch
// hears that (JetStream's ack). What the server's event streams read.
import type { RunQueue } from "../queue/run-queue.js";
import type { JournalRecord } from "../runstate/records/records.js";
import type { Store } from "../runstate/store/store.js";

/** How followRecords follows a session. */
export interface FollowOptions {
  /** How long it waits to hear of a change before it asks the store and queue anyway, in milliseconds (default 2000). */
  pollMs?: number;
  /** Aborting it stops the following (the iteration rejects with the abort). */
  signal?: AbortSignal;
}

/** How long a follower waits to hear of a change before it looks anyway, unless told. */
const POLL_MS = 2000;
/** How soon it looks again after a terminal record, for as long as pollMs, until the run leaves the queue or parks. */
const SETTLING_MS = 100;

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
  const pollMs = options.pollMs ?? POLL_MS;
  let settlingUntil = 0;
  // Made before the first look, so a record or a finish meanwhile wakes the first wait.
  const watch = queue.watch(runId);
  try {
    for (;;) {
      // The entry is read before the records: a run journals its last record before it leaves the queue.
      const entry = await queue.get(runId);
      for await (const record of store.readRecords(runId, next)) {
        next = record.seq + 1;
        if ("terminal" in record) settlingUntil = Date.now() + pollMs;
        yield record;
      }
      if (entry === undefined || entry.state === "parked") return;
      await watch.next(Date.now() < settlingUntil ? Math.min(SETTLING_MS, pollMs) : pollMs, options.signal);
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
