// The journal's records as TypeScript types, each field documented where a reader of the
// API reference finds it. record-schemas.ts checks at compile time that its zod schemas
// accept exactly these shapes, so the two cannot drift apart.
import type { ApprovalKind, CompactionTrigger, Decision, OriginKind, OtherBlock, PROTOCOLS, TerminalReason } from "./record-format.js";

/** Text, from the model or the user. Blocks keep fields this version does not model (citations, cache markers) as they came. */
export interface TextBlock {
  /** The block's kind. */
  type: "text";
  /** The text itself. */
  text: string;
  [field: string]: unknown;
}

/** The model's visible reasoning, sent back with its signature on later turns. */
export interface ThinkingBlock {
  /** The block's kind. */
  type: "thinking";
  /** The reasoning text. */
  thinking: string;
  /** The provider's signature over it, which the API checks when the block is sent back. */
  signature: string;
  [field: string]: unknown;
}

/** Reasoning the provider returned encrypted, kept and sent back as it came. */
export interface RedactedThinkingBlock {
  /** The block's kind. */
  type: "redacted_thinking";
  /** The encrypted reasoning. */
  data: string;
  [field: string]: unknown;
}

/** A call of one of the run's tools, which a `tool_result` with its `id` answers. */
export interface ToolUseBlock {
  /** The block's kind. */
  type: "tool_use";
  /** The call's id, unique within the run. */
  id: string;
  /** The tool's name. */
  name: string;
  /** The arguments, an object that the tool's input schema describes. */
  input: Record<string, unknown>;
  [field: string]: unknown;
}

/** A call of a tool the API runs itself (web search, code execution): its result comes back in the same turn. */
export interface ServerToolUseBlock {
  /** The block's kind. */
  type: "server_tool_use";
  /** The call's id. */
  id: string;
  /** The server tool's name. */
  name: string;
  /** The arguments. */
  input: Record<string, unknown>;
  [field: string]: unknown;
}

/** An image, in a user message or a tool result. */
export interface ImageBlock {
  /** The block's kind. */
  type: "image";
  /** Where the image is: `{ type: "base64", media_type, data }` as the Anthropic API takes it. */
  source: Record<string, unknown>;
  [field: string]: unknown;
}

/** The answer to a `tool_use`, sent to the model in the next user message. */
export interface ToolResultBlock {
  /** The block's kind. */
  type: "tool_result";
  /** The `id` of the call it answers. */
  tool_use_id: string;
  /** What the tool returned: text, or text and image blocks. */
  content: string | (TextBlock | ImageBlock)[];
  /** Set when the call failed; the content then says why. */
  is_error?: boolean;
  [field: string]: unknown;
}

/** A model turn: the blocks it returned, in order. */
export interface AssistantMessage {
  /** Always `assistant`. */
  role: "assistant";
  /** Text, thinking, tool calls, and blocks of types this version does not model, as they came. */
  content: (TextBlock | ThinkingBlock | RedactedThinkingBlock | ToolUseBlock | ServerToolUseBlock | OtherBlock)[];
}

/** What the model is sent as the user: a prompt, a follow-up, or the results of a turn's tool calls. */
export interface UserMessage {
  /** Always `user`. */
  role: "user";
  /** Text, images and tool results. */
  content: (TextBlock | ImageBlock | ToolResultBlock | OtherBlock)[];
}

/** One message of the conversation the model sees. */
export type Message = AssistantMessage | UserMessage;

/**
 * What a run was started with, compared on resume: a resume under another configuration
 * is refused unless forced (and never across providers).
 */
export interface Fingerprint {
  /** The provider's name; absent in version 1 journals and the Go implementation's, where it means anthropic. */
  provider?: string;
  /** The model's name. */
  model: string;
  /** SHA-256, hex, of the system prompt. */
  system_hash: string;
  /** SHA-256, hex, of the tools the model is offered. */
  tools_hash: string;
  /** `off`, `enabled` or `adaptive`. */
  thinking_mode: string;
  /** The run's token budget. */
  max_tokens: number;
  /** The model calls allowed per prompt. */
  max_iterations: number;
  /** Each MCP server's tools hashed apart, by server name, so a refusal names the server that changed; only runs with MCP servers write it. */
  mcp_tools_hashes?: Record<string, string>;
}

