// The library's entry point: one call runs an agent, starting a session or resuming one.
// It is the loop with defaults filled in, so a program needs to know no more than the
// model, the prompt and its tools, and the outcome says how the run ended.
import type { ModelProvider, ThinkingConfig } from "../llm/model-provider.js";
import type { Store } from "../runstate/store.js";
import type { Tool } from "../tools/tool.js";
import { ToolSet, type ConfirmToolCall } from "../tools/tool-set.js";
import { ConfigError } from "./agent-errors.js";
import { resumeRun, startRun, type RunOptions } from "./agent-loop.js";
import type { AskUser } from "./approvals.js";
import { AGENT_DEFAULTS } from "./defaults.js";
import type { AgentEvents, RunOutcome } from "./events.js";

/** What runAgent runs: the model, the prompt (or the session to resume) and the tools; the rest has defaults. */
export interface RunAgentOptions {
  /** The model API: an AnthropicProvider, OpenAIProvider or ScriptProvider you construct, or any ModelProvider. */
  provider: ModelProvider;
  /** The model's id as the provider knows it, e.g. `claude-sonnet-4-5`. */
  model: string;
  /** Defaults to "You are a helpful assistant." */
  system?: string;
  /** What the agent should do: required for a new session, not given on resume. */
  prompt?: string;
  /** The tools the model may call; default none. Two of one name are a ConfigError. */
  tools?: readonly Tool[];
  /** Run the tools of one model turn concurrently (default: one after another). */
  parallelTools?: boolean;
  /** Limits of the run (counted across resumes) and of each call. Reaching a run limit ends the run with reason `budget` or `max_iterations`. */
  budget?: {
    /** Tokens over the whole run, all tiers (default 200000). */
    maxTokens?: number;
    /** Model calls over the whole run (default 50). */
    maxIterations?: number;
    /** The output limit of one model call (default 8192). */
    maxOutputTokens?: number;
  };
  /** Extended thinking (default `{ mode: "off" }`). */
  thinking?: ThinkingConfig;
  /** How a model call that fails with a retryable ModelCallError is retried, with jittered exponential backoff. */
  retry?: {
    /** Attempts per model call, the first included (default 4). */
    attempts?: number;
    /** The wait before the first retry in milliseconds, doubled for each retry after it; each wait is jittered to between half and all of it (default 1000). */
    baseDelayMs?: number;
    /** Per model call (default 120000). */
    timeoutMs?: number;
  };
  /** Journal the session here, so it can be suspended and resumed; without one it lives in memory only. */
  store?: Store;
  /** The id of a new run, its session id (default: a new KSUID). */
  runId?: string;
  /**
   * The record version a new session is journaled in: 2 (the default) or 3, the Go
   * implementation's current format, so that it can resume the session too.
   */
  recordVersion?: 2 | 3;
  /** The id of a session in `store` to resume instead of starting one. */
  resume?: string;
  /** Resume even though the configuration changed (never across providers). */
  force?: boolean;
  /** Aborting it suspends the run at its next step: the session can be resumed later. */
  signal?: AbortSignal;
  /** Callbacks for what the run does; the loop never prints. */
  events?: AgentEvents;
  /**
   * Asked before each call of a tool defined with `confirm: true`. Without it, a run with a
   * `store` parks such calls (the outcome is `awaiting_approval`, with its `waiting` calls:
   * decide them with approve or deny, then resume); a run without a store denies them.
   */
  confirm?: ConfirmToolCall;
  /** Answers the questions of askUserTool; without it a run with a store parks them for `answer`, one without answers them with an error. */
  askUser?: AskUser;
  /** A parked call still undecided this long (in milliseconds) is denied, "timed out", when the session is next resumed. */
  approvalTimeoutMs?: number;
  /** Asked whether a call of an `onCrash: "ask"` tool that a crash cut short runs again; without it, no. */
  askRerun?: ConfirmToolCall;
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
  const budget = options.budget ?? {};
  const retry = options.retry ?? {};
  let tools: ToolSet;
  try {
    tools = new ToolSet(options.tools ?? []);
  } catch (error) {
    throw new ConfigError(`tools: ${(error as Error).message}`);
  }
  const signal = options.signal;
  const run: RunOptions = {
    settings: {
      provider: options.provider,
      model: options.model,
      system: options.system ?? AGENT_DEFAULTS.system,
      tools,
      parallelTools: options.parallelTools ?? false,
      maxOutputTokens: budget.maxOutputTokens ?? AGENT_DEFAULTS.maxOutputTokens,
      maxTokens: budget.maxTokens ?? AGENT_DEFAULTS.maxTokens,
      maxIterations: budget.maxIterations ?? AGENT_DEFAULTS.maxIterations,
      thinking: options.thinking ?? { mode: "off" },
      ...(options.approvalTimeoutMs === undefined ? {} : { approvalTimeoutMs: options.approvalTimeoutMs }),
      retry: {
        attempts: retry.attempts ?? AGENT_DEFAULTS.retryAttempts,
        baseDelayMs: retry.baseDelayMs ?? AGENT_DEFAULTS.retryBaseDelayMs,
        timeoutMs: retry.timeoutMs ?? AGENT_DEFAULTS.callTimeoutMs,
      },
    },
    suspend: { get requested() { return signal?.aborted === true; } },
    ...(options.events === undefined ? {} : { events: options.events }),
    ...(options.confirm === undefined ? {} : { confirm: options.confirm }),
    ...(options.askUser === undefined ? {} : { askUser: options.askUser }),
    ...(options.askRerun === undefined ? {} : { askRerun: options.askRerun }),
  };
  let outcome;
  if (options.resume !== undefined) {
    if (options.store === undefined) throw new ConfigError("resume needs the store the session is in: pass store");
    if (options.prompt !== undefined) throw new ConfigError("a resumed session continues its own conversation: pass no prompt");
    outcome = await resumeRun({ ...run, store: options.store }, { runId: options.resume, force: options.force === true });
  } else {
    if (options.prompt === undefined || options.prompt.trim() === "") throw new ConfigError("prompt is empty: say what the agent should do");
    outcome = await startRun({ ...run, store: options.store }, { prompt: options.prompt, runId: options.runId, recordVersion: options.recordVersion });
  }
  return outcome;
}
