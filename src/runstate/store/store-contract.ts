// The rules every Store backend keeps, stated once (docs/backends.md). A backend decides
// how bytes are kept and who may write; what is accepted, refused and said about it is
// decided here, so backends cannot drift apart in their checks or their messages.
import { RunStateError } from "../errors.js";
import { assertReadableVersion, fold, outlineStep, type FoldState, type RunState } from "../views/fold.js";
import {
  decodeJournal,
  decodeRecordLine,
  encodeRecordIn,
  JournalDecoder,
  JournalLines,
  MAX_LINE_BYTES,
  mebibytes,
  type DecodedJournal,
} from "../records/journal-codec.js";
import { v3Problem } from "../records/record-v3.js";
import { checkRecord, PROTOCOLS, recordAt, type JournalRecord, type MetaPayload, type MetaRecord, type RecordEntry } from "../records/records.js";
import type { RunHolder } from "./run-holder.js";
import type { RunDigest } from "../views/run-digest.js";
import type { JournalBytes, RunSummary } from "./store.js";

export { assertRunId, isValidRunId } from "../records/run-id.js";

/**
 * The meta record `create` writes as seq 1 and its line, or why it may not:
 * ERR_INVALID_RECORD when `meta.run_id` is not `runId` or the record is invalid,
 * ERR_VERSION when `meta.version` is newer than this fisk-ai reads.
 */
export function checkedMeta(
  runId: string,
  meta: MetaPayload,
): {
  /** The meta record at seq 1. */
  record: MetaRecord;
  /** Its journal line, ending in "\n", in the record version `meta.version` names. */
  line: string;
} {
  if (meta.run_id !== runId) {
    throw new RunStateError("ERR_INVALID_RECORD", `meta.run_id ${JSON.stringify(meta.run_id)} does not match session id ${runId}`);
  }
  assertReadableVersion(meta);
  const record: MetaRecord = { seq: 1, protocol: PROTOCOLS.meta, meta };
  const checked = checkRecord(record);
  if (!checked.ok) throw new RunStateError("ERR_INVALID_RECORD", `refusing to create session ${runId}: ${checked.problem}`);
  return { record, line: heldLine(record, meta.version, (problem) => `refusing to create session ${runId}: ${problem}`) };
}

/** The record version of a run's journal, from its meta record. */
export function versionOf(records: readonly JournalRecord[]): number {
  return (records[0] as MetaRecord).meta.version;
}

/** A record's line in a journal of `version`, which keeps it as it is or refuses it (ERR_INVALID_RECORD, said by `refusal`). */
function heldLine(record: JournalRecord, version: number, refusal: (problem: string) => string): string {
  const line = encodeRecordIn(version, record);
  const bytes = Buffer.byteLength(line);
  const problem =
    bytes > MAX_LINE_BYTES
      ? `its line is ${bytes} bytes, past the limit of ${mebibytes(MAX_LINE_BYTES)} a journal line may hold`
      : version === 3
        ? v3Problem(record, line)
        : undefined;
  if (problem !== undefined) throw new RunStateError("ERR_INVALID_RECORD", refusal(problem), { seq: record.seq });
  return line;
}

/** What an append at `seq` to a journal whose last seq is `lastSeq` must do. */
export type AppendDecision =
  | {
      /** The seq is already taken: write nothing, and resolve once what is in flight is durable. */
      kind: "retry";
    }
  | {
      /** The seq is the next one: write `line`. */
      kind: "append";
      /** The record at that seq, as a journal of the run's version gives it back. */
      record: JournalRecord;
      /** Its journal line, ending in "\n". */
      line: string;
    };

/**
 * A seq at or below the last is a crash-retry of a record already taken (a no-op once
 * what is in flight is durable); one that skips ahead is ERR_SEQ_GAP; the next seq must
 * hold a valid record that a journal of `version` can hold (else ERR_INVALID_RECORD), and
 * gets its line in it.
 */
