// fold: records -> RunState (docs/backends.md, fold), one record at a time (foldStep). No IO,
// no clock, no randomness, and it never mutates a record: fold() is pure, and a caller
// that keeps a state (the run's recorder) advances it by each record it appends.
// Everything a resume rebuilds comes from here.
import { isDeepStrictEqual } from "node:util";
import { RunStateError } from "../errors.js";
import { ModelView, resultText } from "./model-view.js";
import {
  ANNOTATION_KINDS,
  kindOfProtocol,
  newerKindProblem,
  NEWEST_READABLE_VERSION,
  type ApprovalDecisionPayload,
  type ApprovalRequestPayload,
  type CompactionPayload,
  type CompactionUndoPayload,
  type ImportedPayload,
  type ResumedPayload,
  type AssistantMessage,
  type AssistantPayload,
  type JournalRecord,
  type Message,
  type MetaPayload,
  type OriginPayload,
  type MovedPayload,
  type RecordKind,
  type TerminalPayload,
  type TitlePayload,
  type ToolResultBlock,
  type ToolResultPayload,
  type ToolUseBlock,
  type UserMessage,
  type UserPayload,
  isOtherBlock,
} from "../records/records.js";

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
  /** Summarizing calls of compactions, counted apart from the agent's own model calls. */
  compactionCalls: number;
  /** Input tokens of the summarizing calls. */
  compactionInTokens: number;
  /** Output tokens of the summarizing calls. */
  compactionOutTokens: number;
}

/** A call of the pending batch that waits, or waited, for a person's decision. */
export interface ApprovalState {
  /** The seq of its approval_request record. */
  seq: number;
  /** The request as journaled. */
  request: ApprovalRequestPayload;
}

/** A decision on one call of the pending batch, with the seq of its record. */
export interface DecisionState {
  /** The seq of its approval_decision record. */
  seq: number;
  /** The decision as journaled. */
  decision: ApprovalDecisionPayload;
}

/** A compaction as the fold saw it: in effect, or undone by a later record. */
export interface CompactionState {
  /** The seq of its compaction record. */
  seq: number;
  /** The record's payload. */
  compaction: CompactionPayload;
  /** The seq of the compaction_undo record that reverted it, or undefined while it is in effect. */
  undoneAt: number | undefined;
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
  /** The calls that were parked for a person's decision, by tool_use id. */
  approvals: ReadonlyMap<string, ApprovalState>;
  /**
   * The decisions journaled, by tool_use id, in journal order. A call is decided again only
   * when its earlier decisions are approvals or answers, which count only when their
   * signature verifies (src/trust/counted-decisions.ts); a denial always counts, so nothing follows it.
   */
  decisions: ReadonlyMap<string, readonly DecisionState[]>;
}

/** A run as its journal folds: what a resume rebuilds, and what `Store.load` returns. */
export interface RunState {
  /** The run's id, from its meta record. */
  runId: string;
  /** The meta record's payload (seq 1): the prompt, the fingerprint, the record version. */
  meta: MetaPayload;
  /**
   * The committed conversation prefix as the model is sent it: always a boundary the
   * model API accepts. After a compaction it starts with the summary, then the messages
   * after its cut; `history` keeps them all.
   */
  messages: Message[];
  /** The whole committed conversation, every message ever journaled, compacted or not; the same array as `messages` until a compaction. */
  history: Message[];
  /** The seq of the record that completed each message of `history`, index for index: where a compaction's cut may fall. */
  historySeqs: readonly number[];
  /** Every compaction of the run in journal order, undone ones included. */
  compactions: CompactionState[];
  /** Totals over every record of the run. */
  counters: Counters;
  /** The loop index to resume at. */
  nextIteration: number;
  /** `nextIteration` when the latest prompt (the first, or a follow-up) was journaled: the iteration cap counts from it. */
  promptIteration: number;
  /** The turn whose tools are not all answered, or undefined when none is (the run is at a boundary). */
  pending: PendingBatch | undefined;
  /**
   * The conversation ends on a turn the API paused (`pause_turn`, docs/durability.md): the
   * model is called again with it as it stands, and its continuation joins the same message.
   */
  paused: boolean;
  /** Set only when the journal ends on a terminal record, or on titles and origins after one. */
  terminal: TerminalPayload | undefined;
  /** The latest title given to the session, or undefined when none was. */
  title: string | undefined;
  /** Where the records before it were copied from, when the session is a fork or a renamed import (the latest origin). */
  origin: OriginPayload | undefined;
  /** The latest import mark: the session came into this store from a file (docs/security.md). */
  imported: ImportedPayload | undefined;
  /** Set only when the journal ends on a moved record (or on titles after one): where the session went. */
  moved: MovedPayload | undefined;
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
  if (records.length === 0) throw new RunStateError("ERR_EMPTY", "line 1: the journal holds no records", { line: 1 });
  let state: FoldState | undefined;
  for (const record of records) state = foldStep(state, record);
  return state as FoldState;
}