/** The first record of every journal: which run it is and what it was started with. */
export interface MetaPayload {
  /** The record version the journal is written in. */
  version: number;
  /** The run's id, its session id. */
  run_id: string;
  /** When the run was created, RFC 3339. */
  created: string;
  /** The configuration a resume is compared against. */
  fingerprint: Fingerprint;
  /** The prompt the run started with. */
  prompt: string;
  /** Set for a chat, which asks for a follow-up after each answer. */
  interactive?: boolean;
  /** The directory the run started in, where a resume runs its tools; absent in older journals. */
  cwd?: string;
  /** The agent.yaml the run started with, which a resume without one uses; absent in older journals. */
  config?: string;
  /** Set only on a child session (version 5, CHILD_RECORD_VERSION): the parent session and its tool call that started it. */
  parent?: ParentLink;
  /**
   * The tenant a shared service runs the session for (docs/server.md#keys-and-tenants);
   * absent for the default tenant. Signed with the rest of the meta.
   */
  tenant?: string;
  /** The installation's signature over every other field of the meta, made when the session started (docs/security.md). */
  signature?: RecordSignature;
}

/** An HMAC-SHA256 signature over a record's RFC 8785 encoding, with the id of the key that made it (docs/security.md). */
export interface RecordSignature {
  /** The key's id in the signer's keyring. */
  key_id: string;
  /** The HMAC-SHA256, base64url without padding. */
  hmac_sha256: string;
}

/** Where a child session comes from: the session and the tool call of it that started the child. */
export interface ParentLink {
  /** The parent session's id. */
  run_id: string;
  /** The id of the tool call (`tool_use` block) in the parent that started this child. */
  call_id: string;
  /** How deep the child is: 1 for a child of a top-level session. */
  depth: number;
}

/** A model turn as journaled, before any of its tools run. */
export interface AssistantPayload {
  /** The model call's number in the run, from 0. */
  iteration: number;
  /** The turn the model returned. */
  message: AssistantMessage;
  /** Why the model stopped: `end_turn`, `tool_use`, `max_tokens`, `pause_turn`, ... */
  stop_reason?: string;
  /** Input tokens of the call, neither read from nor written to the prompt cache. */
  in_tokens: number;
  /** Output tokens of the call. */
  out_tokens: number;
  /** Input tokens read from the prompt cache. */
  cache_read_tokens?: number;
  /** Input tokens written to the prompt cache. */
  cache_create_tokens?: number;
  /** The model that answered, as the provider's API named it; absent when it did not say, and from journals written before it was recorded. */
  response_model?: string;
  /** When the call was sent (its first attempt), RFC 3339; absent from journals written before it was recorded. */
  started_at?: string;
  /** When its answer came back, RFC 3339. */
  ended_at?: string;
}

/** One tool's result, journaled the moment the tool finishes. */
export interface ToolResultPayload {
  /** The `id` of the call it answers. */
  tool_use_id: string;
  /** The result as the model will be sent it. */
  result: ToolResultBlock;
  /** Set for a call an MCP server answered. */
  remote?: boolean;
  /** When the tool started, RFC 3339; absent for a result no tool produced (denied, interrupted) and from older journals. */
  started_at?: string;
  /** When it finished, RFC 3339. */
  ended_at?: string;
}

/** A user message: the prompt of a follow-up, sent to the model after the records before it. */
export interface UserPayload {
  /** The message. */
  message: UserMessage;
}

/** How a run stopped; a record after it reopens the run. */
export interface TerminalPayload {
  /** `completed`, or why the run stopped. */
  reason: TerminalReason;
  /** What went wrong, for the reasons other than `completed`. */
  message?: string;
}

/** A tool result a compaction cut short in what the model is sent, so that the kept part of the conversation fits the window. */
export interface TrimmedResult {
  /** The call whose result was cut. */
  tool_use_id: string;
  /** The characters of the result's text kept, from its start; the rest is replaced by a marker saying how much was cut. */
  kept_chars: number;
  /** The characters cut. */
  cut_chars: number;
}

/**
 * A summary of the conversation up to `through_seq`, which replaces it in what the model is
 * sent: the model sees the summary, then every message after the cut. The records it
 * replaces stay in the journal, so a `compaction_undo` brings them back.
 */
export interface CompactionPayload {
  /** The first record this compaction summarizes that no compaction in effect before it did: 1, or the earlier cut plus one. */
  from_seq: number;
  /**
   * The last record the summary covers: the model is sent the summary, then the messages of
   * the records after it. Equal to the earlier cut (0 when there is none) when the record
   * only trims tool results, and then `summary` is empty.
   */
  through_seq: number;
  /** The summary, which the model reads as the start of the conversation. */
  summary: string;
  /** The model that wrote the summary. */
  model: string;
  /** What started it. */
  trigger: CompactionTrigger;
  /** The estimated tokens of the conversation the model was sent before it. */
  tokens_before: number;
  /** The estimated tokens after it. */
  tokens_after: number;
  /** Input tokens of the summarizing call (0 when the record only trims). */
  in_tokens: number;
  /** Output tokens of the summarizing call. */
  out_tokens: number;
  /** Tool results of the kept messages cut short, oldest first, when the summary alone did not make the conversation fit. */
  trimmed?: TrimmedResult[];
  /** When the compaction began (its summarizing call was sent), RFC 3339; absent from journals written before it was recorded. */
  started_at?: string;
  /** When it was journaled, RFC 3339. */
  ended_at?: string;
}