export function decideAppend(runId: string, lastSeq: number, seq: number, entry: RecordEntry, version: number): AppendDecision {
  if (Number.isInteger(seq) && seq >= 1 && seq <= lastSeq) return { kind: "retry" };
  if (seq !== lastSeq + 1) {
    throw new RunStateError("ERR_SEQ_GAP", `append of seq ${seq} to session ${runId}, whose last seq is ${lastSeq}`, { runId, seq, expectedSeq: lastSeq + 1 });
  }
  const checked = recordAt(seq, entry);
  if (!checked.ok) throw new RunStateError("ERR_INVALID_RECORD", `refusing to append seq ${seq}: ${checked.problem}`, { seq });
  return { kind: "append", record: checked.record, line: heldLine(checked.record, version, (problem) => `refusing to append seq ${seq}: ${problem}`) };
}

/**
 * Decodes a stored journal and validates the whole run (its version included) before
 * anyone reads or adds to it. `where` names the storage, for a journal that holds
 * another run. A torn tail is left out and reported through `completeLength`. Throws
 * ERR_CORRUPT, ERR_EMPTY or ERR_NO_META naming `runId` for what does not decode or fold,
 * ERR_VERSION for a newer record version, and ERR_CORRUPT when it holds another run.
 */
export function decodeRun(
  runId: string,
  bytes: Buffer,
  where: string,
): DecodedJournal & {
  /** The run the records fold to. */
  state: RunState;
} {
  try {
    return foldedRun(runId, decodeJournal(bytes), where);
  } catch (error) {
    throw namedAfterRun(runId, error);
  }
}

/**
 * As decodeRun, for a backend that streams the journal's bytes into a decoder as it reads
 * them (`read`), so that it never holds a large journal's bytes and its records at once.
 */
export async function decodeRunStreamed(
  runId: string,
  where: string,
  read: (decoder: JournalDecoder) => Promise<void>,
): Promise<
  DecodedJournal & {
    /** The run the records fold to. */
    state: RunState;
  }
> {
  const decoder = new JournalDecoder();
  try {
    await read(decoder);
    return foldedRun(runId, decoder.decoded(), where);
  } catch (error) {
    throw namedAfterRun(runId, error);
  }
}

function foldedRun(runId: string, decoded: DecodedJournal, where: string): DecodedJournal & { state: RunState } {
  try {
    return { ...decoded, state: assertHoldsRun(where, runId, fold(decoded.records)) };
  } catch (error) {
    if (!(error instanceof RunStateError) || error.line !== undefined) throw error;
    // A journal that does not start with its meta breaks the rule on line 1, whatever seq is there.
    if (error.code === "ERR_NO_META") throw new RunStateError(error.code, `line 1: ${error.message}`, { seq: error.seq, line: 1, cause: error });
    if (error.seq === undefined || error.code !== "ERR_CORRUPT") throw error;
    // Named by its line as verify names it: the first record its step-by-step fold refuses.
    const line = refusedLine(decoded.records);
    if (line === undefined) throw error;
    throw new RunStateError(error.code, `line ${line}: ${error.message}`, { seq: error.seq, line, cause: error });
  }
}

/** The line of the first record the step-by-step fold that verify uses refuses, if any. */
function refusedLine(records: readonly JournalRecord[]): number | undefined {
  let state: FoldState | undefined;
  for (const [index, record] of records.entries()) {
    try {
      state = outlineStep(state, record);
    } catch {
      return index + 1;
    }
  }
  return undefined;
}

/**
 * The records of a run's journal lines, from `fromSeq` on, as `readRecords` gives them:
 * each decoded and checked (ERR_CORRUPT naming its line, ERR_VERSION), its seq the one
 * after the last, the meta record's run the one asked for. `where` names the storage.
 */
export async function* recordsOfLines(runId: string, where: string, fromSeq: number, lines: AsyncIterable<Uint8Array | string>): AsyncGenerator<JournalRecord> {
  let seq = fromSeq;
  try {
    for await (const line of lines) {
      const record = decodeRecordLine(line, seq);
      if (record.seq !== seq) throw new RunStateError("ERR_CORRUPT", `line ${seq} holds seq ${record.seq}: seqs must increase by one`, { line: seq });
      if (seq === 1 && record.protocol !== PROTOCOLS.meta)
        throw new RunStateError("ERR_NO_META", "line 1: the first record is not the meta record", { seq: 1, line: 1 });
      if (record.protocol === PROTOCOLS.meta) assertHoldsRun(where, runId, { runId: record.meta.run_id });
      seq++;
      yield record;
    }
  } catch (error) {
    throw namedAfterRun(runId, error);
  }
}

