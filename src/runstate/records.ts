// The journal's record kinds (SPEC section 2). Identifiers and field names are the
// ones the Go implementation writes in its version 2 journals, so a journal moves
// between the two unchanged. The zod schemas here are the code's own validation and
// the source the shipped JSON Schema files are generated from.
import * as z from "zod";

/** The record format version stamped in `meta.version`. */
export const RECORD_VERSION = 2;

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

const count = z.int().min(0);

// Content blocks are stored verbatim as the provider returned them, so fields this
// version does not know (citations, cache markers from elsewhere) are kept, not refused.
const TextBlock = z.looseObject({ type: z.literal("text"), text: z.string() });
const ThinkingBlock = z.looseObject({
  type: z.literal("thinking"),
  thinking: z.string(),
  signature: z.string(),
});
const RedactedThinkingBlock = z.looseObject({ type: z.literal("redacted_thinking"), data: z.string() });
const ToolUseBlock = z.looseObject({
  type: z.literal("tool_use"),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.record(z.string(), z.unknown()),
});
const ImageBlock = z.looseObject({ type: z.literal("image"), source: z.record(z.string(), z.unknown()) });
const ToolResultBlock = z.looseObject({
  type: z.literal("tool_result"),
  tool_use_id: z.string().min(1),
  content: z.union([z.string(), z.array(z.discriminatedUnion("type", [TextBlock, ImageBlock]))]),
  is_error: z.boolean().optional(),
});

// Tools the API runs itself (tool search, web search, code execution): the call and its
// result both come back in the assistant turn, so they need no tool_result from us.
const ServerToolUseBlock = z.looseObject({
  type: z.literal("server_tool_use"),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.record(z.string(), z.unknown()),
});
const ServerToolResultBlock = z.looseObject({
  type: z.string().regex(/^[a-z0-9_]+_tool_result$/),
  tool_use_id: z.string().min(1),
});

const MODELLED_TYPES = ["text", "thinking", "redacted_thinking", "tool_use", "server_tool_use", "image", "tool_result"];
// Any other block (a type the API adds next) is kept as it came and sent back as it came.
// The pattern, not a refinement, so the JSON Schema files say the same.
const OTHER_TYPE = new RegExp(`^(?!(${MODELLED_TYPES.join("|")})$)(?![a-z0-9_]+_tool_result$).+$`);
const OtherBlock = z.looseObject({ type: z.string().regex(OTHER_TYPE) });

// Typed as the hand-written message types below: zod would type an unmodelled block as
// any object with a string type, which swallows the modelled ones when narrowing.
const AssistantMessage = z.strictObject({
  role: z.literal("assistant"),
  content: z.array(
    z.union([
      z.discriminatedUnion("type", [TextBlock, ThinkingBlock, RedactedThinkingBlock, ToolUseBlock, ServerToolUseBlock]),
      ServerToolResultBlock,
      OtherBlock,
    ]),
  ),
}) as unknown as z.ZodType<AssistantMessage>;
const UserMessage = z.strictObject({
  role: z.literal("user"),
  content: z.array(z.union([z.discriminatedUnion("type", [TextBlock, ImageBlock, ToolResultBlock]), OtherBlock])),
}) as unknown as z.ZodType<UserMessage>;

const Fingerprint = z.strictObject({
  // Absent in version 1 journals and in the Go implementation's: it means anthropic.
  provider: z.string().min(1).optional(),
  model: z.string(),
  system_hash: z.string(),
  tools_hash: z.string(),
  thinking_mode: z.string(),
  max_tokens: count,
  max_iterations: count,
  // Written only by runs with MCP servers: each server's tools hashed apart, to name the one that changed.
  mcp_tools_hashes: z.record(z.string(), z.string()).optional(),
});

const MetaPayload = z.strictObject({
  version: z.int().min(1),
  run_id: z.string().regex(RUN_ID_PATTERN).max(RUN_ID_MAX_LENGTH),
  created: z.iso.datetime({ offset: true }),
  fingerprint: Fingerprint,
  prompt: z.string(),
  interactive: z.boolean().optional(),
  // Where the run started, so a resume from elsewhere runs its tools in the same place and
  // finds its agent.yaml. Optional: older journals and other writers leave them out.
  cwd: z.string().min(1).optional(),
  config: z.string().min(1).optional(),
});

const AssistantPayload = z.strictObject({
  iteration: count,
  message: AssistantMessage,
  stop_reason: z.string().optional(),
  in_tokens: count,
  out_tokens: count,
  cache_read_tokens: count.optional(),
  cache_create_tokens: count.optional(),
});

const ToolResultPayload = z.strictObject({
  tool_use_id: z.string().min(1),
  result: ToolResultBlock,
  remote: z.boolean().optional(),
});

const UserPayload = z.strictObject({ message: UserMessage });

export const TERMINAL_REASONS = ["completed", "suspended", "error", "budget", "max_iterations"] as const;
const TerminalPayload = z.strictObject({
  reason: z.enum(TERMINAL_REASONS),
  message: z.string().optional(),
});

const seq = z.int().min(1);

