// The one shape of an agent: what a program gives (AgentOptions, most of it optional) and
// what a run works with (AgentSpec, every default applied). agent.yaml's loader and the
// library's runAgent both make their AgentSpec with agentSpec(), so a run started either way
// behaves, and fingerprints, the same.
import type { ModelProvider, ThinkingConfig } from "../llm/model-provider.js";
import type { NoteStore } from "../memory/note-store.js";
import { RECORD_VERSION } from "../runstate/records/records.js";
import type { Tool } from "../tools/tool.js";
import { ToolSet } from "../tools/tool-set.js";
import { ConfigError } from "./agent-errors.js";
import { compactionSettingsFor, type CompactionOptions, type CompactionSettings } from "./compaction.js";
import { AGENT_DEFAULTS } from "./defaults.js";

/** What an agent is: the model and its provider; everything else has a default. */
export interface AgentOptions {
  /** The model API: an AnthropicProvider, OpenAIProvider or ScriptProvider you construct, or any ModelProvider. */
  provider: ModelProvider;
  /** The model's id as the provider knows it, e.g. `claude-sonnet-4-5`. */
  model: string;
  /** Defaults to "You are a helpful assistant." */
  system?: string | undefined;
  /** The tools the model may call; default none. Two of one name are a ConfigError. */
  tools?: readonly Tool[] | undefined;
  /** Run the tools of one model turn concurrently (default: one after another). */
  parallelTools?: boolean | undefined;
  /** Limits of the run (counted across resumes) and of each call. Reaching a run limit ends the run with reason `budget` or `max_iterations`. */
  budget?: Partial<AgentBudget> | undefined;
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
  retry?: Partial<AgentRetry> | undefined;
  /**
   * Notes kept across runs (a FileNoteStore): their index joins the system prompt at every
   * start and resume, never the fingerprint. Give the model `memoryTools(memory)` among
   * `tools` to let it write them.
   */
  memory?: NoteStore | undefined;
  /** A parked call still undecided this long (in milliseconds) is denied, "timed out", when the session is next resumed. */
  approvalTimeoutMs?: number | undefined;
  /**
   * The record version a new session is journaled in: 2 (the default) or 3, the Go
   * implementation's current format, so that it can resume the session too.
   */
  recordVersion?: 2 | 3 | undefined;
  /** Recorded in a new session's meta: the absolute path of the agent.yaml it runs (loadAgent sets it), so a resume can load it again. */
  configPath?: string | undefined;
}

/** A run's limits: over the whole run, counted across resumes, and of each model call. */
export interface AgentBudget {
  /** Tokens over the whole run, all tiers (default 200000). */
  maxTokens: number;
  /** Model calls over the whole run (default 50). */
  maxIterations: number;
  /** The output limit of one model call (default 8192). */
  maxOutputTokens: number;
}

/** How a failed model call is retried. */
export interface AgentRetry {
  /** Attempts per model call, the first included (default 4). */
  attempts: number;
  /** The wait before the first retry in milliseconds, doubled for each retry after it; each wait is jittered to between half and all of it (default 1000). */
  baseDelayMs: number;
  /** Per model call (default 120000). */
  timeoutMs: number;
}

/**
 * An agent with every default applied: what loadAgent gives, what a Worker, submitRun and
 * the server are given, and what a run works with. It is AgentOptions too, so
 * `runAgent({ ...spec, prompt })` runs it and `agentSpec(spec)` gives it back unchanged.
 */
export interface AgentSpec extends AgentOptions {
  readonly system: string;
  readonly tools: readonly Tool[];
  readonly parallelTools: boolean;
  readonly budget: Readonly<AgentBudget>;
  /** In effect (the model's window known or given), or off without a window. */
  readonly compaction: CompactionSettings | CompactionOff;
  readonly thinking: ThinkingConfig;
  readonly retry: Readonly<AgentRetry>;
  readonly recordVersion: 2 | 3;
}

/** Compaction off, for a model whose window is not known: only a compaction by hand, which needs none. */
export interface CompactionOff {
  /** Never on its own. */
  readonly auto: false;
}

/** The agent `options` describe, every default applied. Throws a ConfigError for options that do not fit together (two tools of one name, a compaction without a window). */
export function agentSpec(options: AgentOptions): AgentSpec {
  const tools = options.tools ?? [];
  toolSetOf(tools);
  const budget = options.budget ?? {};
  const retry = options.retry ?? {};
  return {
    provider: options.provider,
    model: options.model,
    system: options.system ?? AGENT_DEFAULTS.system,
    tools,
    parallelTools: options.parallelTools ?? false,
    budget: {
      maxTokens: budget.maxTokens ?? AGENT_DEFAULTS.maxTokens,
      maxIterations: budget.maxIterations ?? AGENT_DEFAULTS.maxIterations,
      maxOutputTokens: budget.maxOutputTokens ?? AGENT_DEFAULTS.maxOutputTokens,
    },
    compaction: compactionSettingsFor(options.model, options.compaction, "compaction") ?? { auto: false },
    thinking: options.thinking ?? { mode: "off" },
    retry: {
      attempts: retry.attempts ?? AGENT_DEFAULTS.retryAttempts,
      baseDelayMs: retry.baseDelayMs ?? AGENT_DEFAULTS.retryBaseDelayMs,
      timeoutMs: retry.timeoutMs ?? AGENT_DEFAULTS.callTimeoutMs,
    },
    recordVersion: options.recordVersion ?? RECORD_VERSION,
    memory: options.memory,
    approvalTimeoutMs: options.approvalTimeoutMs,
    configPath: options.configPath,
  };
}

/** The spec's tools as the loop calls them; two of one name are a ConfigError. */
export function toolSetOf(tools: readonly Tool[]): ToolSet {
  try {
    return new ToolSet(tools);
  } catch (error) {
    throw new ConfigError(`tools: ${(error as Error).message}`);
  }
}

/** The spec's compaction as the loop keeps to it: undefined when off and the model's window is not known. */
export function compactionInEffect(spec: AgentSpec): CompactionSettings | undefined {
  return "window" in spec.compaction ? spec.compaction : undefined;
}
