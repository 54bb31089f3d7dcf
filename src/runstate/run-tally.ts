// What `session show` says about a run besides its conversation, taken record by record
// without keeping the conversation: the counters, the pending batch, the terminal record,
// the compactions. A journal of any size is tallied in the memory of one batch. Unlike
// fold it checks nothing: it reads a journal load() would accept, or says what it sees.
import { RunStateError } from "./errors.js";
import { countCompaction, countTurn, noCounters, type ApprovalState, type CompactionState, type Counters, type DecisionState } from "./fold.js";
import { ANNOTATION_KINDS, kindOfProtocol, type JournalRecord, type MetaPayload, type TerminalPayload, type ToolUseBlock } from "./records.js";

/** A run's tally after its records so far. */
export interface RunTally {
  /** The meta record's payload. */
  meta: MetaPayload;
  /** As fold counts them. */
  counters: Counters;
  /** As fold gives it: the loop index to resume at. */
  nextIteration: number;
  /** The turn whose tools are not all answered: its seq, its calls, the ids answered so far in journal order, its parked calls and their decisions, as fold keeps them. */
  pending:
    | { seq: number; toolUses: ToolUseBlock[]; answered: Set<string>; approvals: Map<string, ApprovalState>; decisions: Map<string, DecisionState> }
    | undefined;
  /** Set only when the records so far end on a terminal record. */
  terminal: TerminalPayload | undefined;
  /** Every compaction so far, undone ones included. */
  compactions: CompactionState[];
  /** The seq of the last record tallied. */
  lastSeq: number;
}

/** Advances a tally by one record, in place; `undefined` and the meta record start one. */
export function tallyStep(tally: RunTally | undefined, record: JournalRecord): RunTally {
  if (tally === undefined) {
    if (!("meta" in record)) throw new TypeError("a tally starts at the meta record");
    return {
      meta: record.meta,
      counters: noCounters(),
      nextIteration: 0,
      pending: undefined,
      terminal: undefined,
      compactions: [],
      lastSeq: record.seq,
    };
  }
  const { counters } = tally;
  switch (kindOfProtocol(record.protocol)) {
    case "assistant": {
      const turn = (record as Extract<JournalRecord, { assistant: unknown }>).assistant;
      countTurn(counters, turn);
      tally.nextIteration = Math.max(tally.nextIteration, turn.iteration + 1);
      const toolUses = turn.message.content.filter((block): block is ToolUseBlock => block.type === "tool_use");
      if (toolUses.length > 0) tally.pending = { seq: record.seq, toolUses, answered: new Set(), approvals: new Map(), decisions: new Map() };
      break;
    }
    case "tool_result": {
      const { tool_use_id: id, remote } = (record as Extract<JournalRecord, { tool_result: unknown }>).tool_result;
      counters.toolCalls++;
      if (remote === true) counters.remoteToolCalls++;
      const { pending } = tally;
      pending?.answered.add(id);
      if (pending !== undefined && pending.answered.size === pending.toolUses.length) tally.pending = undefined;
      break;
    }
    case "approval_request": {
      const request = (record as Extract<JournalRecord, { approval_request: unknown }>).approval_request;
      tally.pending?.approvals.set(request.tool_use_id, { seq: record.seq, request });
      break;
    }
    case "approval_decision": {
      const decision = (record as Extract<JournalRecord, { approval_decision: unknown }>).approval_decision;
      tally.pending?.decisions.set(decision.tool_use_id, { seq: record.seq, decision });
      break;
    }
    case "compaction": {
      const compaction = (record as Extract<JournalRecord, { compaction: unknown }>).compaction;
      countCompaction(counters, compaction);
      tally.compactions.push({ seq: record.seq, compaction, undoneAt: undefined });
      break;
    }
    case "compaction_undo": {
      const target = (record as Extract<JournalRecord, { compaction_undo: unknown }>).compaction_undo.compaction_seq;
      const undone = tally.compactions.find((entry) => entry.seq === target);
      if (undone !== undefined) undone.undoneAt = record.seq;
      break;
    }
    default:
      break;
  }
  // As fold does: an annotation (a title, an origin, a compaction ...) leaves the run as it stopped.
  const kind = kindOfProtocol(record.protocol);
  if (kind === undefined || !ANNOTATION_KINDS.includes(kind)) tally.terminal = "terminal" in record ? record.terminal : undefined;
  tally.lastSeq = record.seq;
  return tally;
}

/** Tallies a run's records as they are read: ERR_EMPTY when there are none. */
export async function tallyRecords(runId: string, records: AsyncIterable<JournalRecord>): Promise<RunTally> {
  let tally: RunTally | undefined;
  for await (const record of records) tally = tallyStep(tally, record);
  if (tally === undefined) throw new RunStateError("ERR_EMPTY", `session ${runId}: the journal holds no records`, { runId });
  return tally;
}
