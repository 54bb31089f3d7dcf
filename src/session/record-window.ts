// A window of a session's records, so a client pages a journal of any size: the records
// after one seq and before another, at most `limit`, read as the store streams them.
import type { JournalRecord } from "../runstate/records/records.js";
import type { Store } from "../runstate/store/store.js";

/** Which records: those with `after` < seq < `before`, the first `limit` of them. */
export interface RecordWindow {
  after?: number | undefined;
  before?: number | undefined;
  limit: number;
}

/** The records of the window, and the seq to ask `after` for the next one (absent when the window reached its end). */
export async function recordWindow(store: Store, runId: string, window: RecordWindow): Promise<{ records: JournalRecord[]; next?: number }> {
  const records: JournalRecord[] = [];
  for await (const record of store.readRecords(runId, (window.after ?? 0) + 1)) {
    if (window.before !== undefined && record.seq >= window.before) return { records };
    if (records.length === window.limit) return { records, next: (records.at(-1) as JournalRecord).seq };
    records.push(record);
  }
  return { records };
}
