// One error type for the run-state layer. `code` is stable, for programs; the
// message is one line for people, naming what is wrong and, where it helps, what to do.
import { FiskError } from "../errors/fisk-error.js";
import type { RunHolder } from "./store/run-holder.js";

/**
 * Every RunStateError `code`, stable for programs to branch on:
 * - `ERR_NOT_FOUND`: no session of that id.
 * - `ERR_EXISTS`: a session of that id exists already.
 * - `ERR_LOCKED`: another writer holds the session.
 * - `ERR_INVALID_ID`: not a valid session id (see isValidRunId).
 * - `ERR_SEQ_GAP`: an append skips ahead of the journal's last seq.
 * - `ERR_CORRUPT`: a journal line or record that cannot be read or folded (with `line` or `seq`).
 * - `ERR_VERSION`: a journal of a newer record version than this one reads.
 * - `ERR_EMPTY`: a journal with no complete record.
 * - `ERR_NO_META`: a journal that does not start with its meta record.
 * - `ERR_CLOSED`: a journal used after close.
 * - `ERR_INVALID_RECORD`: a record refused before it was written.
 * - `ERR_SYMLINK`: a symlink where the file backend keeps its own files.
 * - `ERR_IO`: the storage failed (a write, a server that cannot be reached).
 * - `ERR_STORE_CONFIG`: a store that cannot be used as configured (an unsafe JetStream stream; `expected` holds a command that makes a correct one).
 * - `ERR_NO_STREAM`: the JetStream stream named does not exist (`expected` holds a command that makes it).
 * - `ERR_MOVED`: the session was moved to another store (`movedTo` says which) and goes on there only.
 * - `ERR_NO_SEQ`: a seq the session does not have (a fork asked to start past its end).
 */
export const ERROR_CODES = [
  "ERR_NOT_FOUND",
  "ERR_EXISTS",
  "ERR_LOCKED",
  "ERR_INVALID_ID",
  "ERR_SEQ_GAP",
  "ERR_CORRUPT",
  "ERR_VERSION",
  "ERR_EMPTY",
  "ERR_NO_META",
  "ERR_CLOSED",
  "ERR_INVALID_RECORD",
  "ERR_SYMLINK",
  "ERR_IO",
  "ERR_STORE_CONFIG",
  "ERR_NO_STREAM",
  "ERR_MOVED",
  "ERR_NO_SEQ",
] as const;

/** One of ERROR_CODES. */
export type RunStateErrorCode = (typeof ERROR_CODES)[number];

/** What a RunStateError carries besides its code and message. */
export interface RunStateErrorDetails {
  /** The run (session) the error is about, when it is about one stored run. */
  runId?: string | undefined;
  /** The record's seq, for errors about one record. */
  seq?: number | undefined;
  /** The 1-based line of a journal file, for errors found while reading one. */
  line?: number | undefined;
  /** For ERR_SEQ_GAP, the seq the journal would have taken next. */
  expectedSeq?: number | undefined;
  /** For ERR_LOCKED, the process holding the run, when it has said who it is. */
  holder?: RunHolder | undefined;
  /** What was expected instead: for ERR_STORE_CONFIG and ERR_NO_STREAM, a command that makes a correct stream. */
  expected?: string | undefined;
  /** For ERR_STORE_CONFIG and ERR_NO_STREAM, the JetStream stream's name. */
  stream?: string | undefined;
  /** For ERR_MOVED, the store the session was moved to. */
  movedTo?: string | undefined;
  /** For ERR_NO_STREAM, the store's URL (`nats://SERVER/STREAM`), when one server was named. */
  store?: string | undefined;
  /** The underlying error, kept as the error's `cause`. */
  cause?: unknown | undefined;
}

/**
 * The one error of the run-state layer: every store, the journal codec and fold fail
 * with it. Branch on `code`; the message is one line for people, naming what is wrong
 * and, where it helps, what to do.
 */
export class RunStateError extends FiskError<RunStateErrorCode> {
  /** Always `"RunStateError"`. */
  override readonly name = "RunStateError";
  /** For ERR_SEQ_GAP, the seq the journal would have taken next. */
  readonly expectedSeq: number | undefined;
  /** For ERR_LOCKED, the process holding the run; undefined when it has not said who it is. */
  readonly holder: RunHolder | undefined;
  /** For ERR_STORE_CONFIG and ERR_NO_STREAM, the JetStream stream's name. */
  readonly stream: string | undefined;
  /** For ERR_MOVED, the store the session was moved to: a `nats://` URL or a file store's directory. */
  readonly movedTo: string | undefined;
  /** For ERR_NO_STREAM, the store's URL (`nats://SERVER/STREAM`), when one server was named. */
  readonly store: string | undefined;

  constructor(code: RunStateErrorCode, message: string, details: RunStateErrorDetails = {}) {
    super(code, message, { ...details, ...(details.expectedSeq === undefined ? {} : { expected: String(details.expectedSeq) }) });
    this.expectedSeq = details.expectedSeq;
    this.holder = details.holder;
    this.stream = details.stream;
    this.movedTo = details.movedTo;
    this.store = details.store;
  }
}

/**
 * Whether `error` is a RunStateError, and, given a `code`, one with that code: works on
 * an error that came through `catch (error: unknown)`.
 */
export function isRunStateError(error: unknown, code?: RunStateErrorCode): error is RunStateError {
  return error instanceof RunStateError && (code === undefined || error.code === code);
}

/** The error a moved session's store gives for anything that would take it further. */
export function movedError(runId: string, moved: { to: string; moved_at: string }): RunStateError {
  return new RunStateError("ERR_MOVED", `session ${runId} was moved to ${moved.to} on ${moved.moved_at}: it goes on there`, { runId, movedTo: moved.to });
}
