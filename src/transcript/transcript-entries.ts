// A run's conversation as the things a reader sees, record by record in journal order:
// what the plain print, the full-screen viewer and the HTML export each lay out their own
// way. One record at a time, so a journal of any size is shown as it is read.
import {
  isOtherBlock,
  kindOfProtocol,
  type ApprovalDecisionRecord,
  type ApprovalRequestRecord,
  type AssistantPayload,
  type AssistantRecord,
  type CompactionPayload,
  type CompactionRecord,
  type CompactionUndoRecord,
  type ImportedRecord,
  type JournalRecord,
  type MetaRecord,
  type ToolResultPayload,
  type ToolResultRecord,
  type UserPayload,
  type UserRecord,
} from "../runstate/records/records.js";
import { trustedKeys, type Keyring } from "../trust/keyring.js";
import { decisionSignatureProblem } from "../trust/signatures.js";
import { durationOf } from "./duration.js";
import { describeOtherBlock, toolResultText } from "./render-blocks.js";

/** One thing said or done in a run, with the seq of the record it is in. */
export type TranscriptEntry = { seq: number } & (
  | { kind: "user"; text: string }
  | { kind: "text"; text: string }
  | { kind: "thinking"; text: string; redacted: boolean }
  | { kind: "tool_call"; name: string; input: unknown; server: boolean }
  /** The child session a call started (docs/sub-agents.md): its work, folded, right after the call. */
  | { kind: "child"; runId: string; name: string; status: string; title: string }
  /** `ms`: how long the tool ran, when its record kept the times. */
  | { kind: "tool_result"; name: string; text: string; error: boolean; ms?: number }
  /** How long a model call took: before the turn it returned, when its record kept the times. */
  | { kind: "model_call"; ms: number }
  /** A block shown by its description: an image, a server tool's result, a block the code does not model. */
  | { kind: "other"; text: string }
  /** Something that happened to the conversation (a compaction, an approval): `detail` is what it carries, when anything. */
  | { kind: "marker"; text: string; detail?: string }
);

/** The kinds a reader sees folded to one line until asked: long, and rarely read in full. */
export function isFoldable(entry: TranscriptEntry): boolean {
  return entry.kind === "thinking" || entry.kind === "tool_result" || entry.kind === "child" || (entry.kind === "marker" && entry.detail !== undefined);
}

/** Whether the entry at `index` of its record starts a turn, set apart from what came before: a person's words, or the first thing a model turn says. */
export function startsTurn(entry: TranscriptEntry, index: number): boolean {
  return entry.kind === "user" || (index === 0 && entry.kind !== "tool_result" && entry.kind !== "marker");
}

/** A child session as a transcript shows it, found by the id of the call that started it. */
export type ChildLinks = ReadonlyMap<string, { runId: string; status: string; title: string }>;

/**
 * Reads a run's records in seq order into entries, naming each result after its call, each
 * call's child session after it, and each approval or answer that does not verify with
 * `keyring` as one that does not count (src/trust/counted-decisions.ts).
 */
export class TranscriptReader {
  readonly #children: ChildLinks;
  readonly #keyring: Keyring;

  constructor(children: ChildLinks = new Map(), keyring: Keyring = trustedKeys()) {
    this.#children = children;
    this.#keyring = keyring;
  }

  /** The calls of the latest turn by id: a result answers a call of the turn before it, a decision decides one. */
  #names = new Map<string, string>();
  #inputs = new Map<string, unknown>();
  #runId = "";
  #paused = false;

