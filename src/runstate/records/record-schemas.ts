// The zod schemas of the journal's records (docs/backends.md, Records): the code's own validation
// and the source the shipped JSON Schema files are generated from. Loaded only when a
// record is checked (see recordSchemas in records.ts): zod costs more to load than node
// takes to start, and `--help` or a `session ls` from its cache checks no record.
import * as z from "zod";
import {
  APPROVAL_KINDS,
  COMPACTION_TRIGGERS,
  DECISIONS,
  kindOfProtocol,
  MODELLED_TYPES,
  ORIGIN_KINDS,
  PROTOCOL_PATTERN,
  PROTOCOLS,
  RUN_ID_MAX_LENGTH,
  RUN_ID_PATTERN,
  TERMINAL_REASONS,
  TITLE_MAX_LENGTH,
  type RecordKind,
} from "./record-format.js";
import type * as T from "./record-types.js";

/**
 * A schema checked at compile time against its documented type (record-types.ts), both
 * ways: what it accepts is that type, and that type is what it accepts, so the two
 * cannot drift apart.
 */
function exactly<Doc>() {
  return <S extends z.ZodType<Doc>>(schema: S & (Doc extends z.output<S> ? unknown : never)): S => schema;
}

const count = z.int().min(0);
/** A moment, RFC 3339 with its offset: what every time in a record is. */
const instant = z.iso.datetime({ offset: true });

// Content blocks are stored verbatim as the provider returned them, so fields this
// version does not know (citations, cache markers from elsewhere) are kept, not refused.
const TextBlock = exactly<T.TextBlock>()(z.looseObject({ type: z.literal("text"), text: z.string() }));
const ThinkingBlock = exactly<T.ThinkingBlock>()(
  z.looseObject({
    type: z.literal("thinking"),
    thinking: z.string(),
    signature: z.string(),
  }),
);
const RedactedThinkingBlock = exactly<T.RedactedThinkingBlock>()(z.looseObject({ type: z.literal("redacted_thinking"), data: z.string() }));
const ToolUseBlock = exactly<T.ToolUseBlock>()(
  z.looseObject({
    type: z.literal("tool_use"),
    id: z.string().min(1),
    name: z.string().min(1),
    input: z.record(z.string(), z.unknown()),
  }),
);
const ImageBlock = exactly<T.ImageBlock>()(z.looseObject({ type: z.literal("image"), source: z.record(z.string(), z.unknown()) }));
const ToolResultBlock = exactly<T.ToolResultBlock>()(
  z.looseObject({
    type: z.literal("tool_result"),
    tool_use_id: z.string().min(1),
    content: z.union([z.string(), z.array(z.discriminatedUnion("type", [TextBlock, ImageBlock]))]),
    is_error: z.boolean().exactOptional(),
  }),
);

// Tools the API runs itself (tool search, web search, code execution): the call and its
// result both come back in the assistant turn, so they need no tool_result from us.
const ServerToolUseBlock = exactly<T.ServerToolUseBlock>()(
  z.looseObject({
    type: z.literal("server_tool_use"),
    id: z.string().min(1),
    name: z.string().min(1),
    input: z.record(z.string(), z.unknown()),
  }),
);
const ServerToolResultBlock = z.looseObject({
  type: z.string().regex(/^[a-z0-9_]+_tool_result$/),
  tool_use_id: z.string().min(1),
});

// Any other block (a type the API adds next) is kept as it came and sent back as it came.
// The pattern, not a refinement, so the JSON Schema files say the same.
const OTHER_TYPE = new RegExp(`^(?!(${MODELLED_TYPES.join("|")})$)(?![a-z0-9_]+_tool_result$).+$`);
const OtherBlock = z.looseObject({ type: z.string().regex(OTHER_TYPE) });

