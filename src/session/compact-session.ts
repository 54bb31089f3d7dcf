// Compacting a stored session by hand, and undoing its latest compaction: the library's
// `compactSession` and `undoCompaction`, which `fisk-ai session compact` runs. Each takes
// the session as a resume does (the store's lock), so no run appends beside it.
import type { ModelProvider } from "../llm/model-provider.js";
import type { CompactionPayload } from "../runstate/records/records.js";
import { PROTOCOLS } from "../runstate/records/records.js";
import type { Store } from "../runstate/store/store.js";
import type { Tool } from "../tools/tool.js";
import { ToolSet } from "../tools/tool-set.js";
import { CompactionError, ConfigError } from "../agent/agent-errors.js";
import { compactConversation, COMPACTION_DEFAULTS, KNOWN_CONTEXT_WINDOWS } from "../agent/compaction.js";
import { AGENT_DEFAULTS } from "../agent/defaults.js";
import type { AgentEvents } from "../agent/events.js";
import { providerOf } from "../agent/fingerprint.js";
import { RunRecorder } from "../agent/run-recorder.js";

/** What compactSession needs: the session, and the model that writes the summary. */
export interface CompactSessionOptions {
  /** The store the session is in. */
  store: Store;
  /** The session's id. */
  session: string;
  /** The provider the session runs on: its conversation's blocks are that API's. */
  provider: ModelProvider;
  /** The model that writes the summary, recorded in the compaction. */
  model: string;
  /** The session's system prompt, sent with the summarizing request (default "You are a helpful assistant."). */
  system?: string | undefined;
  /** The session's tools, which its conversation's tool calls name. */
  tools?: readonly Tool[] | undefined;
  /** Messages at the end kept as they are (default 4). */
  keepRecent?: number | undefined;
  /** The model's context window in tokens (default: the model's, when known): the summarizing request is kept under it. */
  window?: number | undefined;
  /** The output limit of the summarizing call (default 8192, at most an eighth of the window). */
  maxOutputTokens?: number | undefined;
  /** Aborts the summarizing call; nothing is journaled then. */
  signal?: AbortSignal | undefined;
  /** compactionStarted, compactionSummarized and compaction are reported here. */
  events?: AgentEvents | undefined;
}

/**
 * Compacts a stored session by hand (trigger `manual`): the model summarizes the
 * conversation up to the latest cut that keeps `keepRecent` messages, and one compaction
 * record is journaled. Returns the records' payloads. Rejects with a CompactionError when
 * there is nothing to compact or the session is not at rest (a batch waits for results),
 * a ConfigError for another provider than the session's, a RunStateError when the store
 * refuses (the session is in use: ERR_LOCKED), a ModelCallError when the summarizing call fails.
 */
export async function compactSession(options: CompactSessionOptions): Promise<CompactionPayload[]> {
  const tools = new ToolSet(options.tools ?? []);
  const recorder = await RunRecorder.open(options.store, options.session);
  try {
    const provider = providerOf(recorder.state().meta.fingerprint);
    if (provider !== options.provider.name) {
      throw new ConfigError(`session ${options.session} runs on the ${provider} provider: its conversation cannot be summarized by ${options.provider.name}`);
    }
    const summarizer = {
      provider: options.provider,
      model: options.model,
      system: options.system ?? AGENT_DEFAULTS.system,
      tools: tools.specs(),
      maxOutputTokens: options.maxOutputTokens ?? AGENT_DEFAULTS.maxOutputTokens,
      retry: { attempts: AGENT_DEFAULTS.retryAttempts, baseDelayMs: AGENT_DEFAULTS.retryBaseDelayMs, timeoutMs: AGENT_DEFAULTS.callTimeoutMs },
      signal: options.signal ?? new AbortController().signal,
    };
    const request = {
      trigger: "manual" as const,
      window: options.window ?? KNOWN_CONTEXT_WINDOWS[options.model],
      threshold: COMPACTION_DEFAULTS.threshold,
      keepRecent: options.keepRecent ?? COMPACTION_DEFAULTS.keepRecent,
    };
    return await compactConversation(recorder, summarizer, request, options.events);
  } finally {
    await recorder.close();
  }
}

/** What undoCompaction did: the compaction it reverted and the seq of its compaction_undo record. */
export interface UndoneCompaction {
  /** The seq of the compaction record reverted. */
  compactionSeq: number;
  /** The seq of the compaction_undo record journaled. */
  seq: number;
}

/**
 * Journals a compaction_undo record reverting the latest compaction still in effect of a
 * stored session: its next model call is sent the messages that compaction replaced. Rejects
 * with a CompactionError (`nothing-to-undo`) when no compaction is in effect, a RunStateError
 * when the store refuses.
 */
export async function undoCompaction(options: { store: Store; session: string }): Promise<UndoneCompaction> {
  const recorder = await RunRecorder.open(options.store, options.session);
  try {
    const latest = recorder.state().compactions.findLast((entry) => entry.undoneAt === undefined);
    if (latest === undefined) throw new CompactionError("nothing-to-undo", `session ${options.session} has no compaction in effect to undo`);
    await recorder.append({ protocol: PROTOCOLS.compaction_undo, compaction_undo: { compaction_seq: latest.seq } });
    return { compactionSeq: latest.seq, seq: recorder.state().lastSeq };
  } finally {
    await recorder.close();
  }
}