/**
 * Advances a checking fold by one record: `undefined` and the meta record start one. It
 * applies every rule foldStep does (it is foldStep), but keeps of the conversation only
 * its outline: each message's role and seq, and each tool result's id and length, never
 * their text. Its `messages` and `history` are that outline; everything else is as fold
 * gives it. What readers that stream a whole journal (`session show`, the export) check
 * it with, in memory that does not grow with the size of what was said.
 */
export function outlineStep(state: FoldState | undefined, record: JournalRecord): FoldState {
  return state === undefined ? foldMeta(record, true) : foldStep(state, record);
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
  if (kind === undefined) {
    const newer = newerKindProblem(record.protocol);
    if (newer !== undefined) throw new RunStateError("ERR_VERSION", `record seq ${seq} is ${newer}`, { seq });
    throw corrupt(seq, `unknown protocol ${JSON.stringify(record.protocol)}`);
  }
  const payload = payloadOf(record, kind);
  (FOLD_BY_KIND[kind] as (s: Folding, payload: object, seq: number) => void)(s, payload, seq);
  s.lastSeq = seq;
  // A record after a terminal one reopens the run (a resume appends after `suspended`);
  // an annotation (a title, an origin, a compaction ...) leaves it as it stopped. Likewise a record that takes the run further
  // cancels a move (one cut short before the other store held it, see MovedPayload).
  if (!ANNOTATION_KINDS.includes(kind)) {
    s.terminal = kind === "terminal" ? (payload as TerminalPayload) : undefined;
    s.moved = undefined;
  }
  return s;
}

/** The state as a step advances it. */
type Folding = Mutable<FoldState> & {
  pending: (PendingBatch & { answered: Set<string>; approvals: Map<string, ApprovalState>; decisions: Map<string, DecisionState[]> }) | undefined;
  historySeqs: number[];
  /** The compactions in effect, oldest first: `compactions` without the undone ones, kept as they change so no step filters the whole list. */
  inEffect: CompactionState[];
  /** For a checking fold (outlineStep), each outlined result's length in characters; undefined for a fold that keeps the text. */
  resultChars: WeakMap<ToolResultBlock, number> | undefined;
};

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
  terminal: foldTerminal,
  compaction: foldCompaction,
  compaction_undo: foldCompactionUndo,
  approval_request: foldApprovalRequest,
  approval_decision: foldApprovalDecision,
  resumed: foldResumed,
  title: (s, { title }: TitlePayload) => {
    s.title = title;
  },
  origin: foldOrigin,
  moved: (s, moved: MovedPayload) => {
    s.moved = moved;
  },
  imported: (s, imported: ImportedPayload) => {
    s.imported = imported;
  },
};

function foldOrigin(s: Folding, origin: OriginPayload, seq: number): void {
  // Right after what was copied, so that "every record before it" is exactly the copy.
  if (origin.through_seq !== seq - 1) throw corrupt(seq, `an origin through seq ${origin.through_seq}, which must be the seq just before it (${seq - 1})`);
  if (origin.run_id === s.runId) throw corrupt(seq, `an origin naming the session itself (${origin.run_id})`);
  s.origin = origin;
}

// The conversation is kept twice only once a compaction is in effect: `history`, every
// message, and `messages`, what the model is sent. Until then both name one array. Each
// change is made to each array, to its own last message.

function pushMessage(s: Folding, full: Message, seq: number): void {
  const message = outlined(s, full);
  s.history.push(message);
  s.historySeqs.push(seq);
  if (s.messages !== s.history) s.messages.push(message);
}