/** Reverts the latest compaction still in effect: the model is sent what it was sent before that compaction. */
export interface CompactionUndoPayload {
  /** The seq of the compaction record it reverts. */
  compaction_seq: number;
}

/** A call of the pending batch that waits for a person's decision before it may run. */
export interface ApprovalRequestPayload {
  /** The call's id, in the assistant record of the pending batch. */
  tool_use_id: string;
  /** The tool's name. */
  name: string;
  /** The input as the model sent it: what an approval approves, and exactly what then runs. */
  input: Record<string, unknown>;
  /** An approval of a tool call, or a question (`ask_user`) waiting for an answer. */
  kind: ApprovalKind;
  /** When the run parked on it, RFC 3339. */
  requested_at: string;
}

/** A person's decision on one call of the pending batch; a call is decided at most once. */
export interface ApprovalDecisionPayload {
  /** The call it decides. */
  tool_use_id: string;
  /** `approve` runs the call with its journaled input, `deny` answers the model with an error, `answer` answers a question. */
  decision: Decision;
  /** Why a call was denied, which the model is told; for `answer`, the answer. */
  text?: string;
  /** Who or what decided: `terminal`, `timeout`, or the user and host that ran the command. */
  decided_by: string;
  /** When, RFC 3339. */
  decided_at: string;
  /** The decider's signature over the call (run, id, tool, input) and this decision: an approval or an answer counts only when it verifies. */
  signature?: RecordSignature;
}

/**
 * Written by a resume that takes up a batch at rest under a terminal record (it parked, or
 * stopped at its budget) before it runs any call of it whose tool's crash policy is not
 * `rerun`: a later resume then knows calls of the batch may have started, and applies
 * their tools' crash policy.
 */
export interface ResumedPayload {
  /** When, RFC 3339. */
  resumed_at: string;
}

/** A name for the session, given by `run --title` or `session rename`: the latest one is the session's title. */
export interface TitlePayload {
  /** The title: one line, 1 to TITLE_MAX_LENGTH characters. */
  title: string;
}

/**
 * Where the records before this one came from: a fork or a renamed import copies another
 * session's records, and the ledger counts them once, in that session.
 */
export interface OriginPayload {
  /** The session the records were copied from. */
  run_id: string;
  /** The last seq copied: always the seq just before this record's. */
  through_seq: number;
  /** `fork`, `import`, or `replay`: the records of a recording a replay departed from, then the new agent's turn. */
  kind: OriginKind;
}

/**
 * The session was moved to another store (`session mv`): it goes on there, not here. The
 * move counts once `to` holds the session; until then (a move cut short) this copy still
 * resumes, and a record after this one, of a kind that takes the run further, cancels it.
 */
export interface MovedPayload {
  /** Where it went: a `nats://HOST:PORT/STREAM` URL, or the absolute directory of a file store. */
  to: string;
  /** When, RFC 3339. */
  moved_at: string;
}

/**
 * The session came into this store by `session import` of a file: who imported it, from
 * where and when. A session so marked whose meta does not verify here is foreign (docs/security.md).
 */
export interface ImportedPayload {
  /** The user and host that ran the import. */
  by: string;
  /** The file it was imported from, as given (`-` for standard input). */
  file: string;
  /** When, RFC 3339. */
  imported_at: string;
}

/** Seq 1 of every journal. */
export interface MetaRecord {
  /** Always 1. */
  seq: 1;
  /** The meta record's protocol id. */
  protocol: typeof PROTOCOLS.meta;
  /** What the run is. */
  meta: MetaPayload;
}

/** A model turn. */
export interface AssistantRecord {
  /** Its place in the journal, from 1, one more than the record before it. */
  seq: number;
  /** The assistant record's protocol id. */
  protocol: typeof PROTOCOLS.assistant;
  /** The turn. */
  assistant: AssistantPayload;
}

/** One tool's result. */
export interface ToolResultRecord {
  /** Its place in the journal, from 1, one more than the record before it. */
  seq: number;
  /** The tool_result record's protocol id. */
  protocol: typeof PROTOCOLS.tool_result;
  /** The result. */
  tool_result: ToolResultPayload;
}

