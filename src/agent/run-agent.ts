// The library's entry point: one call runs an agent, starting a session or resuming one.
// It is the loop with defaults filled in, so a program needs to know no more than the
// model, the prompt and its tools, and the outcome says how the run ended.
import type { Store } from "../runstate/store/store.js";
import type { ChildRunStart, TreeBudget } from "../tools/tool.js";
import type { ConfirmToolCall } from "../tools/tool-set.js";
import { ConfigError } from "./agent-errors.js";
import { COMPACT, resumeRun, startRun, type RunOptions } from "./agent-loop.js";
import { agentSpec, type AgentOptions } from "./agent-spec.js";
import type { AskUser } from "./approvals.js";
import type { AgentEvents, ChildRunHooks, RunOutcome } from "./events.js";
import type { ParentLink, ToolUseBlock } from "../runstate/records/records.js";
import { installationKeys } from "../trust/installation-keys.js";
import type { Keyring } from "../trust/keyring.js";

export { COMPACT };

/**
 * What runAgent runs: an agent (AgentOptions, or an AgentSpec such as loadAgent's), the
 * session (a new one's prompt, or the one to resume) and the run's context.
 */
export type RunAgentOptions = AgentOptions & RunSession & RunContext;

/** Which session a run starts or takes up. */
export interface RunSession {
  /** What the agent should do: required for a new session, not given on resume. */
  prompt?: string | undefined;
  /** The id of a new run, its session id (default: a new KSUID). */
  runId?: string | undefined;
  /** A title for a new session, journaled after its meta record (a session's title is the latest given; titleSession gives one later). */
  title?: string | undefined;
  /**
   * Makes a new session a child of another (agentTool does): its meta names the parent
   * session, the call that started it and its depth, and is of CHILD_RECORD_VERSION.
   */
  parent?: ParentLink | undefined;
  /**
   * The tenant a shared service runs a new session for (docs/server.md#keys-and-tenants),
   * journaled and signed in its meta; its child sessions inherit it. Default: the default tenant.
   */
  tenant?: string | undefined;
  /** Recorded in a new session's meta: the absolute directory its tools run in, so a resume elsewhere can run them there. */
  cwd?: string | undefined;
  /** The id of a session in `store` to resume instead of starting one. */
  resume?: string | undefined;
  /** Resume even though the configuration changed (never across providers). */
  force?: boolean | undefined;
  /** With `resume`: a prompt that takes the session further, journaled as a `user` record (also after a completed run). */
  followUp?: string | undefined;
  /** For a session marked moved: whether the store it was moved to holds it (then the resume is refused as ERR_MOVED); without it, a moved session is refused. */
  movedHeld?: ((to: string) => Promise<boolean>) | undefined;
}

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

/** How the run ended, as the runFinished event reports it. A failed model call or an over-budget run is an outcome (reason `error`, `budget`), not a rejection. */
export type AgentOutcome = RunOutcome;

/**
 * Runs an agent until it answers or stops: a new session on `prompt`, or the session
 * `resume` names. Rejects with a RunStateError (with a `code`) when the store refuses,
 * a ResumeRefusedError when the session cannot be resumed, a ConfigError for options
 * that do not fit together.
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentOutcome> {
  const run: RunOptions = {
    spec: agentSpec(options),
    store: options.store,
    events: options.events,
    suspendSignal: options.suspendSignal,
    abortSignal: options.abortSignal,
    confirm: options.confirm,
    askUser: options.askUser,
    askRerun: options.askRerun,
    decidedBy: options.decidedBy,
    nextPrompt: options.nextPrompt,
    callEnvironment: options.callEnvironment,
    childRuns: options.childRuns,
    toolCwd: options.toolCwd,
    parentBudget: options.parentBudget,
    treeMaxDepth: options.treeMaxDepth,
    keys: installationKeys(options.store, { keyring: options.keyring, onKeyCreated: options.events?.signingKeyCreated }),
  };
  if (options.resume !== undefined) {
    if (options.store === undefined) throw new ConfigError("resume needs the store the session is in: pass store");
    if (options.prompt !== undefined) throw new ConfigError("a resumed session continues its own conversation: pass no prompt (a followUp takes it further)");
    return resumeRun(
      { ...run, store: options.store },
      { runId: options.resume, force: options.force === true, followUp: options.followUp, movedHeld: options.movedHeld },
    );
  }
  if (options.prompt === undefined || options.prompt.trim() === "") throw new ConfigError("prompt is empty: say what the agent should do");
  if (options.followUp !== undefined) throw new ConfigError("followUp takes a resumed session further: pass it with resume");
  return startRun(run, {
    prompt: options.prompt,
    runId: options.runId,
    title: options.title,
    interactive: options.nextPrompt !== undefined,
    cwd: options.cwd,
    parent: options.parent,
    tenant: options.tenant,
  });
}