/** Replaces the last message with what `join` makes of it, in both arrays. */
function joinLast(s: Folding, seq: number, join: (last: Message) => Message): void {
  for (const messages of s.messages === s.history ? [s.history] : [s.history, s.messages]) {
    messages[messages.length - 1] = outlined(s, join(messages[messages.length - 1] as Message));
  }
  s.historySeqs[s.historySeqs.length - 1] = seq;
}

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
  const message: AssistantMessage = last.role === "assistant" ? { role: "assistant", content: [...last.content, ...turn.message.content] } : turn.message;
  if (last.role === "assistant") {
    // Paused turns are never cut or compacted, so the last message is the same one in both arrays.
    s.history.pop();
    s.historySeqs.pop();
    if (s.messages !== s.history) messages.pop();
  }
  s.paused = turn.stop_reason === "pause_turn";
  s.lastAnswered = new Set();
  countTurn(counters, turn);
  s.nextIteration = Math.max(s.nextIteration, turn.iteration + 1);
  const toolUses = turn.message.content.filter((block): block is ToolUseBlock => block.type === "tool_use");
  if (toolUses.length === 0) {
    pushMessage(s, message, seq);
  } else {
    s.pending = {
      seq,
      turn: message === turn.message ? turn : { ...turn, message },
      toolUses,
      results: [],
      answered: new Set(),
      approvals: new Map(),
      decisions: new Map(),
    };
  }
}

function foldToolResult(s: Folding, { tool_use_id: id, result, remote }: ToolResultPayload, seq: number): void {
  const { counters, pending } = s;
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
  const decided = pending.decisions.get(id)?.at(-1)?.decision.decision;
  if (pending.approvals.has(id) && decided === undefined) {
    throw corrupt(seq, `a tool result for ${id}, which waits for a decision: an undecided call never runs`);
  }
  if (decided === "deny" && result.is_error !== true) throw corrupt(seq, `a tool result for ${id}, which was denied, that is not an error`);
  counters.toolCalls++;
  if (remote === true) counters.remoteToolCalls++;
  pending.results.push(result);
  pending.answered.add(id);
  if (pending.answered.size === pending.toolUses.length) {
    pushMessage(s, pending.turn.message, pending.seq);
    pushMessage(s, { role: "user", content: pending.results }, seq);
    s.lastAnswered = pending.answered;
    s.pending = undefined;
  }
}

function foldUser(s: Folding, { message: followUp }: UserPayload, seq: number): void {
  if (s.pending !== undefined) {
    throw corrupt(seq, `a follow-up while the tools of the turn at seq ${s.pending.seq} are unanswered`);
  }
  // A follow-up after a turn that never got its reply (the model call failed)
  // joins that user message, so roles still alternate.
  if (s.history.at(-1)?.role === "user") {
    joinLast(s, seq, (last) => ({ role: "user", content: [...(last as UserMessage).content, ...followUp.content] }));
  } else {
    pushMessage(s, followUp, seq);
  }
  s.lastAnswered = new Set();
  s.paused = false;
  s.promptIteration = s.nextIteration;
}

function foldTerminal(s: Folding, { reason }: TerminalPayload, seq: number): void {
  // The payload itself is the state's terminal, which foldStep sets.
  if (reason !== "awaiting_approval") return;
  const { pending } = s;
  // A call waits for its own decision, or (a call that ran a child session, docs/sub-agents.md)
  // stays unanswered while the child waits for one: either way the batch has an unanswered call.
  // An approval or answer journaled may not count (its signature does not verify here), so a call with one may wait again; a denial counts.
  const waits = (id: string) => !pending?.answered.has(id) && !(pending?.decisions.get(id) ?? []).some(({ decision }) => decision.decision === "deny");
  if (pending === undefined || !pending.toolUses.some((use) => waits(use.id))) {
    throw corrupt(seq, "a run awaiting approval with no call waiting for a decision");
  }
}

function foldApprovalRequest(s: Folding, request: ApprovalRequestPayload, seq: number): void {
  const { tool_use_id: id } = request;
  const { pending } = s;
  const use = undecidedCall(s, id, seq, "an approval request");
  if (pending?.approvals.has(id) === true) throw corrupt(seq, `a second approval request for tool_use ${id}`);
  if (pending?.decisions.has(id) === true) throw corrupt(seq, `an approval request for tool_use ${id}, which is already decided`);
  // The request binds the decision to the call as the model made it.
  if (use.name !== request.name || !isDeepStrictEqual(use.input, request.input)) {
    throw corrupt(seq, `an approval request for tool_use ${id} whose tool or input differs from the call's`);
  }
  pending?.approvals.set(id, { seq, request });
}

function foldApprovalDecision(s: Folding, decision: ApprovalDecisionPayload, seq: number): void {
  const { tool_use_id: id } = decision;
  const { pending } = s;
  undecidedCall(s, id, seq, "a decision");
  const earlier = pending?.decisions.get(id);
  const denied = earlier?.find((candidate) => candidate.decision.decision === "deny");
  if (denied !== undefined) throw corrupt(seq, `a decision on tool_use ${id}, denied at seq ${denied.seq}: a denial is final`);
  const kind = pending?.approvals.get(id)?.request.kind;
  const fits = decision.decision === "deny" || (kind === undefined ? true : (decision.decision === "answer") === (kind === "question"));
  if (!fits) throw corrupt(seq, `a decision "${decision.decision}" on tool_use ${id}, which waits for ${kind === "question" ? "an answer" : "an approval"}`);
  if (decision.decision === "answer" && decision.text === undefined) throw corrupt(seq, `an answer to tool_use ${id} with no text`);
  pending?.decisions.set(id, [...(earlier ?? []), { seq, decision }]);
}

