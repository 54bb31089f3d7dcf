// What a run works with besides its agent and its session: the store, who is told, who
// decides and the two signals that stop it. runAgent takes it from a program; the loop runs
// with it, the keys resolved.
import type { Store } from "../runstate/store/store.js";
import type { ToolUseBlock } from "../runstate/records/records.js";
import type { ChildRunStart, TreeBudget } from "../tools/tool.js";
import type { ConfirmToolCall } from "../tools/tool-set.js";
import type { Keyring } from "../trust/keyring.js";
import type { AskUser } from "./approvals.js";
import type { AgentEvents, ChildRunHooks } from "./events.js";

/** What `nextPrompt` answers to have the conversation compacted before the next prompt. */
export const COMPACT = Symbol("compact");

/** What a run works with besides the agent and its session: where it is journaled, who decides, who is told, what stops it. */
export interface RunContext {
  /** Journal the session here, so it can be suspended and resumed; without one it lives in memory only. */
  store?: Store | undefined;
  /** Callbacks for what the run does; the loop never prints. */
  events?: AgentEvents | undefined;
  /** Aborting it suspends the run at its next step: the session can be resumed later. */
  suspendSignal?: AbortSignal | undefined;
  /** Aborting it stops the run at once, journaling nothing more: what a crash leaves, to be resumed later. */
  abortSignal?: AbortSignal | undefined;
  /**
   * Asked before each call of a tool defined with `confirm: true`. Without it, a run with a
   * `store` parks such calls (the outcome is `awaiting_approval`, with its `waiting` calls:
   * decide them with approve or deny, then resume); a run without a store denies them.
   */
  confirm?: ConfirmToolCall | undefined;
  /** Answers the questions of askUserTool; without it a run with a store parks them for `answer`, one without answers them with an error. */
  askUser?: AskUser | undefined;
  /** Asked whether a call of an `onCrash: "ask"` tool that a crash cut short runs again; without it, no. */
  askRerun?: ConfirmToolCall | undefined;
  /** Who `confirm` and `askUser` speak for, journaled with their decisions (default `callback`). */
  decidedBy?: string | undefined;
  /**
   * A chat: after each answer the run asks this for the next prompt, journals it and goes
   * on; `undefined` ends the chat (journaled `suspended`, so it can be resumed), `COMPACT`
   * compacts the conversation and asks again. A new session given one is marked as a chat.
   */
  nextPrompt?: (() => Promise<string | typeof COMPACT | undefined>) | undefined;
  /** Variables each tool call's processes get besides their environment: a traced run's trace context (fisk-ai/telemetry). */
  callEnvironment?: ((runId: string, use: ToolUseBlock) => Record<string, string>) | undefined;
  /**
   * Told of each child session the run's agent tools start or resume, before it runs: what
   * that run is given besides its own options. A traced run passes its tracer's (runTracing's
   * `childRuns`), so the whole tree is one trace.
   */
  childRuns?: ((child: ChildRunStart) => ChildRunHooks) | undefined;
  /** The directory command tools run in; the process's own when absent (a worker passes the session's meta cwd). */
  toolCwd?: string | undefined;
  /** For a child session (agentTool sets it): its parent's token budget, which its tokens count against too and which stops it when used up. */
  parentBudget?: TreeBudget | undefined;
  /** For a child session (agentTool sets it): the deepest a session of its tree may be, so a child's own agent tools cannot go deeper than the run it started from allows. */
  treeMaxDepth?: number | undefined;
  /**
   * The keys decisions and the session's meta are signed and verified with (docs/security.md);
   * default the keyring file FISK_AI_SIGNING_KEYS names, else the user's, made on the first
   * decision asked on the spot when the store is a FileStore.
   */
  keyring?: Keyring | undefined;
}
