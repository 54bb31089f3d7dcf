// fold: records -> RunState (SPEC section 3), one record at a time (foldStep). No IO,
// no clock, no randomness, and it never mutates a record: fold() is pure, and a caller
// that keeps a state (the run's recorder) advances it by each record it appends.
// Everything a resume rebuilds comes from here.
import { RunStateError } from "./errors.js";
import {
  kindOfProtocol,
  NEWEST_READABLE_VERSION,
  type AssistantMessage,
  type AssistantPayload,
  type JournalRecord,
  type Message,
  type MetaPayload,
  type RecordKind,
  type TerminalPayload,
  type ToolResultBlock,
  type ToolResultPayload,
  type ToolUseBlock,
  type UserPayload,
} from "./records.js";

/** Cumulative counters, derived only from the records so they can never drift. */
export interface Counters {
  /** Assistant records: one per model call that was journaled. */
  modelCalls: number;
  /** Tool result records, remote ones included. */
  toolCalls: number;
  /** Tool results journaled as `remote`: calls that went to an MCP server. */
  remoteToolCalls: number;
  /** Input tokens, summed over the assistant records' `in_tokens` as the provider reported them. */
  inTokens: number;
  /** Output tokens, summed over `out_tokens`. */
  outTokens: number;
  /** Tokens read from the provider's prompt cache, summed over `cache_read_tokens` (0 where absent). */
  cacheReadTokens: number;
  /** Tokens written to the provider's prompt cache, summed over `cache_create_tokens` (0 where absent). */
  cacheCreateTokens: number;
}

/** An assistant turn whose tools are not all answered yet: the run was journaled mid-batch. */
export interface PendingBatch {
  /** The seq of the assistant record. */
  seq: number;
  /** The assistant turn, its message joined to the paused turn it continues, if any. */
  turn: AssistantPayload;
  /** The tool_use blocks of the turn, in the model's order. */
  toolUses: ToolUseBlock[];
  /** The results journaled so far, in journal order. */
  results: ToolResultBlock[];
  /** The ids of the tool_use blocks answered so far. */
  answered: ReadonlySet<string>;
}

/** A run as its journal folds: what a resume rebuilds, and what `Store.load` returns. */
export interface RunState {
  /** The run's id, from its meta record. */
  runId: string;
  /** The meta record's payload (seq 1): the prompt, the fingerprint, the record version. */
  meta: MetaPayload;
  /** The committed conversation prefix: always a boundary the model API accepts. */
  messages: Message[];
  /** Totals over every record of the run. */
  counters: Counters;
  /** The loop index to resume at. */
  nextIteration: number;
  /** `nextIteration` when the latest prompt (the first, or a follow-up) was journaled: the iteration cap counts from it. */
  promptIteration: number;
  /** The turn whose tools are not all answered, or undefined when none is (the run is at a boundary). */
  pending: PendingBatch | undefined;
  /**
   * The conversation ends on a turn the API paused (`pause_turn`, SPEC section 7): the
   * model is called again with it as it stands, and its continuation joins the same message.
   */
  paused: boolean;
  /** Set only when the journal ends on a terminal record. */
  terminal: TerminalPayload | undefined;
  /** The seq of the last record folded. */
  lastSeq: number;
}

/** Why a meta record is of a version this fisk-ai cannot read, or undefined when it can. */
export function newerVersionProblem(meta: { version?: unknown; run_id?: unknown }): string | undefined {
  // Not an integer: no fisk-ai wrote it, so it is an invalid record, not a newer one.
  if (!Number.isInteger(meta.version) || (meta.version as number) <= NEWEST_READABLE_VERSION) return undefined;
  return `session ${String(meta.run_id)} has record version ${meta.version}, newer than the version ${NEWEST_READABLE_VERSION} this fisk-ai reads: upgrade fisk-ai to use it`;
}

/** Refuses a journal written by a newer fisk-ai, naming both versions. */
export function assertReadableVersion(meta: Pick<MetaPayload, "version" | "run_id">): void {
  const problem = newerVersionProblem(meta);
  if (problem !== undefined) throw new RunStateError("ERR_VERSION", problem, { seq: 1 });
}

