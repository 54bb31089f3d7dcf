// Checks a journal's bytes record by record and reports every problem with its line:
// what `session verify` prints and what export and import refuse.
import { isRunStateError } from "../errors.js";
import { fold } from "./fold.js";
import { forEachLine, parseRecordLine } from "../records/journal-codec.js";
import { PROTOCOLS, type JournalRecord } from "../records/records.js";

/** What is wrong with a journal line: a torn final write, bad JSON, an invalid record, a newer version, a fold error, or a meta naming another session. */
export type JournalProblemKind = "torn_tail" | "invalid_json" | "invalid_record" | "version" | "fold" | "misnamed";

/** One problem `verifyJournal` found in a journal, and the line it is on. */
export interface JournalProblem {
  /** What kind of problem it is. */
  kind: JournalProblemKind;
  /** The 1-based line the problem is on. */
  line: number;
  /** The problem in words, naming its line. */
  message: string;
  /** A torn tail is cut by the next open for append; nothing else repairs itself. */
  repairable: boolean;
}

export interface JournalVerification {
  /** The complete, valid records read. */
  records: JournalRecord[];
  problems: JournalProblem[];
}

/**
 * `runId`, when the journal is stored under one, must be the id its meta record holds:
 * a journal copied or renamed by hand is refused by `show` and `resume`, so verify says so.
 */
export function verifyJournal(bytes: Uint8Array, runId?: string): JournalVerification {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const records: JournalRecord[] = [];
  const problems: JournalProblem[] = [];
  let lines = 0;
  const complete = forEachLine(data, (lineBytes, line) => {
    lines = line;
    const parsed = parseRecordLine(lineBytes);
    if (parsed.ok) records.push(parsed.record);
    else if (parsed.kind === "newer_version") problems.push({ kind: "version", line, message: `line ${line}: ${parsed.problem}`, repairable: false });
    else problems.push({ kind: parsed.kind, line, message: `line ${line} ${parsed.problem}`, repairable: false });
  });
  const line = lines + 1;
  if (complete < data.length) {
    problems.push({
      kind: "torn_tail",
      line,
      message: `line ${line} is a torn final write (${data.length - complete} bytes): it is cut when the session is next resumed`,
      repairable: true,
    });
  }
  // Folding needs every record in place: with a bad line, its errors would only echo it.
  if (problems.every((problem) => problem.repairable)) {
    try {
      fold(records);
    } catch (error) {
      if (!isRunStateError(error)) throw error;
      const seq = error.seq ?? 1;
      // The last record with that seq: a repeated seq fails at its second appearance.
      const index = records.findLastIndex((record) => record.seq === seq);
      const line = index >= 0 ? index + 1 : 1;
      problems.unshift({ kind: "fold", line, message: `line ${line}: ${error.message}`, repairable: false });
    }
  }
  const first = records[0];
  if (runId !== undefined && first?.seq === 1 && first.protocol === PROTOCOLS.meta && first.meta.run_id !== runId) {
    problems.unshift({
      kind: "misnamed",
      line: 1,
      message: `line 1: the journal holds session ${first.meta.run_id}, not ${runId}: rename it back, or import it under a new name`,
      repairable: false,
    });
  }
  return { records, problems };
}