export const RECORD_SCHEMAS = {
  meta: z.strictObject({ seq: z.literal(1), protocol: z.literal(PROTOCOLS.meta), meta: MetaPayload }),
  assistant: z.strictObject({ seq, protocol: z.literal(PROTOCOLS.assistant), assistant: AssistantPayload }),
  tool_result: z.strictObject({ seq, protocol: z.literal(PROTOCOLS.tool_result), tool_result: ToolResultPayload }),
  user: z.strictObject({ seq, protocol: z.literal(PROTOCOLS.user), user: UserPayload }),
  terminal: z.strictObject({ seq, protocol: z.literal(PROTOCOLS.terminal), terminal: TerminalPayload }),
} as const;

/** What every record shares, whatever its kind. */
const PROTOCOL_PATTERN = new RegExp(`^${NAMESPACE.replaceAll(".", "\\.")}\\.[a-z_]+$`);
export const ENVELOPE_SCHEMA = z.looseObject({ seq, protocol: z.string().regex(PROTOCOL_PATTERN) });


export type TextBlock = z.infer<typeof TextBlock>;
export type ThinkingBlock = z.infer<typeof ThinkingBlock>;
export type RedactedThinkingBlock = z.infer<typeof RedactedThinkingBlock>;
export type ToolUseBlock = z.infer<typeof ToolUseBlock>;
export type ImageBlock = z.infer<typeof ImageBlock>;
export type ToolResultBlock = z.infer<typeof ToolResultBlock>;
export type ServerToolUseBlock = z.infer<typeof ServerToolUseBlock>;
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
export type Fingerprint = z.infer<typeof Fingerprint>;
export type MetaPayload = z.infer<typeof MetaPayload>;
export type AssistantPayload = z.infer<typeof AssistantPayload>;
export type ToolResultPayload = z.infer<typeof ToolResultPayload>;
export type UserPayload = z.infer<typeof UserPayload>;
export type TerminalReason = (typeof TERMINAL_REASONS)[number];
export type TerminalPayload = z.infer<typeof TerminalPayload>;

export type MetaRecord = z.infer<typeof RECORD_SCHEMAS.meta>;
export type AssistantRecord = z.infer<typeof RECORD_SCHEMAS.assistant>;
export type ToolResultRecord = z.infer<typeof RECORD_SCHEMAS.tool_result>;
export type UserRecord = z.infer<typeof RECORD_SCHEMAS.user>;
export type TerminalRecord = z.infer<typeof RECORD_SCHEMAS.terminal>;
export type JournalRecord = z.infer<(typeof RECORD_SCHEMAS)[RecordKind]>;

/** A record as handed to `Journal.append`: the journal supplies the seq. */
export type RecordEntry = JournalRecord extends infer R ? (R extends JournalRecord ? Omit<R, "seq"> : never) : never;

/** The protocol id of each kind, and the payload key it carries, are the same word. */
export function kindOfProtocol(protocol: unknown): RecordKind | undefined {
  if (typeof protocol !== "string" || !protocol.startsWith(`${NAMESPACE}.`)) return undefined;
  const kind = protocol.slice(NAMESPACE.length + 1);
  return (RECORD_KINDS as string[]).includes(kind) ? (kind as RecordKind) : undefined;
}

export type RecordCheck = { ok: true; record: JournalRecord } | { ok: false; problem: string };

/**
 * Validates one decoded record. The problem names the first offending field so a
 * corruption report can say what is wrong, not just where.
 */
export function checkRecord(value: unknown): RecordCheck {
  const kind = typeof value === "object" && value !== null ? kindOfProtocol((value as { protocol?: unknown }).protocol) : undefined;
  if (kind === undefined) {
    // Only to say what is wrong: the envelope names a bad seq or protocol better.
    const envelope = ENVELOPE_SCHEMA.safeParse(value);
    if (!envelope.success) return { ok: false, problem: describeIssue(envelope.error) };
    return { ok: false, problem: `unknown protocol ${JSON.stringify(envelope.data.protocol)}` };
  }
  const parsed = RECORD_SCHEMAS[kind].safeParse(value);
  if (!parsed.success) return { ok: false, problem: describeIssue(parsed.error) };
  // zod returns a copy; the caller keeps the value as read so it stays verbatim.
  return { ok: true, record: value as JournalRecord };
}

/** The record an entry makes at `seq`, validated. An entry that carries a seq of its own must agree. */
export function recordAt(seq: number, entry: RecordEntry): RecordCheck {
  const { seq: own, ...rest } = entry as RecordEntry & { seq?: unknown };
  if (own !== undefined && own !== seq) return { ok: false, problem: `the entry says seq ${String(own)}` };
  return checkRecord({ seq, ...rest });
}

function describeIssue(error: z.ZodError): string {
  let issue = error.issues[0];
  // A block of a modelled type that is malformed fails every branch of its union: the
  // modelled branch (the first) names what is wrong with it.
  while (issue?.code === "invalid_union" && issue.errors[0]?.[0] !== undefined) {
    const inner: z.core.$ZodIssue = issue.errors[0][0];
    issue = { ...inner, path: [...issue.path, ...inner.path] };
  }
  if (issue === undefined) return "invalid record";
  const path = issue.path.length > 0 ? issue.path.join(".") : "record";
  return `${path}: ${issue.message}`;
}
