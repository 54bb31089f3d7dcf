// What `session show` and the export say about a run besides its conversation, taken
// record by record as the journal streams: a checking fold (outlineStep), which applies
// every rule fold does but keeps only the outline of the conversation. A journal that
// does not fold is refused here, naming its seq, as `verify` and `load` refuse it.
import { isRunStateError, RunStateError } from "../errors.js";
import { outlineStep, type FoldState } from "./fold.js";
import type { JournalRecord } from "../records/records.js";

/** A run's tally after its records so far: a checking fold's state (its messages are an outline). */
export type RunTally = FoldState;

/**
 * Advances a tally by one record, in place; `undefined` and the meta record start one.
 * A record that does not fold throws a RunStateError naming the session and the seq.
 */
export function tallyStep(runId: string, tally: RunTally | undefined, record: JournalRecord): RunTally {
  try {
    return outlineStep(tally, record);
  } catch (error) {
    if (!isRunStateError(error) || error.runId !== undefined) throw error;
    // A readRecords line is its record's seq: the line verify names is the same number.
    throw new RunStateError(error.code, `session ${runId}: line ${record.seq}: ${error.message}`, { runId, seq: error.seq, line: record.seq, cause: error });
  }
}

/** Tallies a run's records as they are read: ERR_EMPTY when there are none. */
export async function tallyRecords(runId: string, records: AsyncIterable<JournalRecord>): Promise<RunTally> {
  let tally: RunTally | undefined;
  for await (const record of records) tally = tallyStep(runId, tally, record);
  // Named as verify names it: the line where the meta record should be.
  if (tally === undefined) throw new RunStateError("ERR_EMPTY", `session ${runId}: line 1: the journal holds no records`, { runId, line: 1 });
  return tally;
}