const AssistantBlock = z.union([
  z.discriminatedUnion("type", [TextBlock, ThinkingBlock, RedactedThinkingBlock, ToolUseBlock, ServerToolUseBlock]),
  ServerToolResultBlock,
  OtherBlock,
]);
const UserBlock = z.union([z.discriminatedUnion("type", [TextBlock, ImageBlock, ToolResultBlock]), OtherBlock]);

// Version 3's blocks, the Go implementation's provider-neutral shape, as its journal holds
// them: record-v3.ts reads each into one of the blocks above, which the code then checks.
// Here they describe the stored lines, for the JSON Schema files (storedRecordSchemas).
const V3_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const V3Text = z.strictObject({ text: z.looseObject({ text: z.string() }) });
const V3Thinking = z.strictObject({ thinking: z.looseObject({ text: z.string().exactOptional(), signature: z.string().regex(V3_BASE64).exactOptional() }) });
const V3ToolUse = z.strictObject({
  tool_use: z.looseObject({ id: z.string().min(1), name: z.string().min(1), input: z.record(z.string(), z.unknown()) }),
});
const V3ToolResultBody = z.looseObject({ tool_use_id: z.string().min(1), content: z.string(), is_error: z.boolean().exactOptional() });
const V3ToolResult = z.strictObject({ tool_result: V3ToolResultBody });
/** A block of the provider's own, `raw` as it sent it; its `kind` is the raw block's type. */
const v3Provider = (raw: z.ZodType) => z.strictObject({ provider: z.strictObject({ kind: z.string().min(1), raw }) });

const Fingerprint = exactly<T.Fingerprint>()(
  z.strictObject({
    // Absent in version 1 journals and in the Go implementation's: it means anthropic.
    provider: z.string().min(1).exactOptional(),
    model: z.string(),
    system_hash: z.string(),
    tools_hash: z.string(),
    thinking_mode: z.string(),
    max_tokens: count,
    max_iterations: count,
    // Written only by runs with MCP servers: each server's tools hashed apart, to name the one that changed.
    mcp_tools_hashes: z.record(z.string(), z.string()).exactOptional(),
  }),
);

const ParentLink = exactly<T.ParentLink>()(
  z.strictObject({
    run_id: z.string().regex(RUN_ID_PATTERN).max(RUN_ID_MAX_LENGTH),
    call_id: z.string().min(1),
    depth: z.int().min(1),
  }),
);

const RecordSignature = exactly<T.RecordSignature>()(
  z.strictObject({
    key_id: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/),
    hmac_sha256: z.string().regex(/^[A-Za-z0-9_-]{43}$/),
  }),
);

const MetaPayload = exactly<T.MetaPayload>()(
  z.strictObject({
    version: z.int().min(1),
    run_id: z.string().regex(RUN_ID_PATTERN).max(RUN_ID_MAX_LENGTH),
    created: z.iso.datetime({ offset: true }),
    fingerprint: Fingerprint,
    prompt: z.string(),
    interactive: z.boolean().exactOptional(),
    // Where the run started, so a resume from elsewhere runs its tools in the same place and
    // finds its agent.yaml. Optional: older journals and other writers leave them out.
    cwd: z.string().min(1).exactOptional(),
    config: z.string().min(1).exactOptional(),
    // Only a child session's meta has it, and that meta is version 5, which older readers refuse.
    parent: ParentLink.exactOptional(),
    // A shared service's tenant (docs/server.md#keys-and-tenants); absent for the default tenant.
    tenant: z.string().min(1).exactOptional(),
    signature: RecordSignature.exactOptional(),
  }),
);

const TerminalPayload = exactly<T.TerminalPayload>()(
  z.strictObject({
    reason: z.enum(TERMINAL_REASONS),
    message: z.string().exactOptional(),
  }),
);

const seq = z.int().min(1);

const TrimmedResult = exactly<T.TrimmedResult>()(
  z.strictObject({
    tool_use_id: z.string().min(1),
    kept_chars: count,
    cut_chars: z.int().min(1),
  }),
);