  entriesOf(record: JournalRecord): TranscriptEntry[] {
    const { seq } = record;
    switch (kindOfProtocol(record.protocol)) {
      case "meta": {
        const { prompt, run_id: runId } = (record as MetaRecord).meta;
        this.#runId = runId;
        return prompt === "" ? [] : [{ seq, kind: "user", text: prompt }];
      }
      case "assistant":
        return this.#turnEntries(seq, (record as AssistantRecord).assistant);
      case "tool_result":
        return [this.#resultEntry(seq, (record as ToolResultRecord).tool_result)];
      case "user":
        this.#paused = false;
        return userEntries(seq, (record as UserRecord).user.message);
      case "compaction":
        return [compactionMarker(seq, (record as CompactionRecord).compaction)];
      case "compaction_undo": {
        const { compaction_seq: target } = (record as CompactionUndoRecord).compaction_undo;
        return [{ seq, kind: "marker", text: `── the compaction at seq ${target} undone ──` }];
      }
      case "approval_request": {
        const request = (record as ApprovalRequestRecord).approval_request;
        const what = request.kind === "question" ? "an answer" : "approval";
        return [{ seq, kind: "marker", text: `── ${request.name} (${request.tool_use_id}) waits for ${what} ──` }];
      }
      case "approval_decision": {
        const decision = (record as ApprovalDecisionRecord).approval_decision;
        const id = decision.tool_use_id;
        const call = { runId: this.#runId, name: this.#names.get(id) ?? "", input: this.#inputs.get(id) };
        const unverified = decision.decision === "deny" ? undefined : decisionSignatureProblem(this.#keyring, call, decision);
        const counts = unverified === undefined ? "" : ` (does not count: ${unverified})`;
        const text = `── ${id}: ${decision.decision} by ${decision.decided_by}${counts} ──`;
        return [decision.text === undefined ? { seq, kind: "marker", text } : { seq, kind: "marker", text, detail: decision.text }];
      }
      case "imported": {
        const { file, by, imported_at: at } = (record as ImportedRecord).imported;
        return [{ seq, kind: "marker", text: `── imported from ${file} by ${by} at ${at} ──` }];
      }
      default:
        return [];
    }
  }

  /** A model turn: how long its call took, then each of its blocks; its tool calls are named for their results. */
  #turnEntries(seq: number, turn: AssistantPayload): TranscriptEntry[] {
    // A paused turn's continuation may still be answered for the calls before the pause.
    if (!this.#paused) [this.#names, this.#inputs] = [new Map(), new Map()];
    this.#paused = turn.stop_reason === "pause_turn";
    const ms = durationOf(turn);
    const call: TranscriptEntry[] = ms === undefined ? [] : [{ seq, kind: "model_call", ms }];
    return call.concat(turn.message.content.flatMap((block) => this.#blockEntries(seq, block)));
  }

  /** One block of a model turn; a call that started a child session is followed by it. */
  #blockEntries(seq: number, block: AssistantPayload["message"]["content"][number]): TranscriptEntry | TranscriptEntry[] {
    if (isOtherBlock(block)) return { seq, kind: "other", text: describeOtherBlock(block) };
    switch (block.type) {
      case "text":
        return { seq, kind: "text", text: block.text };
      case "thinking":
        return { seq, kind: "thinking", text: block.thinking, redacted: false };
      case "redacted_thinking":
        return { seq, kind: "thinking", text: "", redacted: true };
      case "tool_use": {
        this.#names.set(block.id, block.name);
        this.#inputs.set(block.id, block.input);
        const call: TranscriptEntry = { seq, kind: "tool_call", name: block.name, input: block.input, server: false };
        const child = this.#children.get(block.id);
        return child === undefined ? call : [call, { seq, kind: "child", name: block.name, ...child }];
      }
      case "server_tool_use":
        return { seq, kind: "tool_call", name: block.name, input: block.input, server: true };
    }
  }

  /** A tool's result, named after the call it answers. */
  #resultEntry(seq: number, payload: ToolResultPayload): TranscriptEntry {
    const { result } = payload;
    const name = this.#names.get(result.tool_use_id) ?? "tool";
    const ms = durationOf(payload);
    return { seq, kind: "tool_result", name, text: toolResultText(result), error: result.is_error === true, ...(ms === undefined ? {} : { ms }) };
  }
}

/** What a person said: their text, and any other block by its description. */
function userEntries(seq: number, message: UserPayload["message"]): TranscriptEntry[] {
  return message.content.map((block): TranscriptEntry => {
    if (isOtherBlock(block)) return { seq, kind: "other", text: describeOtherBlock(block) };
    if (block.type === "text") return { seq, kind: "user", text: block.text };
    return { seq, kind: "other", text: block.type === "image" ? "[image]" : `[${block.type}]` };
  });
}

/** A compaction: the records it summarized and the tokens it saved, its summary the detail; or only the results it trimmed. */
function compactionMarker(seq: number, compaction: CompactionPayload): TranscriptEntry {
  const trimmed = compaction.trimmed?.length ?? 0;
  const cut = trimmed === 0 ? "" : `, ${trimmed} tool result${trimmed === 1 ? "" : "s"} trimmed`;
  if (compaction.summary === "") return { seq, kind: "marker", text: `── compacted: ${trimmed} tool result${trimmed === 1 ? "" : "s"} trimmed ──` };
  const text = `── compacted: records ${compaction.from_seq} to ${compaction.through_seq} summarized (${compaction.tokens_before} → ${compaction.tokens_after} tokens${cut}) ──`;
  return { seq, kind: "marker", text, detail: compaction.summary };
}
