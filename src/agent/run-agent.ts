// The library's entry point: one call runs an agent, starting a session or resuming one.
// It is the loop with defaults filled in, so a program needs to know no more than the
// model, the prompt and its tools, and the outcome says how the run ended.
import type { ModelProvider, ThinkingConfig } from "../llm/model-provider.js";
import type { Store } from "../runstate/store/store.js";
import type { ChildRunStart, Tool, TreeBudget } from "../tools/tool.js";
import { ToolSet, type ConfirmToolCall } from "../tools/tool-set.js";
import { ConfigError } from "./agent-errors.js";
import { COMPACT, resumeRun, startRun, type AgentSettings, type RunOptions } from "./agent-loop.js";

export { COMPACT };
import { compactionSettingsFor, type CompactionOptions } from "./compaction.js";
import type { AskUser } from "./approvals.js";
import { AGENT_DEFAULTS } from "./defaults.js";
import type { AgentEvents, ChildRunHooks, RunOutcome } from "./events.js";
import type { NoteStore } from "../memory/note-store.js";
import type { ParentLink, ToolUseBlock } from "../runstate/records/records.js";
import { installationKeys } from "../trust/installation-keys.js";
import type { Keyring } from "../trust/keyring.js";

/** What runAgent runs: the model, the prompt (or the session to resume) and the tools; the rest has defaults. */
export interface RunAgentOptions {
  /** The model API: an AnthropicProvider, OpenAIProvider or ScriptProvider you construct, or any ModelProvider. */
  provider: ModelProvider;
  /** The model's id as the provider knows it, e.g. `claude-sonnet-4-5`. */
  model: string;
  /** Defaults to "You are a helpful assistant." */
  system?: string | undefined;
  /** What the agent should do: required for a new session, not given on resume. */
  prompt?: string | undefined;
  /** The tools the model may call; default none. Two of one name are a ConfigError. */
  tools?: readonly Tool[] | undefined;
  /** Run the tools of one model turn concurrently (default: one after another). */
  parallelTools?: boolean | undefined;
  /** Limits of the run (counted across resumes) and of each call. Reaching a run limit ends the run with reason `budget` or `max_iterations`. */
  budget?:
    | {
        /** Tokens over the whole run, all tiers (default 200000). */
        maxTokens?: number | undefined;
        /** Model calls over the whole run (default 50). */
        maxIterations?: number | undefined;
        /** The output limit of one model call (default 8192). */
        maxOutputTokens?: number | undefined;
      }
    | undefined;
  /**
   * Compaction of a conversation that outgrows the model's context window: before a model
   * call past `threshold` (default 0.8) of `window`, and when the API refuses a request as
   * too long, the model summarizes all but the last `keepRecent` (default 4) messages and
   * the summary is journaled. Without it, on for the models whose window fisk-ai knows
   * (claude-sonnet-4-5, gpt-4.1, llama3.2) and off for others; given for another model, it
   * needs `window`. `auto: false` turns it off. The summarizing calls count against the
   * token budget.
   */
  compaction?: CompactionOptions | undefined;
  /** Extended thinking (default `{ mode: "off" }`). */
  thinking?: ThinkingConfig | undefined;
  /** How a model call that fails with a retryable ModelCallError is retried, with jittered exponential backoff. */
  retry?:
    | {
        /** Attempts per model call, the first included (default 4). */
        attempts?: number | undefined;
        /** The wait before the first retry in milliseconds, doubled for each retry after it; each wait is jittered to between half and all of it (default 1000). */
        baseDelayMs?: number | undefined;
        /** Per model call (default 120000). */
        timeoutMs?: number | undefined;
      }
    | undefined;
  /** Journal the session here, so it can be suspended and resumed; without one it lives in memory only. */
  store?: Store | undefined;
  /** The id of a new run, its session id (default: a new KSUID). */
  runId?: string | undefined;
  /**
   * The record version a new session is journaled in: 2 (the default) or 3, the Go
   * implementation's current format, so that it can resume the session too.
   */
  recordVersion?: 2 | 3 | undefined;
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
  /** The id of a session in `store` to resume instead of starting one. */
  resume?: string | undefined;
  /** Resume even though the configuration changed (never across providers). */
  force?: boolean | undefined;
  /** Aborting it suspends the run at its next step: the session can be resumed later. */
  signal?: AbortSignal | undefined;
  /** Callbacks for what the run does; the loop never prints. */
  events?: AgentEvents | undefined;
  /**
   * Asked before each call of a tool defined with `confirm: true`. Without it, a run with a
   * `store` parks such calls (the outcome is `awaiting_approval`, with its `waiting` calls:
   * decide them with approve or deny, then resume); a run without a store denies them.
   */
  confirm?: ConfirmToolCall | undefined;
  /** Answers the questions of askUserTool; without it a run with a store parks them for `answer`, one without answers them with an error. */
  askUser?: AskUser | undefined;
  /** A parked call still undecided this long (in milliseconds) is denied, "timed out", when the session is next resumed. */
  approvalTimeoutMs?: number | undefined;
  /** Asked whether a call of an `onCrash: "ask"` tool that a crash cut short runs again; without it, no. */
  askRerun?: ConfirmToolCall | undefined;
  /** Who `confirm` and `askUser` speak for, journaled with their decisions (default `callback`). */
  decidedBy?: string | undefined;
  /**
   * Notes kept across runs (a FileNoteStore): their index joins the system prompt at every
   * start and resume, never the fingerprint. Give the model `memoryTools(memory)` among
   * `tools` to let it write them.
   */
  memory?: NoteStore | undefined;
  /** With `resume`: a prompt that takes the session further, journaled as a `user` record (also after a completed run). */
  followUp?: string | undefined;
  /**
   * A chat: after each answer the run asks this for the next prompt, journals it and goes
   * on; `undefined` ends the chat (journaled `suspended`, so it can be resumed), `COMPACT`
   * compacts the conversation and asks again. A new session given one is marked as a chat.
   */
  nextPrompt?: (() => Promise<string | typeof COMPACT | undefined>) | undefined;
  /** Recorded in a new session's meta: the absolute directory its tools run in, so a resume elsewhere can run them there. */
  cwd?: string | undefined;
  /** Recorded in a new session's meta: the absolute path of the agent.yaml it runs (loadAgent sets it), so a resume can load it again. */
  configPath?: string | undefined;
  /** Aborting it stops the run at once, journaling nothing more: what a crash leaves, to be resumed later. */
  abort?: AbortSignal | undefined;
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
  /** For a session marked moved: whether the store it was moved to holds it (then the resume is refused as ERR_MOVED); without it, a moved session is refused. */
  movedHeld?: ((to: string) => Promise<boolean>) | undefined;
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
    settings: agentSettings(options),
    ...(options.signal === undefined ? {} : { suspend: options.signal }),
    ...(options.abort === undefined ? {} : { signal: options.abort }),
    ...(options.events === undefined ? {} : { events: options.events }),
    ...(options.confirm === undefined ? {} : { confirm: options.confirm }),
    ...(options.askUser === undefined ? {} : { askUser: options.askUser }),
    ...(options.askRerun === undefined ? {} : { askRerun: options.askRerun }),
    ...(options.decidedBy === undefined ? {} : { decidedBy: options.decidedBy }),
    ...(options.nextPrompt === undefined ? {} : { nextPrompt: options.nextPrompt }),
    ...(options.callEnvironment === undefined ? {} : { callEnvironment: options.callEnvironment }),
    ...(options.childRuns === undefined ? {} : { childRuns: options.childRuns }),
    ...(options.toolCwd === undefined ? {} : { toolCwd: options.toolCwd }),
    ...(options.parentBudget === undefined ? {} : { parentBudget: options.parentBudget }),
    ...(options.treeMaxDepth === undefined ? {} : { treeMaxDepth: options.treeMaxDepth }),
    keys: installationKeys(options.store, {
      ...(options.keyring === undefined ? {} : { keyring: options.keyring }),
      ...(options.events?.signingKeyCreated === undefined ? {} : { onKeyCreated: options.events.signingKeyCreated }),
    }),
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
  return startRun(
    { ...run, store: options.store },
    {
      prompt: options.prompt,
      runId: options.runId,
      recordVersion: options.recordVersion,
      title: options.title,
      interactive: options.nextPrompt !== undefined,
      cwd: options.cwd,
      config: options.configPath,
      parent: options.parent,
      tenant: options.tenant,
    },
  );
}