const CompactionPayload = exactly<T.CompactionPayload>()(
  z.strictObject({
    from_seq: seq,
    through_seq: count,
    summary: z.string(),
    model: z.string().min(1),
    trigger: z.enum(COMPACTION_TRIGGERS),
    tokens_before: count,
    tokens_after: count,
    in_tokens: count,
    out_tokens: count,
    trimmed: z.array(TrimmedResult).min(1).exactOptional(),
    started_at: instant.exactOptional(),
    ended_at: instant.exactOptional(),
  }),
);

const CompactionUndoPayload = exactly<T.CompactionUndoPayload>()(z.strictObject({ compaction_seq: seq }));

const ApprovalRequestPayload = exactly<T.ApprovalRequestPayload>()(
  z.strictObject({
    tool_use_id: z.string().min(1),
    name: z.string().min(1),
    input: z.record(z.string(), z.unknown()),
    kind: z.enum(APPROVAL_KINDS),
    requested_at: z.iso.datetime({ offset: true }),
  }),
);

const ResumedPayload = exactly<T.ResumedPayload>()(z.strictObject({ resumed_at: z.iso.datetime({ offset: true }) }));

const ApprovalDecisionPayload = exactly<T.ApprovalDecisionPayload>()(
  z.strictObject({
    tool_use_id: z.string().min(1),
    decision: z.enum(DECISIONS),
    text: z.string().exactOptional(),
    decided_by: z.string().min(1),
    decided_at: z.iso.datetime({ offset: true }),
    signature: RecordSignature.exactOptional(),
  }),
);

const TitlePayload = exactly<T.TitlePayload>()(
  z.strictObject({
    // One line: a title is what a listing shows on one.
    title: z
      .string()
      .min(1)
      .max(TITLE_MAX_LENGTH)
      .regex(/^[^\n\r]*$/, "one line"),
  }),
);

const OriginPayload = exactly<T.OriginPayload>()(
  z.strictObject({
    run_id: z.string().regex(RUN_ID_PATTERN).max(RUN_ID_MAX_LENGTH),
    through_seq: seq,
    kind: z.enum(ORIGIN_KINDS),
  }),
);

const MovedPayload = exactly<T.MovedPayload>()(
  z.strictObject({
    to: z.string().min(1),
    moved_at: z.iso.datetime({ offset: true }),
  }),
);

const ImportedPayload = exactly<T.ImportedPayload>()(
  z.strictObject({
    by: z.string().min(1),
    file: z.string().min(1),
    imported_at: z.iso.datetime({ offset: true }),
  }),
);

