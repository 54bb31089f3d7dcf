// Small builders for valid records, so each test states only what it is about.
import {
  PROTOCOLS,
  RECORD_VERSION,
  type ApprovalDecisionPayload,
  type ApprovalDecisionRecord,
  type ApprovalRequestRecord,
  type CompactionPayload,
  type CompactionRecord,
  type CompactionUndoRecord,
  type ResumedRecord,
  type AssistantRecord,
  type JournalRecord,
  type MetaPayload,
  type MetaRecord,
  type OriginPayload,
  type OriginRecord,
  type RecordEntry,
  type TerminalReason,
  type TerminalRecord,
  type TitleRecord,
  type ToolResultRecord,
  type UserRecord,
} from "../runstate/records/records.js";

/**
 * A valid meta payload for `runId` in the current RECORD_VERSION, with a fixed anthropic
 * fingerprint and prompt; `overrides` replace whole top-level fields.
 */
export function metaPayload(runId: string, overrides: Partial<MetaPayload> = {}): MetaPayload {
  return {
    version: RECORD_VERSION,
    run_id: runId,
    created: "2026-12-02T10:00:00Z",
    fingerprint: {
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      system_hash: "a".repeat(64),
      tools_hash: "b".repeat(64),
      thinking_mode: "off",
      max_tokens: 200000,
      max_iterations: 50,
    },
    prompt: "What is in the notes file?",
    ...overrides,
  };
}

/** The meta record (seq 1) of `metaPayload(runId, overrides)`. */
export function metaRecord(runId: string, overrides: Partial<MetaPayload> = {}): MetaRecord {
  return { seq: 1, protocol: PROTOCOLS.meta, meta: metaPayload(runId, overrides) };
}

/** An assistant turn: text, plus one tool_use per id given. */
export function assistantEntry(iteration: number, text: string, toolUseIds: string[] = []): Omit<AssistantRecord, "seq"> {
  return {
    protocol: PROTOCOLS.assistant,
    assistant: {
      iteration,
      message: {
        role: "assistant",
        content: [{ type: "text", text }, ...toolUseIds.map((id) => ({ type: "tool_use" as const, id, name: "note", input: { text: id } }))],
      },
      stop_reason: toolUseIds.length > 0 ? "tool_use" : "end_turn",
      in_tokens: 100,
      out_tokens: 20,
      cache_read_tokens: 5,
      cache_create_tokens: 7,
    },
  };
}

/** A tool_result entry (no seq) answering `toolUseId`, with `content` as its text. */
export function toolResultEntry(toolUseId: string, content = `result of ${toolUseId}`): Omit<ToolResultRecord, "seq"> {
  return {
    protocol: PROTOCOLS.tool_result,
    tool_result: { tool_use_id: toolUseId, result: { type: "tool_result", tool_use_id: toolUseId, content } },
  };
}

/** A user entry (no seq): one text block. */
export function userEntry(text: string): Omit<UserRecord, "seq"> {
  return { protocol: PROTOCOLS.user, user: { message: { role: "user", content: [{ type: "text", text }] } } };
}

/** A terminal entry (no seq) ending the run for `reason`, with `message` when given. */
export function terminalEntry(reason: TerminalReason, message?: string): Omit<TerminalRecord, "seq"> {
  return { protocol: PROTOCOLS.terminal, terminal: message === undefined ? { reason } : { reason, message } };
}

/**
 * A compaction entry (no seq) whose summary stands for the records from `fromSeq` to
 * `throughSeq`, started by a person; `overrides` replace whole fields.
 */
export function compactionEntry(fromSeq: number, throughSeq: number, overrides: Partial<CompactionPayload> = {}): Omit<CompactionRecord, "seq"> {
  return {
    protocol: PROTOCOLS.compaction,
    compaction: {
      from_seq: fromSeq,
      through_seq: throughSeq,
      summary: `the conversation through seq ${throughSeq}`,
      model: "claude-sonnet-4-5",
      trigger: "manual",
      tokens_before: 1000,
      tokens_after: 200,
      in_tokens: 900,
      out_tokens: 60,
      ...overrides,
    },
  };
}

/** A compaction_undo entry (no seq) reverting the compaction at `compactionSeq`. */
export function compactionUndoEntry(compactionSeq: number): Omit<CompactionUndoRecord, "seq"> {
  return { protocol: PROTOCOLS.compaction_undo, compaction_undo: { compaction_seq: compactionSeq } };
}

/** An approval_request entry (no seq) for a call made by assistantEntry: the `note` tool with `{ text: id }`. */
export function approvalRequestEntry(toolUseId: string): Omit<ApprovalRequestRecord, "seq"> {
  return {
    protocol: PROTOCOLS.approval_request,
    approval_request: { tool_use_id: toolUseId, name: "note", input: { text: toolUseId }, kind: "approval", requested_at: "2026-12-01T10:00:00.000Z" },
  };
}

/** An approval_decision entry (no seq) on `toolUseId`, by an operator; `text` is a denial's reason or an answer. */
export function decisionEntry(toolUseId: string, decision: ApprovalDecisionPayload["decision"], text?: string): Omit<ApprovalDecisionRecord, "seq"> {
  return {
    protocol: PROTOCOLS.approval_decision,
    approval_decision: {
      tool_use_id: toolUseId,
      decision,
      ...(text === undefined ? {} : { text }),
      decided_by: "operator@host",
      decided_at: "2026-12-01T10:05:00.000Z",
    },
  };
}

/** A resumed entry (no seq): a resume took up a batch at rest under a terminal record. */
export function resumedEntry(): Omit<ResumedRecord, "seq"> {
  return { protocol: PROTOCOLS.resumed, resumed: { resumed_at: "2026-12-01T11:00:00.000Z" } };
}

/** A title entry (no seq). */
export function titleEntry(title: string): Omit<TitleRecord, "seq"> {
  return { protocol: PROTOCOLS.title, title: { title } };
}

/** An origin entry (no seq): the records before it were copied from `runId` through `throughSeq`. */
export function originEntry(runId: string, throughSeq: number, kind: OriginPayload["kind"] = "fork"): Omit<OriginRecord, "seq"> {
  return { protocol: PROTOCOLS.origin, origin: { run_id: runId, through_seq: throughSeq, kind } };
}

/** Numbers entries from seq 2 after a meta record: a whole journal. */
export function journalOf(runId: string, ...entries: RecordEntry[]): JournalRecord[] {
  return [metaRecord(runId), ...entries.map((entry, index) => ({ seq: index + 2, ...entry }) as JournalRecord)];
}

/** A typical finished run: one turn with two tools, then the final answer. */
export function completedRun(runId: string): JournalRecord[] {
  return journalOf(
    runId,
    assistantEntry(0, "Let me look.", ["toolu_1", "toolu_2"]),
    toolResultEntry("toolu_2"),
    toolResultEntry("toolu_1"),
    assistantEntry(1, "The notes say hello."),
    terminalEntry("completed"),
  );
}
