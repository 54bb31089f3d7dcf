// What the loop reports while it runs. The loop never prints: the CLI renders these
// (narration and traces to stderr), a library user may render them any way it likes.
import type { ModelCallError } from "../llm/model-provider.js";
import type { Counters } from "../runstate/views/fold.js";
import type {
  ApprovalDecisionPayload,
  ApprovalRequestPayload,
  AssistantPayload,
  CompactionPayload,
  CompactionTrigger,
  Message,
  TerminalReason,
  ToolResultBlock,
  ToolResultPayload,
  ToolUseBlock,
} from "../runstate/records/records.js";
import type { ChildRunStart } from "../tools/tool.js";
import type { CompactionError } from "./agent-errors.js";
import type { WaitingCall } from "./waiting-calls.js";

/** The message of a chat's outcome when the person ended it (`nextPrompt` answered undefined): suspended, and done with. */
export const CHAT_ENDED = "the chat ended";

/** How a run ended, as the runFinished event reports it and runAgent resolves. */
export interface RunOutcome {
  /** The run's id (its session id): the one to pass as `resume` to continue it. */
  runId: string;
  /** `completed`, or why the run stopped: `suspended`, `budget`, `max_iterations`, `error`, `awaiting_approval`. */
  reason: TerminalReason;
  /** For `awaiting_approval`: the calls that wait for a decision (approve, deny, answer), then a resume goes on. */
  waiting?: WaitingCall[];
  /** The final answer's text, for `completed`. */
  answer?: string;
  /** Why the run stopped, for the other reasons. */
  message?: string;
  /** Whether the run was journaled (and can be resumed). */
  checkpointed: boolean;
  /** Model calls, tool calls and tokens over the whole run, resumes included. */
  counters: Counters;
}

/** What a run gives a child session one of its calls starts, besides the child's own options: a traced run's tracer, continued into the child. */
export interface ChildRunHooks {
  /** The child run's events (beside its own). */
  events?: AgentEvents;
  /** Variables the child's calls' processes get (its trace context). */
  callEnvironment?: (runId: string, use: ToolUseBlock) => Record<string, string>;
  /** The same, one level further down: for the sessions the child's calls start. */
  childRuns?: (child: ChildRunStart) => ChildRunHooks;
}

/** Both sets of callbacks see every event, `first` before `second`. */
export function bothEvents(first: AgentEvents, second: AgentEvents): AgentEvents {
  const keys = new Set([...Object.keys(first), ...Object.keys(second)]) as Set<keyof AgentEvents>;
  const both: Record<string, (...args: unknown[]) => void> = {};
  for (const key of keys) {
    both[key] = (...args) => {
      for (const events of [first, second]) (events[key] as ((...args: unknown[]) => void) | undefined)?.(...args);
    };
  }
  return both as AgentEvents;
}

/**
 * Callbacks for what a run does, each optional. The loop never prints: these are how a
 * program shows progress. They are called synchronously from the loop, so they should
 * return quickly.
 */
export interface AgentEvents {
  /** The run began: a new session, or a resumed one (`resumed`); `checkpointed` when it is journaled to a store. */
  runStarted?(info: {
    runId: string;
    resumed: boolean;
    checkpointed: boolean;
    /** The seq of the first record this part of the run journals: 1 for a new run. */
    firstSeq: number;
    /** Resumed from a journal that ends without a terminal record: the process before it died. */
    afterCrash: boolean;
    /** When this part began, RFC 3339: the meta's `created`, or the time a resume journals as its first record's `part_started_at`. */
    startedAt: string;
  }): void;
  /** On resume: the conversation so far, before anything new happens. */
  replay?(messages: readonly Message[]): void;
  /** A model call is about to be made (once, however often it is retried); `iteration` counts the run's model calls from 0, resumes included. */
  modelCallStarted?(iteration: number): void;
  /** Attempt `attempt` (from 1) failed with a retryable `error`; the next follows in `delayMs` milliseconds. */
  modelCallRetrying?(attempt: number, delayMs: number, error: ModelCallError): void;
  /** The model's text as it streams, before its turn is journaled; a retried call streams again from the start. */
  textDelta?(text: string): void;
  /** A model turn, once it is journaled. */
  assistantTurn?(turn: AssistantPayload): void;
  /** A tool call is about to run (after the turn asking for it is journaled). */
  toolStarted?(use: ToolUseBlock): void;
  /** A call that needed a person was refused (denied, or no one could be asked): it never runs; its result, saying why, follows through toolFinished. */
  callRefused?(use: ToolUseBlock): void;
  /** A tool's result, once it is journaled (`record`: what was journaled, times included); `reused` when a resume took it from the journal. */
  toolFinished?(use: ToolUseBlock, result: ToolResultBlock, reused: boolean, record?: ToolResultPayload): void;
  /** A final answer's text, once its turn is journaled; in a chat, one for each prompt. */
  answer?(text: string): void;
  /** On resume, before the pending batch is completed: the calls run again and those that are not (their tools' on_crash). */
  pendingBatch?(batch: { rerun: readonly ToolUseBlock[]; interrupted: readonly ToolUseBlock[] }): void;
  /** A compaction asks the model for a summary (`trigger` says why); nothing is journaled for it until the call returns. */
  compactionStarted?(info: { trigger: CompactionTrigger; tokensBefore: number }): void;
  /** The summarizing call returned; the compaction record is journaled next. */
  compactionSummarized?(info: { trigger: CompactionTrigger; inTokens: number; outTokens: number }): void;
  /** A compaction record is journaled (a summary, or only trimmed tool results): the model is sent the shorter conversation from now on. */
  compaction?(record: { seq: number; compaction: CompactionPayload }): void;
  /** A compaction that could not be made; the run goes on when the conversation still fits, and nothing was journaled for it. */
  compactionRefused?(error: CompactionError): void;
  /** A call was parked for a person's decision, its approval_request journaled. */
  approvalRequested?(request: ApprovalRequestPayload): void;
  /** A decision was journaled by the run: asked through `confirm` or `askUser`, or a timed-out request denied. */
  approvalDecided?(decision: ApprovalDecisionPayload): void;
  /** The run made the user's signing key to sign a decision asked on the spot (the first on this machine): where it is. */
  signingKeyCreated?(path: string): void;
  /** The run ended, its terminal record journaled. Not called when the run rejects instead. */
  runFinished?(outcome: RunOutcome): void;
}
