// Compaction (docs/compaction.md, issue 24): when a conversation outgrows the model's context
// window, the model summarizes the part up to a cut and one record journals the summary.
// Nothing journaled is rewritten: the fold sends the summary, then the messages after the
// cut. The summarizing call is made before anything is journaled, so a crash during it
// leaves no record and the next run compacts again.
import { callWithRetries, type RetryPolicy } from "../llm/call-with-retries.js";
import { ModelCallError, SUMMARY_REQUEST, type ModelProvider, type ModelTurn, type ModelUsage, type ToolSpec } from "../llm/model-provider.js";
import type { CompactionState, RunState } from "../runstate/views/fold.js";
import { resultText, summaryText, trimmedResultText } from "../runstate/views/model-view.js";
import { isOtherBlock, PROTOCOLS, type CompactionPayload, type CompactionTrigger, type Message, type TrimmedResult } from "../runstate/records/records.js";
import { CompactionError, ConfigError } from "./agent-errors.js";
import type { AgentEvents } from "./events.js";
import type { RunRecorder } from "./run-recorder.js";

/** When and how a run compacts (agent.yaml `compaction:`, runAgent's `compaction`). */
export interface CompactionSettings {
  /** Compact before a model call past `threshold` of `window`, and when the API refuses a request as too long; false: never on its own. */
  auto: boolean;
  /** The share of the window at which a conversation is compacted before the next call. */
  threshold: number;
  /** The model's context window, in tokens. */
  window: number;
  /** Messages at the end of the conversation that a compaction always keeps as they are (at least one is kept). */
  keepRecent: number;
}

/** The defaults of `threshold` and `keep_recent`. */
export const COMPACTION_DEFAULTS = { threshold: 0.8, keepRecent: 4 } as const;

/** The context windows, in tokens, of the models docs/compaction.md names; any other model needs `window`. */
export const KNOWN_CONTEXT_WINDOWS: Readonly<Record<string, number>> = {
  "claude-sonnet-4-5": 200_000,
  "gpt-4.1": 1_047_576,
  "llama3.2": 131_072,
};

/** Compaction as a program or agent.yaml gives it: each field optional. */
export interface CompactionOptions {
  /** Default true. */
  auto?: boolean;
  /** Above 0, at most 1 (default 0.8). */
  threshold?: number;
  /** Tokens; default the model's, for the models docs/compaction.md names. */
  window?: number;
  /** At least 1 (default 4). */
  keepRecent?: number;
}

/**
 * The settings a run compacts by. Without `given`, compaction is on for a model whose
 * window is known and off for any other; given, a model whose window is not known needs
 * `window` unless `auto` is false. Throws a ConfigError naming the field (prefixed by `where`).
 */
export function compactionSettingsFor(model: string, given: CompactionOptions | undefined, where: string): CompactionSettings | undefined {
  const threshold = given?.threshold ?? COMPACTION_DEFAULTS.threshold;
  const keepRecent = given?.keepRecent ?? COMPACTION_DEFAULTS.keepRecent;
  if (!(threshold > 0 && threshold <= 1)) throw new ConfigError(`${where}.threshold: expected a share of the window above 0 and at most 1, such as 0.8`);
  if (!Number.isInteger(keepRecent) || keepRecent < 1) throw new ConfigError(`${where}.keep_recent: expected a whole number of messages, at least 1`);
  if (given?.window !== undefined && (!Number.isInteger(given.window) || given.window < 1))
    throw new ConfigError(`${where}.window: expected the model's context window as a whole number of tokens`);
  const window = given?.window ?? KNOWN_CONTEXT_WINDOWS[model];
  if (window === undefined) {
    // Off, it needs no window: only a compaction by hand is made, and that needs none.
    if (given === undefined || given.auto === false) return undefined;
    throw new ConfigError(
      `${where}.window: the context window of model ${model} is not known to fisk-ai: give it in tokens (window: 128000), or turn compaction off (auto: false)`,
    );
  }
  return { auto: given?.auto ?? true, threshold, window, keepRecent };
}

/** What a summarizing call is made with: the run's own model, system prompt and tools, so its prompt cache serves it. */
export interface Summarizer {
  provider: ModelProvider;
  model: string;
  system: string;
  tools: readonly ToolSpec[];
  /** The run's output limit per call; a summary gets at most an eighth of the window of it. */
  maxOutputTokens: number;
  retry: RetryPolicy;
  signal: AbortSignal;
}

