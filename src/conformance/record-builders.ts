// Small builders for valid records, so each test states only what it is about.
import {
  PROTOCOLS,
  RECORD_VERSION,
  type AssistantRecord,
  type JournalRecord,
  type MetaPayload,
  type MetaRecord,
  type RecordEntry,
  type TerminalReason,
  type TerminalRecord,
  type ToolResultRecord,
  type UserRecord,
} from "../index.js";

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
        content: [
          { type: "text", text },
          ...toolUseIds.map((id) => ({ type: "tool_use" as const, id, name: "note", input: { text: id } })),
        ],
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