function foldResumed(s: Folding, _resumed: ResumedPayload, seq: number): void {
  // foldStep clears the terminal after this step: here it is still the one before.
  if (s.terminal === undefined || s.pending === undefined) throw corrupt(seq, "a resumed record where no batch is at rest under a terminal record");
}

/** The call of the pending batch that `id` names and that has no result yet; `what` says which record asks. */
function undecidedCall(s: Folding, id: string, seq: number, what: string): ToolUseBlock {
  const use = s.pending?.toolUses.find((candidate) => candidate.id === id);
  if (s.pending === undefined || use === undefined) throw corrupt(seq, `${what} for ${id}, which no tool_use of the pending batch has`);
  if (s.pending.answered.has(id)) throw corrupt(seq, `${what} for tool_use ${id}, which already has its result`);
  return use;
}

function foldCompaction(s: Folding, compaction: CompactionPayload, seq: number): void {
  if (s.pending !== undefined) throw corrupt(seq, `a compaction inside the pending batch of the turn at seq ${s.pending.seq}`);
  if (s.paused) throw corrupt(seq, "a compaction after a paused turn, which must be continued first");
  const { inEffect } = s;
  const cut = inEffect.at(-1)?.compaction.through_seq ?? 0;
  const { from_seq: from, through_seq: through, summary } = compaction;
  if (from !== cut + 1) throw corrupt(seq, `a compaction from seq ${from}, where the one in effect ends at seq ${cut}: it must start at seq ${cut + 1}`);
  if (through < cut || through >= seq) throw corrupt(seq, `a compaction through seq ${through}, outside seqs ${cut} to ${seq - 1}`);
  const historyIndex = historyIndexAfter(s, through);
  if (through === cut) {
    if (summary !== "" || compaction.trimmed === undefined)
      throw corrupt(seq, "a compaction that summarizes nothing new must only trim results, with an empty summary");
  } else {
    if (summary === "") throw corrupt(seq, `a compaction through seq ${through} with an empty summary`);
    if (s.historySeqs[historyIndex - 1] !== through) throw corrupt(seq, `a compaction through seq ${through}, which does not end a message`);
    const first = s.history[historyIndex];
    if (first === undefined) throw corrupt(seq, `a compaction through seq ${through} that keeps no message: the latest must stay`);
    if (first.role === "user" && first.content.some((block) => block.type === "tool_result")) {
      throw corrupt(seq, `a compaction through seq ${through}, which separates tool calls from their results`);
    }
  }
  const entry: CompactionState = { seq, compaction, undoneAt: undefined };
  inEffect.push(entry);
  let view: Message[];
  try {
    view = viewOf(s, inEffect, seq, compaction);
  } catch (error) {
    // A record that does not fold leaves the state as it was.
    inEffect.pop();
    throw error;
  }
  s.compactions.push(entry);
  s.messages = view;
  countCompaction(s.counters, compaction);
}

function foldCompactionUndo(s: Folding, { compaction_seq: target }: CompactionUndoPayload, seq: number): void {
  const { inEffect } = s;
  const latest = inEffect.at(-1);
  if (latest?.seq !== target) {
    throw corrupt(seq, `an undo of the compaction at seq ${target}, where the latest in effect is ${latest === undefined ? "none" : `at seq ${latest.seq}`}`);
  }
  // A pending batch's turn is not in `history` yet, so the view can be rebuilt under it.
  inEffect.pop();
  let view: Message[];
  try {
    view = viewOf(s, inEffect, seq);
  } catch (error) {
    inEffect.push(latest);
    throw error;
  }
  latest.undoneAt = seq;
  s.messages = view;
}

/**
 * A message as the state keeps it: itself, or for a checking fold its outline, what the
 * rules read of it (its role, its tool results' ids and lengths), without its text.
 */
function outlined(s: Folding, message: Message): Message {
  const lengths = s.resultChars;
  if (lengths === undefined) return message;
  if (message.role === "assistant") return message.content.length === 0 ? message : { role: "assistant", content: [] };
  const content: ToolResultBlock[] = [];
  for (const block of message.content) {
    if (isOtherBlock(block) || block.type !== "tool_result") continue;
    if (lengths.has(block)) {
      content.push(block);
      continue;
    }
    const outline: ToolResultBlock = { type: "tool_result", tool_use_id: block.tool_use_id, content: "" };
    lengths.set(outline, resultText(block.content).length);
    content.push(outline);
  }
  return { role: "user", content };
}

