// The journal's records (docs/backends.md, Records), as the rest of the code sees them: their
// format (record-format.ts), their types, and the check of one record. Their zod schemas
// are in record-schemas.ts, loaded on the first record checked.
import { createRequire } from "node:module";
import type * as Schemas from "./record-schemas.js";
import type { JournalRecord } from "./record-types.js";

export {
  ANNOTATION_KINDS,
  APPROVAL_KINDS,
  CHILD_RECORD_VERSION,
  COMPACTION_TRIGGERS,
  DECISIONS,
  isOtherBlock,
  newerKindProblem,
  RECORD_KIND_SINCE,
  kindOfProtocol,
  MODELLED_TYPES,
  NEWEST_READABLE_VERSION,
  ORIGIN_KINDS,
  PROTOCOL_PATTERN,
  PROTOCOLS,
  RECORD_KINDS,
  RECORD_VERSION,
  RUN_ID_MAX_LENGTH,
  RUN_ID_PATTERN,
  TERMINAL_REASONS,
  TITLE_MAX_LENGTH,
  type ApprovalKind,
  type CompactionTrigger,
  type Decision,
  type OriginKind,
  type OtherBlock,
  type RecordKind,
  type TerminalReason,
} from "./record-format.js";
export type {
  ApprovalDecisionPayload,
  ApprovalDecisionRecord,
  ApprovalRequestPayload,
  ApprovalRequestRecord,
  CompactionPayload,
  CompactionRecord,
  CompactionUndoPayload,
  CompactionUndoRecord,
  ResumedPayload,
  ResumedRecord,
  TrimmedResult,
  AssistantMessage,
  AssistantPayload,
  AssistantRecord,
  Fingerprint,
  ImageBlock,
  ImportedPayload,
  ImportedRecord,
  JournalRecord,
  Message,
  MetaPayload,
  MetaRecord,
  OriginPayload,
  OriginRecord,
  ParentLink,
  PartMark,
  MovedPayload,
  MovedRecord,
  RecordSignature,
  RedactedThinkingBlock,
  ServerToolUseBlock,
  TerminalPayload,
  TerminalRecord,
  TextBlock,
  ThinkingBlock,
  TitlePayload,
  TitleRecord,
  ToolResultBlock,
  ToolResultPayload,
  ToolResultRecord,
  ToolUseBlock,
  UserMessage,
  UserPayload,
  UserRecord,
  MarkableRecord,
} from "./record-types.js";

/** A record as handed to `Journal.append`: the journal supplies the seq. */
export type RecordEntry = JournalRecord extends infer R ? (R extends JournalRecord ? Omit<R, "seq"> : never) : never;

/** The verdict on one record: the record, typed, or the problem with it, naming the first offending field. */
export type RecordCheck =
  | {
      /** The record is valid. */
      ok: true;
      /** The record, typed by its kind. */
      record: JournalRecord;
    }
  | {
      /** The record is not valid. */
      ok: false;
      /** What is wrong, naming the first offending field. */
      problem: string;
    };

let schemas: typeof Schemas | undefined;

/**
 * The record schemas, loaded on first use and synchronously, so checking stays a plain
 * call: require() of an ES module (Node 20.19 and later) shares the one zod instance
 * with every import of it. The CLI's bundle keeps ./record-schemas.js a file of its own
 * by that name (scripts/bundle-cli.mjs).
 */
function recordSchemas(): typeof Schemas {
  schemas ??= createRequire(import.meta.url)("./record-schemas.js") as typeof Schemas;
  return schemas;
}

/**
 * Validates one decoded record. The problem names the first offending field so a
 * corruption report can say what is wrong, not just where.
 */
export function checkRecord(value: unknown): RecordCheck {
  const problem = recordSchemas().recordProblem(value);
  // The caller keeps the value as read, so it stays verbatim.
  return problem === undefined ? { ok: true, record: value as JournalRecord } : { ok: false, problem };
}

/** The record an entry makes at `seq`, validated. An entry that carries a seq of its own must agree. */
export function recordAt(seq: number, entry: RecordEntry): RecordCheck {
  const { seq: own, ...rest } = entry as RecordEntry & { seq?: unknown };
  if (own !== undefined && own !== seq) return { ok: false, problem: `the entry says seq ${String(own)}` };
  return checkRecord({ seq, ...rest });
}
