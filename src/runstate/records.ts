// The journal's record kinds (SPEC section 2). Identifiers and field names are the
// ones the Go implementation writes in its version 2 journals, so a journal moves
// between the two unchanged. Their zod schemas are in record-schemas.ts, loaded on the
// first record checked.
import { createRequire } from "node:module";
import type * as Schemas from "./record-schemas.js";
import type {
  ImageBlock,
  JournalRecord,
  RedactedThinkingBlock,
  ServerToolUseBlock,
  TextBlock,
  ThinkingBlock,
  ToolResultBlock,
  ToolUseBlock,
} from "./record-schemas.js";

export type {
  AssistantPayload,
  AssistantRecord,
  Fingerprint,
  ImageBlock,
  JournalRecord,
  MetaPayload,
  MetaRecord,
  RedactedThinkingBlock,
  ServerToolUseBlock,
  TerminalPayload,
  TerminalRecord,
  TextBlock,
  ThinkingBlock,
  ToolResultBlock,
  ToolResultPayload,
  ToolResultRecord,
  ToolUseBlock,
  UserPayload,
  UserRecord,
} from "./record-schemas.js";

/** The record format version stamped in `meta.version`. */
export const RECORD_VERSION = 2;
/** The newest version read: 3 is the Go implementation's provider-neutral journal (record-v3.ts). */
export const NEWEST_READABLE_VERSION = 3;

const NAMESPACE = "io.choria.fisk-ai.v1.session";

export const PROTOCOLS = {
  meta: `${NAMESPACE}.meta`,
  assistant: `${NAMESPACE}.assistant`,
  tool_result: `${NAMESPACE}.tool_result`,
  user: `${NAMESPACE}.user`,
  terminal: `${NAMESPACE}.terminal`,
} as const;

export type RecordKind = keyof typeof PROTOCOLS;
export const RECORD_KINDS = Object.keys(PROTOCOLS) as RecordKind[];

/** Run ids: validated before an id touches a path or a subject. */
export const RUN_ID_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9_-]*$/;
export const RUN_ID_MAX_LENGTH = 128;

/** What every record's protocol looks like, whatever its kind. */
export const PROTOCOL_PATTERN = new RegExp(`^${NAMESPACE.replaceAll(".", "\\.")}\\.[a-z_]+$`);
export const TERMINAL_REASONS = ["completed", "suspended", "error", "budget", "max_iterations"] as const;
/** The block types the code models; any other is kept and sent back as it came. */
export const MODELLED_TYPES = ["text", "thinking", "redacted_thinking", "tool_use", "server_tool_use", "image", "tool_result"];

/**
 * A block the code does not model, or a server tool's result (`*_tool_result`). Its type is
 * branded so that `isOtherBlock` narrows: what is not one is a modelled block.
 */
export type OtherBlock = { type: string & { readonly otherBlock: unique symbol }; [field: string]: unknown };
export type AssistantMessage = {
  role: "assistant";
  content: (TextBlock | ThinkingBlock | RedactedThinkingBlock | ToolUseBlock | ServerToolUseBlock | OtherBlock)[];
};
export type UserMessage = { role: "user"; content: (TextBlock | ImageBlock | ToolResultBlock | OtherBlock)[] };

const MODELLED = new Set(MODELLED_TYPES);
export function isOtherBlock<B extends { type: string }>(block: B | OtherBlock): block is OtherBlock {
  return !MODELLED.has(block.type);
}
export type Message = AssistantMessage | UserMessage;
export type TerminalReason = (typeof TERMINAL_REASONS)[number];

/** A record as handed to `Journal.append`: the journal supplies the seq. */
export type RecordEntry = JournalRecord extends infer R ? (R extends JournalRecord ? Omit<R, "seq"> : never) : never;

/** The protocol id of each kind, and the payload key it carries, are the same word. */
export function kindOfProtocol(protocol: unknown): RecordKind | undefined {
  if (typeof protocol !== "string" || !protocol.startsWith(`${NAMESPACE}.`)) return undefined;
  const kind = protocol.slice(NAMESPACE.length + 1);
  return (RECORD_KINDS as string[]).includes(kind) ? (kind as RecordKind) : undefined;
}

export type RecordCheck = { ok: true; record: JournalRecord } | { ok: false; problem: string };

let schemas: typeof Schemas | undefined;

/**
 * The record schemas, loaded on first use and synchronously, so checking stays a plain
 * call: require() of an ES module (Node 20.19 and later) shares the one zod instance
 * with every import of it.
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