/** `fromSeq` as readRecords takes it: a whole number from 1 (a TypeError otherwise, a caller's mistake). */
export function checkedFromSeq(fromSeq: number | undefined): number {
  const seq = fromSeq ?? 1;
  if (!Number.isInteger(seq) || seq < 1) throw new TypeError(`fromSeq must be a whole number from 1, not ${String(fromSeq)}`);
  return seq;
}

/**
 * The records of a journal offered to `importJournal`, or why it may not become `runId`:
 * ERR_CORRUPT for an incomplete last line or a line that is not a record, what fold
 * throws for records that do not fold, ERR_INVALID_RECORD when it holds another run.
 */
export function checkImport(runId: string, bytes: Buffer): JournalRecord[] {
  const records: JournalRecord[] = [];
  const check = new ImportCheck(runId, (record) => records.push(record));
  check.push(bytes);
  check.finish();
  return records;
}

/**
 * checkImport of a journal pushed in pieces as it is written: memory holds a piece, a line
 * and a checking fold (outlineStep), never the journal. `finish` throws what checkImport does.
 */
export class ImportCheck {
  readonly #runId: string;
  readonly #lines: JournalLines;
  #state: FoldState | undefined;

  constructor(runId: string, onRecord?: (record: JournalRecord) => void) {
    this.#runId = runId;
    this.#lines = new JournalLines((line, lineNumber) => {
      const record = decodeRecordLine(line, lineNumber);
      this.#state = outlineStep(this.#state, record);
      onRecord?.(record);
    });
  }

  /** Checks the lines `piece` completes; a line it leaves open waits for the next piece. */
  push(piece: Uint8Array): void {
    this.#lines.push(piece);
  }

  /** The state the journal folds to, once every piece is pushed. */
  finish(): FoldState {
    const lines = this.#lines.lines;
    if (this.#lines.tailLength > 0) {
      throw new RunStateError("ERR_CORRUPT", `the journal to import ends in an incomplete line (after line ${lines})`, { line: lines + 1 });
    }
    const state = this.#state ?? fold([]);
    if (state.runId !== this.#runId) {
      throw new RunStateError("ERR_INVALID_RECORD", `the journal to import holds session ${state.runId}, not ${this.#runId}`, { seq: 1 });
    }
    return state;
  }
}

/** A journal given in pieces, put together: for a backend that writes an import whole. */
export async function wholeJournal(journal: JournalBytes): Promise<Buffer> {
  if (journal instanceof Uint8Array) return Buffer.from(journal.buffer, journal.byteOffset, journal.byteLength);
  const pieces: Buffer[] = [];
  for await (const piece of journal) pieces.push(Buffer.from(piece));
  return Buffer.concat(pieces);
}

/**
 * A run's summary from the raw bytes of its first and last complete records, as `list`
 * reads them without folding the body: what the journal alone says, before asking
 * whether a live writer holds it (withLiveHolder). Anything wrong makes the run
 * `corrupt`, with the problem named.
 */
export function summarizeEnds(
  runId: string,
  where: string,
  ends: { first: Uint8Array | undefined; last: Uint8Array | undefined },
  updated: Date,
  digest: RunDigest,
): RunSummary {
  // The first line that breaks a rule, as the digest met it, before what the ends say of the same fault.
  if (digest.problem !== undefined) return foldProblemSummary(runId, updated, digest);
  try {
    if (ends.first === undefined || ends.last === undefined) {
      throw new RunStateError("ERR_EMPTY", `session ${runId} has no complete record`);
    }
    const first = decodeRecordLine(ends.first, 1);
    if (first.protocol !== PROTOCOLS.meta) {
      throw new RunStateError("ERR_NO_META", `session ${runId} does not start with a meta record`);
    }
    // decodeRecordLine has refused a newer version already.
    assertHoldsRun(where, runId, { runId: first.meta.run_id });
    return summaryAt(runId, first.meta, ends.last === ends.first ? first : decodeRecordLine(ends.last), updated, digest);
  } catch (error) {
    return corruptSummary(runId, updated, error);
  }
}

/**
 * A run's summary from its meta, its last record and its digest, as a writer knows them
 * without reading back. The status is the digest's: a title or an origin appended after
 * a terminal record leaves the run as it stopped; a digest that met a line that does not
 * fold makes the run corrupt, naming that line, as `verify` would.
 */