/** The record kinds over the blocks their messages and tool results may hold. */
function recordSchemasOver(blocks: { assistant: z.ZodType; user: z.ZodType; toolResult: z.ZodType }) {
  // Typed as the hand-written message types below: zod would type an unmodelled block as
  // any object with a string type, which swallows the modelled ones when narrowing.
  const AssistantMessage = z.strictObject({ role: z.literal("assistant"), content: z.array(blocks.assistant) }) as unknown as z.ZodType<T.AssistantMessage>;
  const UserMessage = z.strictObject({ role: z.literal("user"), content: z.array(blocks.user) }) as unknown as z.ZodType<T.UserMessage>;
  const AssistantPayload = z.strictObject({
    iteration: count,
    message: AssistantMessage,
    stop_reason: z.string().exactOptional(),
    in_tokens: count,
    out_tokens: count,
    cache_read_tokens: count.exactOptional(),
    cache_create_tokens: count.exactOptional(),
    response_model: z.string().min(1).exactOptional(),
    started_at: instant.exactOptional(),
    ended_at: instant.exactOptional(),
  });
  const ToolResultPayload = z.strictObject({
    tool_use_id: z.string().min(1),
    result: blocks.toolResult as typeof ToolResultBlock,
    remote: z.boolean().exactOptional(),
    started_at: instant.exactOptional(),
    ended_at: instant.exactOptional(),
  });
  // The PartMark any record but the meta may carry.
  const part_started_at = instant.exactOptional();
  return {
    meta: z.strictObject({ seq: z.literal(1), protocol: z.literal(PROTOCOLS.meta), meta: MetaPayload }),
    assistant: z.strictObject({ seq, protocol: z.literal(PROTOCOLS.assistant), assistant: AssistantPayload, part_started_at }),
    tool_result: z.strictObject({ seq, protocol: z.literal(PROTOCOLS.tool_result), tool_result: ToolResultPayload, part_started_at }),
    user: z.strictObject({ seq, protocol: z.literal(PROTOCOLS.user), user: z.strictObject({ message: UserMessage }), part_started_at }),
    terminal: z.strictObject({ seq, protocol: z.literal(PROTOCOLS.terminal), terminal: TerminalPayload, part_started_at }),
    compaction: z.strictObject({ seq, protocol: z.literal(PROTOCOLS.compaction), compaction: CompactionPayload, part_started_at }),
    compaction_undo: z.strictObject({ seq, protocol: z.literal(PROTOCOLS.compaction_undo), compaction_undo: CompactionUndoPayload, part_started_at }),
    approval_request: z.strictObject({ seq, protocol: z.literal(PROTOCOLS.approval_request), approval_request: ApprovalRequestPayload, part_started_at }),
    approval_decision: z.strictObject({ seq, protocol: z.literal(PROTOCOLS.approval_decision), approval_decision: ApprovalDecisionPayload, part_started_at }),
    resumed: z.strictObject({ seq, protocol: z.literal(PROTOCOLS.resumed), resumed: ResumedPayload, part_started_at }),
    title: z.strictObject({ seq, protocol: z.literal(PROTOCOLS.title), title: TitlePayload, part_started_at }),
    origin: z.strictObject({ seq, protocol: z.literal(PROTOCOLS.origin), origin: OriginPayload, part_started_at }),
    moved: z.strictObject({ seq, protocol: z.literal(PROTOCOLS.moved), moved: MovedPayload, part_started_at }),
    imported: z.strictObject({ seq, protocol: z.literal(PROTOCOLS.imported), imported: ImportedPayload, part_started_at }),
  } as const;
}

/** The records the code works with: the blocks of versions 1 and 2, the Anthropic API's. */
export const RECORD_SCHEMAS = recordSchemasOver({ assistant: AssistantBlock, user: UserBlock, toolResult: ToolResultBlock }) satisfies {
  [K in RecordKind]: z.ZodType<Extract<T.JournalRecord, { protocol: (typeof PROTOCOLS)[K] }>>;
};

/** The records as journals store them, version 3's neutral blocks included: what the JSON Schema files describe. */
export function storedRecordSchemas(): typeof RECORD_SCHEMAS {
  return recordSchemasOver({
    assistant: z.union([AssistantBlock, V3Text, V3Thinking, V3ToolUse, v3Provider(AssistantBlock)]),
    user: z.union([UserBlock, V3Text, V3ToolResult, v3Provider(UserBlock)]),
    toolResult: z.union([ToolResultBlock, V3ToolResultBody]),
  });
}

/** What every record shares, whatever its kind. */
export const ENVELOPE_SCHEMA = z.looseObject({ seq, protocol: z.string().regex(PROTOCOL_PATTERN) });

/** Why a decoded record is not valid, naming the first offending field; undefined when it is. */
export function recordProblem(value: unknown): string | undefined {
  const kind = typeof value === "object" && value !== null ? kindOfProtocol((value as { protocol?: unknown }).protocol) : undefined;
  if (kind === undefined) {
    // Only to say what is wrong: the envelope names a bad seq or protocol better.
    const envelope = ENVELOPE_SCHEMA.safeParse(value);
    if (!envelope.success) return describeIssue(envelope.error);
    return `unknown protocol ${JSON.stringify(envelope.data.protocol)}`;
  }
  const parsed = RECORD_SCHEMAS[kind].safeParse(value);
  return parsed.success ? undefined : describeIssue(parsed.error);
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
