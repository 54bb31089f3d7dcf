// Following a session as it is journaled (`session show --follow`, the viewer's follow
// mode): its records so far, then each new one as a store gives it, until the session
// ends. Polled, so that every backend is followed the same way through readRecords.
import { setTimeout as sleep } from "node:timers/promises";
import type { JournalRecord } from "../../runstate/records/records.js";
import type { Store } from "../../runstate/store/store.js";

/** How often a follower asks the store for records after the last it saw. */
const FOLLOW_INTERVAL_MS = 200;

/**
 * The run's records from `fromSeq` on, then those appended later, as they come. Ends once
 * the journal ends on a terminal record and no process holds the run: a session that
 * crashed (open) may yet be resumed, and is followed until `signal` aborts.
 */
export async function* followRecords(store: Store, runId: string, fromSeq = 1, signal?: AbortSignal): AsyncGenerator<JournalRecord> {
  let next = fromSeq;
  let ended = false;
  for (;;) {
    let read = 0;
    for await (const record of store.readRecords(runId, next)) {
      read++;
      next = record.seq + 1;
      ended = "terminal" in record;
      yield record;
    }
    // A terminal record is written before its writer lets go: asked again after a pause.
    if (read === 0 && ended && (await store.summarize(runId)).status !== "running") return;
    try {
      await sleep(FOLLOW_INTERVAL_MS, undefined, { signal });
    } catch {
      return;
    }
  }
}