function corrupt(seq: number, what: string): RunStateError {
  return new RunStateError("ERR_CORRUPT", `record seq ${seq}: ${what}`, { seq });
}

/**
 * A state as fold builds it: a RunState plus what the next record is checked against.
 * Only foldStep may advance it.
 */
export interface FoldState extends RunState {
  /** The tool_use ids of the batch completed last, until the next turn or follow-up: tells a second result from a stray one. */
  readonly lastAnswered: ReadonlySet<string>;
}

/**
 * Folds a whole run's records, meta first, into a fresh state. Throws a RunStateError:
 * ERR_EMPTY for no records, ERR_NO_META when the first is not the meta record at seq 1,
 * ERR_VERSION for a meta record newer than this fisk-ai reads, ERR_CORRUPT (with its
 * `seq`) for a record that does not follow from those before it.
 */
export function fold(records: readonly JournalRecord[]): FoldState {
  if (records.length === 0) throw new RunStateError("ERR_EMPTY", "the journal holds no records");
  let state: FoldState | undefined;
  for (const record of records) state = foldStep(state, record);
  return state as FoldState;
}

/**
 * Advances a fold by one record: `undefined` and the meta record start one. The state
 * is advanced in place and returned, so a run of N records costs N steps and no copies;
 * it belongs to the caller that folds (fold() gives each caller its own). Never mutates
 * the record. A record that does not fold throws and leaves the state as it was.
 */
export function foldStep(state: FoldState | undefined, record: JournalRecord): FoldState {
  if (state === undefined) return foldMeta(record);
  const s = state as Folding;
  const seq = record.seq;
  if (seq !== s.lastSeq + 1) throw corrupt(seq, `follows seq ${s.lastSeq}; seqs must increase by one`);
  const kind = kindOfProtocol(record.protocol);
  if (kind === undefined) throw corrupt(seq, `unknown protocol ${JSON.stringify(record.protocol)}`);
  const payload = payloadOf(record, kind);
  (FOLD_BY_KIND[kind] as (s: Folding, payload: object, seq: number) => void)(s, payload, seq);
  s.lastSeq = seq;
  // A record after a terminal one reopens the run: a resume appends after `suspended`.
  s.terminal = kind === "terminal" ? (payload as TerminalPayload) : undefined;
  return s;
}

/** The state as a step advances it. */
type Folding = Mutable<FoldState> & { pending: (PendingBatch & { answered: Set<string> }) | undefined };

type PayloadOf<K extends RecordKind> = Extract<JournalRecord, Record<K, unknown>>[K];

/**
 * How a record of each kind after the first advances the state. Each checks its record
 * against the state and throws before it changes anything; foldStep does what every
 * kind shares (the seq, the terminal).
 */
const FOLD_BY_KIND: { [K in RecordKind]: (s: Folding, payload: PayloadOf<K>, seq: number) => void } = {
  meta: (_s, _meta, seq) => {
    throw corrupt(seq, "a second meta record");
  },
  assistant: foldAssistant,
  tool_result: foldToolResult,
  user: foldUser,
  // Its payload is the state's terminal, which foldStep sets.
  terminal: () => {},
};

