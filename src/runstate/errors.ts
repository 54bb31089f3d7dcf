// One error type for the run-state layer. `code` is stable, for programs; the
// message is one line for people, naming what is wrong and, where it helps, what to do.

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
] as const;

export type RunStateErrorCode = (typeof ERROR_CODES)[number];

export interface RunStateErrorDetails {
  /** The record's seq, for errors about one record. */
  seq?: number;
  /** The 1-based line of a journal file, for errors found while reading one. */
  line?: number;
  cause?: unknown;
}

export class RunStateError extends Error {
  override readonly name = "RunStateError";
  readonly code: RunStateErrorCode;
  readonly seq: number | undefined;
  readonly line: number | undefined;

  constructor(code: RunStateErrorCode, message: string, details: RunStateErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    this.seq = details.seq;
    this.line = details.line;
  }
}

export function isRunStateError(error: unknown, code?: RunStateErrorCode): error is RunStateError {
  return error instanceof RunStateError && (code === undefined || error.code === code);
}