/** Characters of a trimmed tool result that are kept; a result is trimmed only when it is at least twice as long. */
const TRIM_KEPT_CHARS = 1000;
/** Rounds of summarizing in one compaction, each from the last cut on, when the part to summarize was too long for one call. */
const MAX_ROUNDS = 8;

/** About four characters a token, as the script provider and the fake servers count. */
function textTokens(chars: number): number {
  return Math.ceil(chars / 4);
}

function messagesTokens(messages: readonly Message[]): number {
  return textTokens(JSON.stringify(messages).length);
}

/** The estimated tokens of a request: its system prompt, tools and messages. */
export function requestTokens(system: string, tools: readonly ToolSpec[], messages: readonly Message[]): number {
  return textTokens(system.length + JSON.stringify(tools).length + JSON.stringify(messages).length);
}

/**
 * The size of the conversation before a model call: the last call's reported input tokens
 * plus an estimate of what was added since. Without a report of the conversation as it
 * stands (a resume, or a compaction since) the whole is estimated.
 */
export class ContextGauge {
  #reported: { messages: readonly Message[]; length: number; tokens: number } | undefined;

  /** Takes in what the provider reported for a call sent `messages` (the state's own array, appended to in place). */
  observe(messages: readonly Message[], usage: ModelUsage): void {
    this.#reported = { messages, length: messages.length, tokens: inputTokens(usage) };
  }

  estimate(state: RunState, system: string, tools: readonly ToolSpec[]): number {
    const reported = this.#reported;
    // A compaction gives the state a new array: the report no longer describes it.
    if (reported === undefined || reported.messages !== state.messages || state.messages.length < reported.length) {
      return requestTokens(system, tools, state.messages);
    }
    return reported.tokens + messagesTokens(state.messages.slice(reported.length));
  }
}

/** What a compaction is asked to do. */
export interface CompactionRequest {
  trigger: CompactionTrigger;
  /** The model's window; a compaction by hand may not know it. */
  window: number | undefined;
  threshold: number;
  keepRecent: number;
  /** The conversation's size as measured before the call; estimated when absent. */
  tokensBefore?: number;
}

/** Where the model's view of the conversation starts in `history`, and how many messages of the view stand before it (the summary's own). */
interface ViewStart {
  /** The seq the compactions in effect end at (0 when none is). */
  cut: number;
  /** The index in `history` of the first message the view holds as it is. */
  start: number;
  /** `messages[offset + i - start]` is `history[i]` (trimmed) for every i from `start`. */
  offset: number;
  inEffect: CompactionState[];
}

function viewStart(state: RunState): ViewStart {
  const inEffect = state.compactions.filter((entry) => entry.undoneAt === undefined);
  const cut = inEffect.at(-1)?.compaction.through_seq ?? 0;
  const found = state.historySeqs.findIndex((seq) => seq > cut);
  const start = found === -1 ? state.history.length : found;
  return { cut, start, offset: state.messages.length - (state.history.length - start), inEffect };
}

/** Why no compaction may be journaled now, or undefined when one may. */
function notAtRest(state: RunState): string | undefined {
  if (state.pending !== undefined)
    return `session ${state.runId} has a batch of tool calls waiting for results (seq ${state.pending.seq}): resume it to finish the batch, then compact`;
  if (state.paused) return `session ${state.runId} ends on a paused turn: resume it to let the model continue, then compact`;
  return undefined;
}

/**
 * The index in `history` of the latest cut the fold allows (the messages before it are
 * summarized) that summarizes something new, keeps at least `keepRecent` messages (and
 * never none) and never separates tool calls from their results, and whose summarizing
 * request fits `limit` tokens; the earliest allowed cut when none fits. Undefined when no
 * cut is allowed.
 */
export function chooseCut(state: RunState, keepRecent: number, base: number, limit: number): number | undefined {
  const { start, offset } = viewStart(state);
  const last = state.history.length - Math.max(keepRecent, 1);
  let prefix = base + state.messages.slice(0, offset).reduce((sum, message) => sum + messagesTokens([message]), 0);
  let chosen: number | undefined;
  for (let cut = start + 1; cut <= last; cut++) {
    prefix += messagesTokens([state.messages[offset + cut - 1 - start] as Message]);
    if (opensWithResults(state.history[cut] as Message)) continue;
    if (prefix > limit && chosen !== undefined) break;
    chosen = cut;
  }
  return chosen;
}

function opensWithResults(message: Message): boolean {
  return message.role === "user" && message.content.some((block) => !isOtherBlock(block) && block.type === "tool_result");
}