/** The one place a run's options become the loop's settings, defaults filled in. */
export function agentSettings(options: RunAgentOptions): AgentSettings {
  const budget = options.budget ?? {};
  const retry = options.retry ?? {};
  let tools: ToolSet;
  try {
    tools = new ToolSet(options.tools ?? []);
  } catch (error) {
    throw new ConfigError(`tools: ${(error as Error).message}`);
  }
  const compaction = compactionSettingsFor(options.model, options.compaction, "compaction");
  return {
    provider: options.provider,
    model: options.model,
    system: options.system ?? AGENT_DEFAULTS.system,
    tools,
    parallelTools: options.parallelTools ?? false,
    maxOutputTokens: budget.maxOutputTokens ?? AGENT_DEFAULTS.maxOutputTokens,
    maxTokens: budget.maxTokens ?? AGENT_DEFAULTS.maxTokens,
    maxIterations: budget.maxIterations ?? AGENT_DEFAULTS.maxIterations,
    thinking: options.thinking ?? { mode: "off" },
    retry: {
      attempts: retry.attempts ?? AGENT_DEFAULTS.retryAttempts,
      baseDelayMs: retry.baseDelayMs ?? AGENT_DEFAULTS.retryBaseDelayMs,
      timeoutMs: retry.timeoutMs ?? AGENT_DEFAULTS.callTimeoutMs,
    },
    ...(options.memory === undefined ? {} : { memory: options.memory }),
    ...(options.approvalTimeoutMs === undefined ? {} : { approvalTimeoutMs: options.approvalTimeoutMs }),
    ...(compaction === undefined ? {} : { compaction }),
  };
}
