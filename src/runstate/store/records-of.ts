// A stored run's records, all of them, for the few readers that need the whole journal as
// records rather than folded (traces, a move's check of a copy, a child's resume).
import type { JournalRecord } from "../records/records.js";
import type { Store } from "./store.js";

/** Every record of the run `runId` in `store`, in seq order; the store's errors as readRecords gives them. */
export async function recordsOf(store: Store, runId: string): Promise<JournalRecord[]> {
  const records: JournalRecord[] = [];
  for await (const record of store.readRecords(runId)) records.push(record);
  return records;
}