/** The conversation up to the cut, then the request for a summary, as one user message where the part ends with one. */
export function summarizingMessages(prefix: readonly Message[]): Message[] {
  const ask = { type: "text" as const, text: SUMMARY_REQUEST };
  const last = prefix.at(-1);
  if (last?.role === "user") return [...prefix.slice(0, -1), { role: "user", content: [...last.content, ask] }];
  return [...prefix, { role: "user", content: [ask] }];
}

/**
 * Compacts the recorder's conversation: summarizes up to the latest allowed cut (in more
 * than one round when the part to summarize is too long for one call), then, when the kept
 * messages alone are still over the threshold, trims their oldest large tool results. Each
 * step is one journaled record. Returns the records' payloads; throws a CompactionError
 * when nothing could be done, or when the conversation is still over the window.
 */
export async function compactConversation(
  recorder: RunRecorder,
  summarizer: Summarizer,
  request: CompactionRequest,
  events: AgentEvents = {},
): Promise<CompactionPayload[]> {
  const refusal = notAtRest(recorder.state());
  if (refusal !== undefined) throw new CompactionError("at-rest", refusal);
  const { window } = request;
  const target = window === undefined ? Number.POSITIVE_INFINITY : request.threshold * window;
  const made: CompactionPayload[] = [];
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const before = round === 0 ? (request.tokensBefore ?? measure(recorder.state(), summarizer)) : measure(recorder.state(), summarizer);
    // The first round is what was asked for; later ones only while it is still too long.
    if (round > 0 && before <= target) break;
    const payload = await summarizeOnce(recorder, summarizer, request, before, events);
    if (payload === undefined) break;
    made.push(payload);
  }
  const state = recorder.state();
  const tokens = measure(state, summarizer);
  if (tokens > target) {
    const trims = chooseTrims(state, tokens - target);
    if (trims.trims.length > 0) made.push(await journalTrims(recorder, summarizer, request.trigger, tokens, trims, events));
  }
  if (made.length === 0) {
    if (window !== undefined && tokens > window) throw tooLarge(state, tokens, window);
    throw new CompactionError(
      "nothing-to-cut",
      `nothing to compact in session ${state.runId}: its ${state.messages.length} messages are what compaction keeps (keep_recent ${request.keepRecent}), and no tool result among them is long enough to trim`,
    );
  }
  const after = measure(recorder.state(), summarizer);
  if (window !== undefined && after > window) throw tooLarge(recorder.state(), after, window);
  return made;
}

function measure(state: RunState, summarizer: Summarizer): number {
  return requestTokens(summarizer.system, summarizer.tools, state.messages);
}

/** One summarizing call and its record; undefined when no cut is allowed. */
async function summarizeOnce(
  recorder: RunRecorder,
  summarizer: Summarizer,
  request: CompactionRequest,
  before: number,
  events: AgentEvents,
): Promise<CompactionPayload | undefined> {
  const state = recorder.state();
  const { window, trigger } = request;
  const summaryLimit = summaryTokenLimit(summarizer, window);
  const cut = chooseCut(state, request.keepRecent, summarizingBase(summarizer), summarizingLimit(window, summaryLimit));
  if (cut === undefined) return undefined;
  const { cut: cutSeq, start, offset } = viewStart(state);
  const prefix = state.messages.slice(0, offset + cut - start);
  const kept = state.messages.slice(offset + cut - start);
  events.compactionStarted?.({ trigger, tokensBefore: before });
  const startedAt = new Date().toISOString();
  const turn = await summarizingCall(summarizer, prefix, summaryLimit);
  const inTokens = inputTokens(turn.usage);
  events.compactionSummarized?.({ trigger, inTokens, outTokens: turn.usage.out_tokens });
  const summary = textOf(turn.message);
  const after = requestTokens(summarizer.system, summarizer.tools, kept) + textTokens(summaryText(summary).length + 40);
  if (summary === "" || after >= before) throw noShrink(state, turn, summary, before, after);
  const compaction: CompactionPayload = {
    from_seq: cutSeq + 1,
    through_seq: state.historySeqs[cut - 1] as number,
    summary,
    model: summarizer.model,
    trigger,
    tokens_before: before,
    tokens_after: after,
    in_tokens: inTokens,
    out_tokens: turn.usage.out_tokens,
    started_at: startedAt,
    ended_at: new Date().toISOString(),
  };
  await recorder.append({ protocol: PROTOCOLS.compaction, compaction });
  events.compaction?.({ seq: recorder.state().lastSeq, compaction });
  return compaction;
}