function foldAssistant(s: Folding, turn: AssistantPayload, seq: number): void {
  const { messages, counters } = s;
  if (s.pending !== undefined) {
    throw corrupt(seq, `an assistant turn while the tools of the turn at seq ${s.pending.seq} are unanswered`);
  }
  const last = messages[messages.length - 1];
  if (last === undefined || (last.role !== "user" && !s.paused)) {
    throw corrupt(seq, "an assistant turn that does not follow a user message or a paused turn");
  }
  // The API takes consecutive assistant messages as one turn; one message keeps roles alternating.
  const message: AssistantMessage =
    last.role === "assistant" ? { role: "assistant", content: [...last.content, ...turn.message.content] } : turn.message;
  if (last.role === "assistant") messages.pop();
  s.paused = turn.stop_reason === "pause_turn";
  s.lastAnswered = new Set();
  counters.modelCalls++;
  counters.inTokens += turn.in_tokens;
  counters.outTokens += turn.out_tokens;
  counters.cacheReadTokens += turn.cache_read_tokens ?? 0;
  counters.cacheCreateTokens += turn.cache_create_tokens ?? 0;
  s.nextIteration = Math.max(s.nextIteration, turn.iteration + 1);
  const toolUses = turn.message.content.filter((block): block is ToolUseBlock => block.type === "tool_use");
  if (toolUses.length === 0) {
    messages.push(message);
  } else {
    s.pending = { seq, turn: message === turn.message ? turn : { ...turn, message }, toolUses, results: [], answered: new Set() };
  }
}

function foldToolResult(s: Folding, { tool_use_id: id, result, remote }: ToolResultPayload, seq: number): void {
  const { messages, counters, pending } = s;
  // Model calls are counted by assistant records only, so this says whether one was seen.
  if (counters.modelCalls === 0) throw corrupt(seq, `a tool result for ${id} before any assistant turn`);
  if (result.tool_use_id !== id) {
    throw corrupt(seq, `a tool result whose block answers ${result.tool_use_id} but whose record names ${id}`);
  }
  if (pending?.answered.has(id) || (pending === undefined && s.lastAnswered.has(id))) {
    throw corrupt(seq, `a second result for tool_use ${id}`);
  }
  if (pending === undefined || !pending.toolUses.some((use) => use.id === id)) {
    throw corrupt(seq, `a tool result for ${id}, which no tool_use of the current turn has`);
  }
  counters.toolCalls++;
  if (remote === true) counters.remoteToolCalls++;
  pending.results.push(result);
  pending.answered.add(id);
  if (pending.answered.size === pending.toolUses.length) {
    messages.push(pending.turn.message, { role: "user", content: pending.results });
    s.lastAnswered = pending.answered;
    s.pending = undefined;
  }
}

function foldUser(s: Folding, { message: followUp }: UserPayload, seq: number): void {
  const { messages } = s;
  if (s.pending !== undefined) {
    throw corrupt(seq, `a follow-up while the tools of the turn at seq ${s.pending.seq} are unanswered`);
  }
  const last = messages[messages.length - 1];
  // A follow-up after a turn that never got its reply (the model call failed)
  // joins that user message, so roles still alternate.
  if (last?.role === "user") {
    messages[messages.length - 1] = { role: "user", content: [...last.content, ...followUp.content] };
  } else {
    messages.push(followUp);
  }
  s.lastAnswered = new Set();
  s.paused = false;
  s.promptIteration = s.nextIteration;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function foldMeta(first: JournalRecord): FoldState {
  if (first.protocol !== "io.choria.fisk-ai.v1.session.meta" || first.seq !== 1) {
    throw new RunStateError("ERR_NO_META", `the first record (seq ${String(first.seq)}) is not the meta record at seq 1`, {
      seq: first.seq,
    });
  }
  const meta = payloadOf(first, "meta") as MetaPayload;
  assertReadableVersion(meta);
  return {
    runId: meta.run_id,
    meta,
    messages: meta.prompt === "" ? [] : [{ role: "user", content: [{ type: "text", text: meta.prompt }] }],
    counters: {
      modelCalls: 0,
      toolCalls: 0,
      remoteToolCalls: 0,
      inTokens: 0,
      outTokens: 0,
      cacheReadTokens: 0,
      cacheCreateTokens: 0,
    },
    nextIteration: 0,
    promptIteration: 0,
    pending: undefined,
    paused: false,
    terminal: undefined,
    lastSeq: 1,
    lastAnswered: new Set(),
  };
}

function payloadOf(record: JournalRecord, kind: string): object {
  const payload = (record as unknown as Record<string, unknown>)[kind];
  if (payload === null || typeof payload !== "object") throw corrupt(record.seq, `the ${kind} payload is missing`);
  return payload;
}
