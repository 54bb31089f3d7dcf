// The library's entry point: one call runs an agent, starting a session or resuming one.
// It is the loop with defaults filled in, so a program needs to know no more than the
// model, the prompt and its tools, and the outcome says how the run ended.
import type { ModelProvider, ThinkingConfig } from "../llm/model-provider.js";
import type { Counters } from "../runstate/fold.js";
import type { TerminalReason } from "../runstate/records.js";
import type { Store } from "../runstate/store.js";
import type { Tool } from "../tools/tool.js";
import { ToolSet, type ConfirmToolCall } from "../tools/tool-set.js";
import { ConfigError } from "./agent-errors.js";
import { resumeRun, startRun, type RunOptions } from "./agent-loop.js";
import { AGENT_DEFAULTS } from "./defaults.js";
import type { AgentEvents } from "./events.js";

export interface RunAgentOptions {
  provider: ModelProvider;
  model: string;
  /** Defaults to "You are a helpful assistant." */
  system?: string;
  /** What the agent should do: required for a new session, not given on resume. */
  prompt?: string;
  tools?: readonly Tool[];
  /** Run the tools of one model turn concurrently (default: one after another). */
  parallelTools?: boolean;
  budget?: {
    /** Tokens over the whole run, all tiers (default 200000). */
    maxTokens?: number;
    /** Model calls over the whole run (default 50). */
    maxIterations?: number;
    /** The output limit of one model call (default 8192). */
    maxOutputTokens?: number;
  };
  thinking?: ThinkingConfig;
  retry?: {
    /** Attempts per model call, the first included (default 4). */
    attempts?: number;
    baseDelayMs?: number;
    /** Per model call (default 120000). */
    timeoutMs?: number;
  };
  /** Journal the session here, so it can be suspended and resumed; without one it lives in memory only. */
  store?: Store;
  /** The id of a new session (default: a new KSUID). */
  sessionId?: string;
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
  events?: AgentEvents;
  /** Asked before each call of a tool defined with `confirm: true`; without it such calls are denied. */
  confirm?: ConfirmToolCall;
  /** Asked whether a call of an `onCrash: "ask"` tool that a crash cut short runs again; without it, no. */
  askRerun?: ConfirmToolCall;
}

export interface AgentOutcome {
  sessionId: string;
  /** `completed`, or why the run stopped: `suspended`, `budget`, `max_iterations`, `error`. */
  reason: TerminalReason;
  /** The final answer, when `completed`. */
  answer?: string;
  /** Why the run stopped, for the other reasons. */
  message?: string;
  counters: Counters;
  /** Whether the session is in a store (and can be resumed). */
  checkpointed: boolean;
}

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
      retry: {
        attempts: retry.attempts ?? AGENT_DEFAULTS.retryAttempts,
        baseDelayMs: retry.baseDelayMs ?? AGENT_DEFAULTS.retryBaseDelayMs,
        timeoutMs: retry.timeoutMs ?? AGENT_DEFAULTS.callTimeoutMs,
      },
    },
    suspend: { get requested() { return signal?.aborted === true; } },
    ...(options.events === undefined ? {} : { events: options.events }),
    ...(options.confirm === undefined ? {} : { confirm: options.confirm }),
    ...(options.askRerun === undefined ? {} : { askRerun: options.askRerun }),
  };
  let outcome;
  if (options.resume !== undefined) {
    if (options.store === undefined) throw new ConfigError("resume needs the store the session is in: pass store");
    if (options.prompt !== undefined) throw new ConfigError("a resumed session continues its own conversation: pass no prompt");
    outcome = await resumeRun({ ...run, store: options.store }, { runId: options.resume, force: options.force === true });
  } else {
    if (options.prompt === undefined || options.prompt.trim() === "") throw new ConfigError("prompt is empty: say what the agent should do");
    outcome = await startRun({ ...run, store: options.store }, { prompt: options.prompt, runId: options.sessionId, recordVersion: options.recordVersion });
  }
  const { runId, ...rest } = outcome;
  return { sessionId: runId, ...rest };
}