/** The output limit of a summary: the run's own, and at most an eighth of the window (never under 256). */
function summaryTokenLimit(summarizer: Summarizer, window: number | undefined): number {
  return Math.min(summarizer.maxOutputTokens, window === undefined ? summarizer.maxOutputTokens : Math.max(256, Math.floor(window / 8)));
}

/** The tokens of a summarizing request before its messages: the system prompt, the tools and the request for a summary. */
function summarizingBase(summarizer: Summarizer): number {
  return textTokens(summarizer.system.length + JSON.stringify(summarizer.tools).length + SUMMARY_REQUEST.length);
}

/** The most a summarizing request may hold so that its summary still fits the window. */
function summarizingLimit(window: number | undefined, summaryLimit: number): number {
  // A tenth to spare: the estimate is not the provider's tokenizer.
  return window === undefined ? Number.POSITIVE_INFINITY : (window - summaryLimit) * 0.9;
}

/** Asks the run's model for a summary of `prefix`, with retries, and no thinking. */
async function summarizingCall(summarizer: Summarizer, prefix: readonly Message[], summaryLimit: number): Promise<ModelTurn> {
  const turn = await callWithRetries(
    summarizer.provider,
    {
      model: summarizer.model,
      system: summarizer.system,
      messages: summarizingMessages(prefix),
      tools: summarizer.tools,
      maxOutputTokens: summaryLimit,
      thinking: { mode: "off" },
    },
    summarizer.retry,
    { signal: summarizer.signal },
  );
  summarizer.signal.throwIfAborted();
  return turn;
}

/** The input tokens a call was billed for, cached ones included. */
function inputTokens(usage: ModelUsage): number {
  return usage.in_tokens + (usage.cache_read_tokens ?? 0) + (usage.cache_create_tokens ?? 0);
}

/** The text of a message's text blocks, trimmed. */
function textOf(message: Message): string {
  return message.content
    .map((block) => (!isOtherBlock(block) && block.type === "text" ? block.text : ""))
    .join("")
    .trim();
}

/** The error when a summary is empty or leaves the conversation no shorter: nothing is journaled. */
function noShrink(state: RunState, turn: ModelTurn, summary: string, before: number, after: number): CompactionError {
  return new CompactionError(
    "no-shrink",
    summary === ""
      ? `the model wrote no summary of session ${state.runId} (it stopped with ${turn.stop_reason}): nothing was journaled`
      : `the summary of session ${state.runId} leaves ${after} tokens where there were ${before}: it is no shorter, so it was not journaled`,
  );
}

/**
 * The oldest large tool results of the messages the model is sent, cut to their first
 * TRIM_KEPT_CHARS characters until about `excess` tokens are saved, and the tokens saved.
 * Results a compaction in effect already trimmed are left as they are.
 */
export function chooseTrims(state: RunState, excess: number): { trims: TrimmedResult[]; saved: number } {
  const { start, inEffect } = viewStart(state);
  const trimmed = new Set(inEffect.flatMap((entry) => (entry.compaction.trimmed ?? []).map((trim) => trim.tool_use_id)));
  const trims: TrimmedResult[] = [];
  let saved = 0;
  for (const message of state.history.slice(start)) {
    if (message.role !== "user") continue;
    for (const block of message.content) {
      if (saved >= excess) return { trims, saved };
      if (isOtherBlock(block) || block.type !== "tool_result" || trimmed.has(block.tool_use_id)) continue;
      const text = resultText(block.content);
      if (text.length < 2 * TRIM_KEPT_CHARS) continue;
      trims.push({ tool_use_id: block.tool_use_id, kept_chars: TRIM_KEPT_CHARS, cut_chars: text.length - TRIM_KEPT_CHARS });
      saved += textTokens(JSON.stringify(block.content).length - JSON.stringify(trimmedResultText(text, TRIM_KEPT_CHARS)).length);
    }
  }
  return { trims, saved };
}

async function journalTrims(
  recorder: RunRecorder,
  summarizer: Summarizer,
  trigger: CompactionTrigger,
  before: number,
  { trims, saved }: { trims: TrimmedResult[]; saved: number },
  events: AgentEvents,
): Promise<CompactionPayload> {
  const { cut } = viewStart(recorder.state());
  // Trimming calls no model: it starts and ends at once.
  const at = new Date().toISOString();
  const compaction: CompactionPayload = {
    from_seq: cut + 1,
    through_seq: cut,
    summary: "",
    model: summarizer.model,
    trigger,
    tokens_before: before,
    tokens_after: before - saved,
    in_tokens: 0,
    out_tokens: 0,
    trimmed: trims,
    started_at: at,
    ended_at: at,
  };
  await recorder.append({ protocol: PROTOCOLS.compaction, compaction });
  events.compaction?.({ seq: recorder.state().lastSeq, compaction });
  return compaction;
}