/** A follow-up prompt. */
export interface UserRecord {
  /** Its place in the journal, from 1, one more than the record before it. */
  seq: number;
  /** The user record's protocol id. */
  protocol: typeof PROTOCOLS.user;
  /** The message. */
  user: UserPayload;
}

/** How the run stopped. */
export interface TerminalRecord {
  /** Its place in the journal, from 1, one more than the record before it. */
  seq: number;
  /** The terminal record's protocol id. */
  protocol: typeof PROTOCOLS.terminal;
  /** Why. */
  terminal: TerminalPayload;
}

/** A compaction (version 4). */
export interface CompactionRecord {
  /** Its place in the journal, from 1, one more than the record before it. */
  seq: number;
  /** The compaction record's protocol id. */
  protocol: typeof PROTOCOLS.compaction;
  /** The summary and what it replaces. */
  compaction: CompactionPayload;
}

/** The undoing of a compaction (version 4). */
export interface CompactionUndoRecord {
  /** Its place in the journal, from 1, one more than the record before it. */
  seq: number;
  /** The compaction_undo record's protocol id. */
  protocol: typeof PROTOCOLS.compaction_undo;
  /** Which compaction. */
  compaction_undo: CompactionUndoPayload;
}

/** A call waiting for a decision (version 4). */
export interface ApprovalRequestRecord {
  /** Its place in the journal, from 1, one more than the record before it. */
  seq: number;
  /** The approval_request record's protocol id. */
  protocol: typeof PROTOCOLS.approval_request;
  /** The call. */
  approval_request: ApprovalRequestPayload;
}

/** A decision on a waiting call (version 4). */
export interface ApprovalDecisionRecord {
  /** Its place in the journal, from 1, one more than the record before it. */
  seq: number;
  /** The approval_decision record's protocol id. */
  protocol: typeof PROTOCOLS.approval_decision;
  /** The decision. */
  approval_decision: ApprovalDecisionPayload;
}

/** A resume taking up a batch at rest (version 4). */
export interface ResumedRecord {
  /** Its place in the journal, from 1, one more than the record before it. */
  seq: number;
  /** The resumed record's protocol id. */
  protocol: typeof PROTOCOLS.resumed;
  /** When. */
  resumed: ResumedPayload;
}

/** A title given to the session (version 4). */
export interface TitleRecord {
  /** Its place in the journal, from 1, one more than the record before it. */
  seq: number;
  /** The title record's protocol id. */
  protocol: typeof PROTOCOLS.title;
  /** The title. */
  title: TitlePayload;
}

/** Where the copied records before it came from (version 4). */
export interface OriginRecord {
  /** Its place in the journal, from 1, one more than the record before it. */
  seq: number;
  /** The origin record's protocol id. */
  protocol: typeof PROTOCOLS.origin;
  /** The session copied. */
  origin: OriginPayload;
}

/** The session was imported (version 4). */
export interface ImportedRecord {
  /** Its place in the journal, from 1, one more than the record before it. */
  seq: number;
  /** The imported record's protocol id. */
  protocol: typeof PROTOCOLS.imported;
  /** Who imported it, from what file, when. */
  imported: ImportedPayload;
}

/** Where the session went (version 4). */
export interface MovedRecord {
  /** Its place in the journal, from 1, one more than the record before it. */
  seq: number;
  /** The moved record's protocol id. */
  protocol: typeof PROTOCOLS.moved;
  /** The store it went to. */
  moved: MovedPayload;
}

/**
 * What a record of any kind but the meta may carry beside its payload, an optional field
 * under the version rule (docs/backends.md): a version 3 journal, the Go implementation's,
 * does not get it.
 */
export interface PartMark {
  /**
   * Set on the first record a resumed run journals: when the process that resumed it took
   * it up, RFC 3339. It says where one process's part of the run begins, so a part cut short
   * by a crash (no terminal record before the mark) is told from the one that resumed it.
   */
  part_started_at?: string;
}

/** Any record of a journal: one line of JSON, its kind named by `protocol` and its payload under the kind's key. */
export type JournalRecord = MetaRecord | (MarkableRecord & PartMark);

/** The records that may carry a PartMark: every kind but the meta, which begins the first part. */
export type MarkableRecord =
  | AssistantRecord
  | ToolResultRecord
  | UserRecord
  | TerminalRecord
  | CompactionRecord
  | CompactionUndoRecord
  | ApprovalRequestRecord
  | ApprovalDecisionRecord
  | ResumedRecord
  | TitleRecord
  | OriginRecord
  | MovedRecord
  | ImportedRecord;
