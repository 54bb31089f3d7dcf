// A journaled session's trace, from its records alone: what `session trace` sends, what a
// resume reads to link its part to the one before, and what a decision made in another
// process sends for the wait it ends. Each process's part of the run begins at the meta
// (the first) or at the record its resume marked with `part_started_at`: a part still open
// there ended in a crash. Journals written before the mark (and version 3 journals, which
// do not hold it) begin a part at the first record of the run after a terminal one.
import { ANNOTATION_KINDS, kindOfProtocol, PROTOCOLS, type JournalRecord, type ToolUseBlock } from "../runstate/records/records.js";
import {
  approvalSpan,
  chatSpan,
  compactionSpan,
  partSpan,
  toolSpan,
  type AskedApproval,
  type RunPart,
  type SessionContext,
  type SessionSpan,
} from "./session-spans.js";
import { toolSpanId } from "./trace-ids.js";

/** What the walk of a journal found. */
export interface JournalTrace {
  session: SessionContext;
  /** Every span, parts included, in journal order. */
  spans: SessionSpan[];
  /** Every call parked for a decision, by its id, with the part that parked it. */
  requests: Map<string, AskedApproval>;
}

interface Walk extends JournalTrace {
  uses: Map<string, ToolUseBlock>;
  /** The part the records are in; undefined after a terminal record, until the next part begins. */
  part: RunPart | undefined;
  /** The latest part to begin: the one the next part links. */
  latest: RunPart;
  /** The latest time a record gave: a record without one of its own is given it. */
  lastTime: string;
}

/** The kinds written after a terminal record without taking the run further: by a decision, or another session command. */
const OUTSIDE_A_PART = new Set<string>([...ANNOTATION_KINDS, "approval_decision", "terminal"]);

/** Every span of a journaled session, in journal order: what `session trace` exports. */
export function journalSpans(records: readonly JournalRecord[], captureContent: boolean): SessionSpan[] {
  return journalTrace(records, captureContent)?.spans ?? [];
}

/** The session's trace as its journal tells it; undefined for records without a meta. */
export function journalTrace(records: readonly JournalRecord[], captureContent: boolean): JournalTrace | undefined {
  const meta = records[0];
  if (meta?.protocol !== PROTOCOLS.meta) return undefined;
  const created = meta.meta.created;
  const first: RunPart = { firstSeq: 1, start: created, end: created, status: undefined, afterCrash: false };
  const { run_id: runId, fingerprint, parent } = meta.meta;
  const walk: Walk = {
    session: {
      runId,
      provider: fingerprint.provider ?? "anthropic",
      model: fingerprint.model,
      captureContent,
      ...(parent === undefined ? {} : { callSpanId: toolSpanId(parent.run_id, parent.call_id) }),
    },
    spans: [],
    requests: new Map(),
    uses: new Map(),
    part: first,
    latest: first,
    lastTime: created,
  };
  for (const record of records) {
    if (record.protocol === PROTOCOLS.meta) continue;
    enterPart(walk, record);
    recordSpans(walk, record);
    if (walk.part?.start === "\uffff") walk.part.start = walk.lastTime;
    if (walk.part !== undefined) walk.part.end = walk.lastTime;
    if (record.protocol === PROTOCOLS.terminal && walk.part !== undefined) endPart(walk, walk.part, record.terminal.reason);
  }
  if (walk.part !== undefined) endPart(walk, walk.part, undefined);
  return { session: walk.session, spans: walk.spans, requests: walk.requests };
}

/** Begins the part a record opens: one its resume marked, or (a journal without marks) the run going on after a terminal record. */
function enterPart(walk: Walk, record: Exclude<JournalRecord, { protocol: typeof PROTOCOLS.meta }>): void {
  const marked = record.part_started_at;
  const unmarkedResume = walk.part === undefined && !OUTSIDE_A_PART.has(kindOfProtocol(record.protocol) ?? "terminal");
  if (marked === undefined && !unmarkedResume) return;
  const open = walk.part;
  if (open !== undefined) endPart(walk, open, undefined);
  // An unmarked part's start is its first record's time: "\uffff" sorts after any time until one is seen.
  const start = marked ?? "\uffff";
  walk.part = { firstSeq: record.seq, start, end: start, status: undefined, previousFirstSeq: walk.latest.firstSeq, afterCrash: open !== undefined };
  walk.latest = walk.part;
}

function endPart(walk: Walk, part: RunPart, status: RunPart["status"]): void {
  walk.spans.push(partSpan(walk.session, { ...part, status }));
  walk.part = undefined;
}

/** The spans a record ends, and the times it gives. */
function recordSpans(walk: Walk, record: Exclude<JournalRecord, { protocol: typeof PROTOCOLS.meta }>): void {
  const { session, spans } = walk;
  // A record outside any part (a decision, a compaction by hand) belongs with the latest part.
  const partSeq = (walk.part ?? walk.latest).firstSeq;
  const seen = (...times: (string | undefined)[]): string => {
    for (const time of times) {
      if (time !== undefined && time > walk.lastTime) walk.lastTime = time;
      if (time !== undefined && walk.part !== undefined && time < walk.part.start) walk.part.start = time;
    }
    return walk.lastTime;
  };
  seen(record.part_started_at);
  switch (record.protocol) {
    case PROTOCOLS.assistant:
      seen(record.assistant.started_at, record.assistant.ended_at);
      for (const block of record.assistant.message.content) if (block.type === "tool_use") walk.uses.set((block as ToolUseBlock).id, block as ToolUseBlock);
      spans.push(chatSpan(session, partSeq, record.assistant, walk.lastTime));
      break;
    case PROTOCOLS.tool_result: {
      seen(record.tool_result.started_at, record.tool_result.ended_at);
      const use = walk.uses.get(record.tool_result.tool_use_id);
      if (use !== undefined) spans.push(toolSpan(session, partSeq, use, record.tool_result, walk.lastTime));
      break;
    }
    case PROTOCOLS.approval_request:
      seen(record.approval_request.requested_at);
      walk.requests.set(record.approval_request.tool_use_id, { request: record.approval_request, partSeq });
      break;
    case PROTOCOLS.approval_decision: {
      seen(record.approval_decision.decided_at);
      const asked = walk.requests.get(record.approval_decision.tool_use_id);
      if (asked !== undefined) spans.push(approvalSpan(session, asked, record.approval_decision));
      break;
    }
    case PROTOCOLS.compaction:
      seen(record.compaction.started_at, record.compaction.ended_at);
      spans.push(compactionSpan(session, partSeq, record.seq, record.compaction, walk.lastTime));
      break;
    case PROTOCOLS.resumed:
      seen(record.resumed.resumed_at);
      break;
    default:
      break;
  }
}