/** The error when even the kept messages are over the window: it names the largest of them. */
function tooLarge(state: RunState, tokens: number, window: number): CompactionError {
  const { start, offset } = viewStart(state);
  let largest = { seq: 0, tokens: -1 };
  for (let index = start; index < state.history.length; index++) {
    const size = messagesTokens([state.messages[offset + index - start] as Message]);
    if (size > largest.tokens) largest = { seq: state.historySeqs[index] as number, tokens: size };
  }
  return new CompactionError(
    "too-large",
    `session ${state.runId} cannot be compacted further: what it must keep is still about ${tokens} tokens, over the model's window of ${window}; ` +
      `the largest part is the message of record seq ${largest.seq} (about ${largest.tokens} tokens), which no cut or trim can shorten`,
  );
}

/**
 * A run's compaction: the gauge of its conversation and the three ways in (before a model
 * call, after the API refused one as too long, by hand). The loop calls these and stays
 * unaware of how a compaction is made.
 */
export class RunCompaction {
  readonly #gauge = new ContextGauge();
  #overflowed = false;

  constructor(
    private readonly settings: CompactionSettings | undefined,
    private readonly recorder: RunRecorder,
    private readonly summarizer: Summarizer,
    private readonly events: AgentEvents,
  ) {}

  /**
   * Before a model call: compacts when the conversation has passed the threshold. Returns
   * why the run must stop (the conversation cannot be made to fit), or undefined to go on.
   */
  async beforeCall(): Promise<string | undefined> {
    const { settings } = this;
    if (settings?.auto !== true || notAtRest(this.recorder.state()) !== undefined) return undefined;
    const tokens = this.#gauge.estimate(this.recorder.state(), this.summarizer.system, this.summarizer.tools);
    if (tokens <= settings.threshold * settings.window) return undefined;
    return this.#compact("auto", tokens, tokens > settings.window);
  }

  /**
   * After the API refused a request as too long: compacts, once per model call. True when
   * the call may be sent again; otherwise `stop` says why the run must end.
   */
  async afterTooLong(): Promise<{ resend: true } | { resend: false; stop?: string }> {
    if (this.settings?.auto !== true || this.#overflowed) return { resend: false };
    this.#overflowed = true;
    const stop = await this.#compact("overflow", undefined, true);
    return stop === undefined ? { resend: true } : { resend: false, stop };
  }

  /** A model call sent `messages` was answered with `usage`: the gauge takes it in, and the next refusal as too long may compact again. */
  answered(messages: readonly Message[], usage: ModelUsage): void {
    this.#gauge.observe(messages, usage);
    this.#overflowed = false;
  }

  /** `/compact` in a chat: a refusal is reported, and the chat goes on. */
  async byHand(): Promise<void> {
    await this.#compact("manual", undefined, false);
  }

  /** Compacts; a refusal ends the run only when `mustFit` (the conversation is known to be too long). */
  async #compact(trigger: CompactionTrigger, tokensBefore: number | undefined, mustFit: boolean): Promise<string | undefined> {
    const { settings } = this;
    try {
      await compactConversation(
        this.recorder,
        this.summarizer,
        {
          trigger,
          window: settings?.window,
          threshold: settings?.threshold ?? COMPACTION_DEFAULTS.threshold,
          keepRecent: settings?.keepRecent ?? COMPACTION_DEFAULTS.keepRecent,
          ...(tokensBefore === undefined ? {} : { tokensBefore }),
        },
        this.events,
      );
      return undefined;
    } catch (error) {
      this.summarizer.signal.throwIfAborted();
      // A failed summarizing call stops the run: its own call, as long or longer, would fare no better.
      const refused = error instanceof ModelCallError ? new CompactionError("call-failed", `the summarizing call failed: ${error.message}`) : error;
      if (!(refused instanceof CompactionError)) throw error;
      this.events.compactionRefused?.(refused);
      const fatal = mustFit || refused.refusal === "too-large" || refused.refusal === "call-failed";
      return fatal ? `compaction failed: ${refused.message}` : undefined;
    }
  }
}
