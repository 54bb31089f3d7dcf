// A recorded session as a replay reads it: its model turns in order, each with the calls it
// made and the results the journal holds for them, grouped by the prompt they answer (the
// first prompt, then each follow-up). The records are folded as they are read, so a journal
// that does not fold is refused here with the fold's own error, before anything is replayed.
import { RunStateError } from "../runstate/errors.js";
import { foldStep, type CompactionState, type FoldState } from "../runstate/views/fold.js";
import {
  isOtherBlock,
  PROTOCOLS,
  type AssistantMessage,
  type ImportedPayload,
  type JournalRecord,
  type MetaPayload,
  type TerminalPayload,
  type ToolResultBlock,
} from "../runstate/records/records.js";

/** One call a recorded turn made, and the result journaled for it (none when the recording ends before it). */
export interface RecordedCall {
  /** The call's id in the recording. */
  id: string;
  name: string;
  input: Record<string, unknown>;
  result: ToolResultBlock | undefined;
  /** The seq of the result's record: a batch's results reached the model in this order. */
  resultSeq: number | undefined;
}

/** What the recording's model saw of the conversation when it was asked for a turn, when a compaction was in effect. */
export interface RecordedView {
  /** The compactions of the run so far, undone ones included (ModelView leaves those out). */
  compactions: readonly CompactionState[];
  /** The seq of the record that completed each message of the history then, index for index. */
  historySeqs: readonly number[];
}

/** One model turn of the recording. */
export interface RecordedTurn {
  /** Counted from 1 over the whole session: the session's model calls in order. */
  number: number;
  /** Which prompt it answers: 0 the first, 1 the first follow-up, ... */
  segment: number;
  /** The seq of its assistant record: a fork at this turn copies the records before it. */
  seq: number;
  /** The model call's number in the run, from 0, as its record gives it. */
  iteration: number;
  text: string;
  calls: RecordedCall[];
  /** A final answer: a turn that calls no tool. */
  answers: boolean;
  /** How long the call took, when its record kept the times. */
  latencyMs: number | undefined;
  /** Set only when a compaction was in effect: what the model was sent instead of the whole history. */
  view: RecordedView | undefined;
  /** Asked by a process that resumed the session: its system prompt carried the resume reminder. */
  resumed: boolean;
}

/** A recorded session, read for a replay. */
export interface Recording {
  runId: string;
  meta: MetaPayload;
  /** The follow-ups, in order: follow-up i opens segment i + 1. */
  followUps: string[];
  /** The turns of each segment: `segments[0]` answers the first prompt. */
  segments: RecordedTurn[][];
  /** How the recording stopped, when its journal ends on a terminal record. */
  terminal: TerminalPayload | undefined;
  /** The records as read: the ledger of the recording is priced from them. */
  records: readonly JournalRecord[];
  /** Its import mark, when it came in by `session import`: whether it is this installation's own depends on it. */
  imported: ImportedPayload | undefined;
}

/** Reads a recording from its records. Throws the fold's RunStateError (ERR_EMPTY, ERR_CORRUPT with its seq, ...) for a journal that does not fold. */
export function readRecording(records: readonly JournalRecord[]): Recording {
  // Every record is folded before a replay starts, so a broken record anywhere refuses it.
  if (records.length === 0) throw new RunStateError("ERR_EMPTY", "line 1: the journal holds no records", { line: 1 });
  const reading = new Reading();
  let state: FoldState | undefined;
  for (const record of records) {
    reading.before(record, state);
    state = foldStep(state, record);
  }
  const final = state as FoldState;
  return {
    runId: final.runId,
    meta: final.meta,
    followUps: reading.followUps,
    segments: reading.segments,
    terminal: final.terminal,
    records,
    imported: final.imported,
  };
}

/** The turns as the records are met. */
class Reading {
  readonly followUps: string[] = [];
  readonly segments: RecordedTurn[][] = [[]];
  readonly #calls = new Map<string, RecordedCall>();
  #number = 0;
  /** The records since the latest part mark were written by a process that resumed the session (agent-loop.ts, resumeRun). */
  #resumed = false;

  /** Takes in a record, given the state of the records before it. */
  before(record: JournalRecord, state: FoldState | undefined): void {
    if ("part_started_at" in record && record.part_started_at !== undefined) this.#resumed = (state?.nextIteration ?? 0) > 0;
    if (record.protocol === PROTOCOLS.assistant && state !== undefined) this.#turn(record.assistant, record.seq, state);
    else if (record.protocol === PROTOCOLS.tool_result) {
      const call = this.#calls.get(record.tool_result.tool_use_id);
      if (call !== undefined) {
        call.result = record.tool_result.result;
        call.resultSeq = record.seq;
      }
    } else if (record.protocol === PROTOCOLS.user) {
      this.followUps.push(messageText(record.user.message.content));
      this.segments.push([]);
    }
  }

  #turn(assistant: { iteration: number; message: AssistantMessage; started_at?: string; ended_at?: string }, seq: number, state: FoldState): void {
    const calls: RecordedCall[] = [];
    for (const block of assistant.message.content) {
      if (isOtherBlock(block) || block.type !== "tool_use") continue;
      const call = { id: block.id, name: block.name, input: block.input, result: undefined, resultSeq: undefined };
      calls.push(call);
      this.#calls.set(block.id, call);
    }
    const inEffect = state.compactions.some((entry) => entry.undoneAt === undefined);
    const started = assistant.started_at === undefined ? Number.NaN : Date.parse(assistant.started_at);
    const ended = assistant.ended_at === undefined ? Number.NaN : Date.parse(assistant.ended_at);
    (this.segments.at(-1) as RecordedTurn[]).push({
      number: ++this.#number,
      segment: this.segments.length - 1,
      seq,
      iteration: assistant.iteration,
      text: messageText(assistant.message.content),
      calls,
      answers: calls.length === 0,
      latencyMs: Number.isNaN(ended - started) ? undefined : ended - started,
      // Copies: a later undo marks the state's own entry.
      view: inEffect ? { compactions: state.compactions.map((entry) => ({ ...entry })), historySeqs: [...state.historySeqs] } : undefined,
      resumed: this.#resumed,
    });
  }
}

/** The text blocks of a message, joined. */
export function messageText(content: readonly unknown[]): string {
  return content.map((block) => (isTextBlock(block) ? block.text : "")).join("");
}

function isTextBlock(block: unknown): block is { type: "text"; text: string } {
  return typeof block === "object" && block !== null && (block as { type?: unknown }).type === "text" && typeof (block as { text?: unknown }).text === "string";
}
