// Checks a journal's bytes record by record and reports every problem with its line:
// what `session verify` prints and what export and import refuse.
import { createHash, type Hash } from "node:crypto";
import { isRunStateError } from "../errors.js";
import { outlineStep, type FoldState } from "./fold.js";
import { JournalLines, parseRecordLine } from "../records/journal-codec.js";
import { PROTOCOLS, type JournalRecord } from "../records/records.js";

const NEWLINE = new Uint8Array([0x0a]);

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
  const records: JournalRecord[] = [];
  const verifier = new JournalVerifier(runId, (record) => records.push(record));
  verifier.push(bytes);
  return { records, problems: verifier.finish().problems };
}

/** What a JournalVerifier found, once it has had every byte. */
export interface StreamedVerification {
  /** The complete, valid records read. */
  records: number;
  problems: JournalProblem[];
  /** The run the records fold to, as a checking fold keeps it (outlineStep); undefined when they do not fold. */
  state: FoldState | undefined;
  /** Bytes up to and including the last newline: what export copies. */
  completeLength: number;
  /** The SHA-256 of those bytes, hex, when the verifier was asked for it. */
  sha256?: string;
}

/**
 * Checks a journal as verifyJournal does, its bytes pushed as they are read: memory holds a
 * chunk, a line and a checking fold (outlineStep), never the journal, so a journal of any
 * size is verified in bounded memory. `onRecord` sees each valid record in turn. A line past
 * the read limit is a problem naming it, and ends the check there: the rest is not read.
 */
export class JournalVerifier {
  readonly #runId: string | undefined;
  readonly #onRecord: ((record: JournalRecord) => void) | undefined;
  readonly #lines: JournalLines;
  readonly #problems: JournalProblem[] = [];
  #records = 0;
  #first: JournalRecord | undefined;
  #state: FoldState | undefined;
  /** The first record that did not fold: reported only when no line is broken (it would only echo that line). */
  #foldProblem: JournalProblem | undefined;
  #overlong = false;
  readonly #hash: Hash | undefined;

  /** With `hash`, it also hashes the complete lines: a second reading can then be held to the first. */
  constructor(runId?: string, onRecord?: (record: JournalRecord) => void, options: { hash?: boolean } = {}) {
    this.#runId = runId;
    this.#onRecord = onRecord;
    this.#hash = options.hash === true ? createHash("sha256") : undefined;
    this.#lines = new JournalLines((line, lineNumber) => this.#check(line, lineNumber));
  }

  /** Checks the complete lines `chunk` finishes; it may be reused once this returns. */
  push(chunk: Uint8Array): void {
    if (this.#overlong) return;
    try {
      this.#lines.push(chunk);
    } catch (error) {
      if (!isRunStateError(error, "ERR_CORRUPT") || error.line === undefined) throw error;
      this.#overlong = true;
      this.#problems.push({ kind: "invalid_record", line: error.line, message: error.message, repairable: false });
    }
  }

  /** Every problem found, once the last chunk is pushed. */
  finish(): StreamedVerification {
    const problems = [...this.#problems];
    const line = this.#lines.lines + 1;
    const torn = this.#lines.tailLength;
    if (!this.#overlong && torn > 0) {
      problems.push({
        kind: "torn_tail",
        line,
        message: `line ${line} is a torn final write (${torn} bytes): it is cut when the session is next resumed`,
        repairable: true,
      });
    }
    if (problems.every((problem) => problem.repairable)) {
      const empty: JournalProblem | undefined =
        this.#records === 0 ? { kind: "fold", line: 1, message: "line 1: the journal holds no records", repairable: false } : undefined;
      const unfolded = this.#foldProblem ?? empty;
      if (unfolded !== undefined) problems.unshift(unfolded);
    }
    const first = this.#first;
    if (this.#runId !== undefined && first?.seq === 1 && first.protocol === PROTOCOLS.meta && first.meta.run_id !== this.#runId) {
      problems.unshift({
        kind: "misnamed",
        line: 1,
        message: `line 1: the journal holds session ${first.meta.run_id}, not ${this.#runId}: rename it back, or import it under a new name`,
        repairable: false,
      });
    }
    const folded = problems.every((problem) => problem.repairable) ? this.#state : undefined;
    const completeLength = this.#lines.completeLength;
    return { records: this.#records, problems, state: folded, completeLength, ...(this.#hash === undefined ? {} : { sha256: this.#hash.digest("hex") }) };
  }

  #check(bytes: Buffer, line: number): void {
    this.#hash?.update(bytes).update(NEWLINE);
    const parsed = parseRecordLine(bytes);
    if (!parsed.ok) {
      if (parsed.kind === "newer_version") this.#problems.push({ kind: "version", line, message: `line ${line}: ${parsed.problem}`, repairable: false });
      else this.#problems.push({ kind: parsed.kind, line, message: `line ${line} ${parsed.problem}`, repairable: false });
      return;
    }
    const record = parsed.record;
    this.#records++;
    this.#first ??= record;
    this.#onRecord?.(record);
    // Folding needs every record in place: past a broken line, its errors would only echo it.
    if (this.#foldProblem !== undefined || this.#problems.length > 0) return;
    this.#foldProblem = foldProblem(() => {
      this.#state = outlineStep(this.#state, record);
    }, line);
  }
}

/** The problem of a fold step that throws, on `line`; undefined when it folds. */
function foldProblem(step: () => void, line: number): JournalProblem | undefined {
  try {
    step();
    return undefined;
  } catch (error) {
    if (!isRunStateError(error)) throw error;
    return { kind: "fold", line, message: `line ${line}: ${error.message}`, repairable: false };
  }
}
