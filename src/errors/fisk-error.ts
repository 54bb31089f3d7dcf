// The one shape of every error the library throws: a typed `code` to branch on, the
// session and record it is about where it is about one, and a one-line message for people.
// The CLI maps codes to exit codes and advice; it never reads a message's text.

/** What every FiskError may carry besides its code and message. */
export interface FiskErrorDetails {
  /** The session (run) the error is about, when it is about one. */
  runId?: string | undefined;
  /** The record's seq, for errors about one record. */
  seq?: number | undefined;
  /** The 1-based journal line, for errors found while reading one. */
  line?: number | undefined;
  /** What was expected instead, where the error says (the seq an append should have had, the stream a store needs). */
  expected?: string | undefined;
  /** The underlying error, kept as the error's `cause`. */
  cause?: unknown | undefined;
}

/**
 * The base class of every fisk-ai error: RunStateError, ConfigError, ResumeRefusedError,
 * DecisionRefusedError, CompactionError, ModelCallError, McpServerError, McpSignInNeededError,
 * NoteError and BackendError.
 * Branch on `code` (each class documents its codes); `isFiskError` is the one guard.
 */
export abstract class FiskError<Code extends string = string> extends Error {
  /** What went wrong, stable for programs to branch on. */
  readonly code: Code;
  /** The session the error is about; undefined when it is not about one stored session. */
  readonly runId: string | undefined;
  /** The seq of the record the error is about; undefined when it is not about one record. */
  readonly seq: number | undefined;
  /** The 1-based journal line where reading failed; undefined when the error did not come from reading a line. */
  readonly line: number | undefined;
  /** What was expected instead, where the error says. */
  readonly expected: string | undefined;

  constructor(code: Code, message: string, details: FiskErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    this.runId = details.runId;
    this.seq = details.seq;
    this.line = details.line;
    this.expected = details.expected;
  }
}

/** Whether `error` is a fisk-ai error, and, given a `code`, one with that code; works on what a `catch` caught. */
export function isFiskError(error: unknown, code?: string): error is FiskError {
  return error instanceof FiskError && (code === undefined || error.code === code);
}