/** The index in `history` of the first message completed after record `through`. */
function historyIndexAfter(s: Folding, through: number): number {
  const seqs = s.historySeqs;
  let low = 0;
  let high = seqs.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((seqs[middle] as number) <= through) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * What the model is sent under the compactions in effect (model-view.ts); without any, the
 * history itself. `folding` is the compaction being folded, whose trims must each name a
 * kept result.
 */
function viewOf(s: Folding, inEffect: readonly CompactionState[], seq: number, folding?: CompactionPayload): Message[] {
  if (inEffect.length === 0) return s.history;
  const model = new ModelView(inEffect, s.resultChars);
  const view: Message[] = [];
  for (let index = historyIndexAfter(s, model.cut); index < s.history.length; index++) {
    view.push(...model.take(s.history[index] as Message, s.historySeqs[index] as number));
  }
  view.push(...model.end());
  const miscounted = model.miscounted[0];
  if (miscounted !== undefined) {
    const { trim, length } = miscounted;
    throw corrupt(seq, `a trim of the result of ${trim.tool_use_id} that counts ${trim.kept_chars + trim.cut_chars} characters where it has ${length}`);
  }
  // Only the compaction being folded must trim kept results: an earlier trim's result may
  // since have been summarized by a later cut, and then it no longer matters.
  const unmatched = (folding?.trimmed ?? []).find((trim) => !model.trimmed(trim.tool_use_id));
  if (unmatched !== undefined) throw corrupt(seq, `a trim of the result of ${unmatched.tool_use_id}, which no kept message holds`);
  return view;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Counts a model turn into `counters`: fold and the show's tally count alike. */
export function countTurn(counters: Counters, turn: AssistantPayload): void {
  counters.modelCalls++;
  counters.inTokens += turn.in_tokens;
  counters.outTokens += turn.out_tokens;
  counters.cacheReadTokens += turn.cache_read_tokens ?? 0;
  counters.cacheCreateTokens += turn.cache_create_tokens ?? 0;
}

/** Counts a compaction's summarizing call (none when it only trims) into `counters`, apart from the model's turns. */
export function countCompaction(counters: Counters, compaction: CompactionPayload): void {
  if (compaction.summary !== "") counters.compactionCalls++;
  counters.compactionInTokens += compaction.in_tokens;
  counters.compactionOutTokens += compaction.out_tokens;
}

/** The counters of a run before its first record after the meta: all zero. */
export function noCounters(): Counters {
  return {
    modelCalls: 0,
    toolCalls: 0,
    remoteToolCalls: 0,
    inTokens: 0,
    outTokens: 0,
    cacheReadTokens: 0,
    cacheCreateTokens: 0,
    compactionCalls: 0,
    compactionInTokens: 0,
    compactionOutTokens: 0,
  };
}

function foldMeta(first: JournalRecord, outline = false): FoldState {
  if (first.protocol !== "io.choria.fisk-ai.v1.session.meta" || first.seq !== 1) {
    throw new RunStateError("ERR_NO_META", `the first record (seq ${String(first.seq)}) is not the meta record at seq 1`, {
      seq: first.seq,
    });
  }
  const meta = payloadOf(first, "meta") as MetaPayload;
  assertReadableVersion(meta);
  const resultChars = outline ? new WeakMap<ToolResultBlock, number>() : undefined;
  const prompt: Message = { role: "user", content: [{ type: "text", text: meta.prompt }] };
  const messages: Message[] = meta.prompt === "" ? [] : [outline ? { role: "user", content: [] } : prompt];
  const state: Folding = {
    runId: meta.run_id,
    meta,
    messages,
    history: messages,
    historySeqs: messages.map(() => 1),
    compactions: [],
    inEffect: [],
    counters: noCounters(),
    nextIteration: 0,
    promptIteration: 0,
    pending: undefined,
    paused: false,
    terminal: undefined,
    title: undefined,
    origin: undefined,
    imported: undefined,
    moved: undefined,
    lastSeq: 1,
    lastAnswered: new Set(),
    resultChars,
  };
  return state;
}

function payloadOf(record: JournalRecord, kind: string): object {
  const payload = (record as unknown as Record<string, unknown>)[kind];
  if (payload === null || typeof payload !== "object") throw corrupt(record.seq, `the ${kind} payload is missing`);
  return payload;
}