export function summaryAt(runId: string, meta: MetaPayload, last: Pick<JournalRecord, "seq">, updated: Date, digest: RunDigest): RunSummary {
  if (digest.problem !== undefined) return foldProblemSummary(runId, updated, digest);
  return { runId, status: digest.status, meta, lastSeq: last.seq, updated: updated.toISOString(), digest };
}

/** The summary of a run whose digest met a line that does not fold: corrupt, naming that line. */
function foldProblemSummary(runId: string, updated: Date, digest: RunDigest): RunSummary {
  return { ...corruptSummary(runId, updated, `session ${runId}: ${digest.problem}`), digest };
}

/** A journal's summary as `running` while a live writer holds the run; a corrupt one stays corrupt. */
export function withLiveHolder(summary: RunSummary, holder: RunHolder | undefined): RunSummary {
  return holder === undefined || summary.status === "corrupt" ? summary : { ...summary, status: "running", holder };
}

/** The summary of a run that cannot be read: `corrupt`, no meta, lastSeq 0, `error`'s message as its problem. */
export function corruptSummary(runId: string, updated: Date, error: unknown): RunSummary {
  return {
    runId,
    status: "corrupt",
    meta: undefined,
    lastSeq: 0,
    updated: updated.toISOString(),
    problem: error instanceof Error ? error.message : String(error),
  };
}

/** A reading error says which session it is about, in its message and its `runId`. */
function namedAfterRun(runId: string, error: unknown): unknown {
  if (error instanceof RunStateError && (error.code === "ERR_CORRUPT" || error.code === "ERR_EMPTY" || error.code === "ERR_NO_META")) {
    return new RunStateError(error.code, `session ${runId}: ${error.message}`, { runId, seq: error.seq, line: error.line, cause: error });
  }
  return error;
}

/** A journal copied or renamed by hand would otherwise pass for another session. */
function assertHoldsRun<T extends { runId: string }>(where: string, runId: string, state: T): T {
  if (state.runId !== runId) {
    throw new RunStateError("ERR_CORRUPT", `${where} holds session ${state.runId}, not ${runId}: rename it back, or import it under a new name`, {
      seq: 1,
    });
  }
  return state;
}

/** ERR_NOT_FOUND: the store holds no run `runId`. */
export function notFoundError(runId: string): RunStateError {
  return new RunStateError("ERR_NOT_FOUND", `no session ${runId}`, { runId });
}

/** ERR_EXISTS: `create` or `importJournal` of a run the store already holds. */
export function existsError(runId: string): RunStateError {
  return new RunStateError("ERR_EXISTS", `session ${runId} already exists: choose another name or resume it`, { runId });
}

/** ERR_LOCKED: a writer holds the run; `holder` is who, as the backend knows it, when it knows. */
export function lockedError(runId: string, holder: RunHolder | undefined): RunStateError {
  const who = holder === undefined ? "by another process that has not said which" : `by pid ${holder.pid} on ${holder.host} (started ${holder.started})`;
  return new RunStateError("ERR_LOCKED", `session ${runId} is in use ${who}: wait for it to finish or stop that process`, { runId, holder });
}

/** ERR_CLOSED: an append to a journal once its `close` has been called. */
export function closedError(runId: string): RunStateError {
  return new RunStateError("ERR_CLOSED", `the journal of session ${runId} is closed`, { runId });
}

/**
 * What a journal says, once a write of it failed, to that append and to everything after
 * it until the run is reopened: the stored tail is unknown. A failure that is the
 * backend's own verdict that this writer lost the run (a RunStateError other than ERR_IO:
 * ERR_LOCKED when another writer took a slot or the lease, ERR_EXISTS when another took
 * a meta's slot) keeps its code and words, so the writer stops for the reason it has;
 * any other failure is the storage's, ERR_IO.
 */
export function writeFailedError(runId: string, failure: unknown): RunStateError {
  if (failure instanceof RunStateError && failure.code !== "ERR_IO") return failure;
  const reason = failure instanceof Error ? failure.message : String(failure);
  return new RunStateError("ERR_IO", `writing the journal of session ${runId} failed (${reason}): close it and open the session again`, {
    runId,
    cause: failure,
  });
}
