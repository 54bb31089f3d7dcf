// The agent layer's own errors, in a module of their own so that reporting them does not
// load the configuration parser or the loop (the CLI's start-up pays for every import).
import { FiskError } from "../errors/fisk-error.js";

/** A configuration the operator must fix: one line, naming the file and the field. Its code is `ERR_CONFIG`. */
export class ConfigError extends FiskError<"ERR_CONFIG"> {
  /** Always `"ConfigError"`. */
  override readonly name = "ConfigError";

  constructor(message: string) {
    super("ERR_CONFIG", message);
  }
}

/**
 * Why a resume was refused:
 * - `completed`: the session has its answer, and the resume brings nothing to take it further.
 * - `provider-changed`: the session ran on another provider's API; `force` does not cross it.
 * - `configuration-changed`: the model, system prompt, tools, thinking or limits differ from the session's.
 * - `go-hashes-changed`: as `configuration-changed`, for a record version 3 journal, whose hashes
 *   are the Go implementation's and also cover what it adds to the system prompt and tools.
 * - `go-hashes-unverifiable`: the Go implementation wrote the session (record version 1 or 2),
 *   and its hashes cannot all be compared here.
 * - `token-budget`: the session has used its token budget.
 * - `iteration-cap`: the session has made all the model calls its latest prompt allows.
 */
export type ResumeRefusal =
  | "completed"
  | "provider-changed"
  | "configuration-changed"
  | "go-hashes-changed"
  | "go-hashes-unverifiable"
  | "token-budget"
  | "iteration-cap";

/** The refusals that resuming with `force` gets past: those about the configuration, the provider excepted. */
const FORCE_OVERRIDES: ReadonlySet<ResumeRefusal> = new Set(["configuration-changed", "go-hashes-changed", "go-hashes-unverifiable"]);

/**
 * Why a version 3 journal's hashes may differ from a configuration that did not change:
 * said after the advice of a `go-hashes-changed` refusal, the library's and the CLI's.
 */
export const GO_V3_HASHES_NOTE =
  " (a record version 3 journal holds the Go implementation's hashes, which cover the notes it adds to the system prompt for its memory and human-in-the-loop tools, and its deferred tools)";

/** A limit a resume is refused at: how much of it the session has used, and the limit. */
export interface ResumeLimit {
  /** Tokens used, or model calls made since the latest prompt. */
  used: number;
  /** The limit: the token budget, or the model calls allowed per prompt. */
  max: number;
}

/** What a ResumeRefusedError carries besides its refusal and message. */
export interface ResumeRefusedDetails {
  /** The session refused. */
  runId: string;
  /** What differs from the configuration the session started with, when the refusal is about it. */
  changes?: readonly string[];
  /** For `token-budget` and `iteration-cap`: what the session has used of the limit, and the limit. */
  limit?: ResumeLimit;
}

/**
 * A resume the guard, or the run's state, does not allow. Branch on `refusal`; the
 * message is for people, naming what is wrong.
 */
export class ResumeRefusedError extends FiskError<"ERR_RESUME_REFUSED"> {
  /** Always `"ResumeRefusedError"`. */
  override readonly name = "ResumeRefusedError";
  /** Why it was refused. */
  readonly refusal: ResumeRefusal;
  /** The run (session) refused. */
  declare readonly runId: string;
  /** What differs from the configuration the session started with, one line each (`model: a -> b`); empty when the refusal is not about the configuration. */
  readonly changes: readonly string[];
  /** Whether resuming with `force` would get past this refusal. */
  readonly forceOverrides: boolean;
  /** For `token-budget` and `iteration-cap`: what the session has used (tokens, or model calls since its latest prompt) and the limit; undefined for other refusals. */
  readonly limit: ResumeLimit | undefined;

  constructor(refusal: ResumeRefusal, message: string, details: ResumeRefusedDetails) {
    super("ERR_RESUME_REFUSED", message, { runId: details.runId });
    this.refusal = refusal;
    this.changes = details.changes ?? [];
    this.forceOverrides = FORCE_OVERRIDES.has(refusal);
    this.limit = details.limit;
  }
}

/**
 * Why a decision was refused:
 * - `already-decided`: the call has its decision (another process may have made it a moment ago).
 * - `not-waiting`: the session has no such call waiting: none parked, or the id names none.
 * - `wrong-kind`: approve or deny for a question, or an answer for an approval.
 * - `ambiguous`: an answer with no call named, where more than one question waits.
 */
export type DecisionRefusal = "already-decided" | "not-waiting" | "wrong-kind" | "ambiguous";

/** A decision (approve, deny, answer) that was not journaled: one line saying why. */
export class DecisionRefusedError extends FiskError<"ERR_DECISION_REFUSED"> {
  /** Always `"DecisionRefusedError"`. */
  override readonly name = "DecisionRefusedError";
  /** Which rule refused it. */
  readonly refusal: DecisionRefusal;
  /** The session. */
  declare readonly runId: string;

  constructor(refusal: DecisionRefusal, message: string, runId: string) {
    super("ERR_DECISION_REFUSED", message, { runId });
    this.refusal = refusal;
  }
}

/**
 * Why a compaction could not be made:
 * - `at-rest`: the session is not at a point a compaction may fall (a batch of tool calls waits
 *   for results, or a paused turn waits to be continued): resume it first.
 * - `nothing-to-cut`: no cut keeps `keep_recent` messages and summarizes anything, and no kept
 *   tool result is large enough to trim.
 * - `too-large`: after every cut and trim the conversation is still over the model's context
 *   window; the message names the record too large to keep.
 * - `no-shrink`: the summary the model wrote was no shorter than what it would replace, so it was not journaled.
 * - `call-failed`: the summarizing model call failed (after its retries).
 * - `nothing-to-undo`: `undoCompaction` found no compaction in effect.
 */
export type CompactionRefusal = "at-rest" | "nothing-to-cut" | "too-large" | "no-shrink" | "call-failed" | "nothing-to-undo";

/** A compaction, or its undo, that could not be made; nothing was journaled for it. */
export class CompactionError extends FiskError<"ERR_COMPACTION"> {
  /** Always `"CompactionError"`. */
  override readonly name = "CompactionError";
  /** Why. */
  readonly refusal: CompactionRefusal;

  constructor(refusal: CompactionRefusal, message: string) {
    super("ERR_COMPACTION", message);
    this.refusal = refusal;
  }
}
