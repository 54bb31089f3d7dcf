// A strict fake of the Anthropic Messages API (POST /v1/messages) on loopback: the real
// wire protocol, streaming included, and the 400s the real API gives for a malformed
// conversation, so a provider bug shows up here instead of in production.
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  bearerToken,
  chunked,
  isObject,
  type FakeServer,
  type JsonObject,
  readJsonBody,
  type RecordedRequest,
  type Responder,
  scriptedReplies,
  sendJson,
  startEventStream,
  startLoopbackServer,
} from "./http-json.js";

export { scriptedReplies, type FakeServer, type RecordedRequest };

/** A content block as the API sends it: the fake passes the test's blocks through unchanged. */
export type WireBlock = { type: string; [field: string]: unknown };

/** A request's message as the tests read it back. */
export type SentMessage = { role: string; content: string | { type: string; text?: string; content?: unknown }[] };

/** The blocks of a request's latest message: a string content counts as one text block. */
export function latestBlocks(messages: readonly SentMessage[]): Exclude<SentMessage["content"], string> {
  const last = messages.at(-1);
  return typeof last?.content === "string" ? [{ type: "text", text: last.content }] : (last?.content ?? []);
}

export interface AnthropicTurn {
  content: WireBlock[];
  stop_reason: string;
  usage: {
    input_tokens: number;
    output_tokens: number;
    // Absent means 0, which is what the API sends when nothing was cached.
    cache_read_input_tokens?: number | null;
    cache_creation_input_tokens?: number | null;
  };
  /** The model the answer names (the API names a dated version of an alias); the one asked for when omitted. */
  model?: string;
}

export interface AnthropicErrorReply {
  status: number;
  /** Defaults from the status: 429 rate_limit_error, 529 overloaded_error, 500 api_error, ... */
  errorType?: string;
  message?: string;
  /**
   * For a streaming request, answer 200, start the message and then send the error as an
   * `error` event, as the API does when it overloads mid-stream.
   */
  midStream?: boolean;
}

/** Drops the connection: before any byte of a plain reply, or partway through a stream. */
export interface AnthropicDisconnect {
  disconnect: true;
}

export type AnthropicReply = AnthropicTurn | AnthropicErrorReply | AnthropicDisconnect;

export interface FakeAnthropicOptions {
  /** The only key accepted; when omitted any non-empty key is. A request without one is always refused. */
  apiKey?: string;
  /**
   * The model's context window in tokens (requestTokens counts them): a longer prompt is
   * refused as the API refuses it, 400 invalid_request_error "prompt is too long". Read at
   * each request, so a test may change it between calls. No limit when omitted.
   */
  contextWindow?: number;
  /** Slow mode: every accepted call is answered this many milliseconds late, as a busy model answers; what throughput is measured against. */
  slowMs?: number;
}

/**
 * The tokens the fake counts for a request: about four characters a token of its system
 * prompt, tools and messages as sent, the rate fisk-ai's own estimate uses.
 */
export function requestTokens(body: JsonObject): number {
  return Math.ceil(JSON.stringify([body.system ?? "", body.tools ?? [], body.messages ?? []]).length / 4);
}

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  402: "billing_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  504: "timeout_error",
  529: "overloaded_error",
};

const DEFAULT_MESSAGES: Record<string, string> = {
  rate_limit_error: "Number of request tokens has exceeded your per-minute rate limit",
  overloaded_error: "Overloaded",
  api_error: "Internal server error",
};

const MAX_CACHE_BREAKPOINTS = 4;
const MIN_THINKING_BUDGET = 1024;
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;
// Removed in API version 2026-10-21, which the 1.x SDK sends.
const REMOVED_PARAMS = ["temperature", "top_p", "top_k"];

export async function startFakeAnthropic(responder: Responder<AnthropicReply>, options: FakeAnthropicOptions = {}): Promise<FakeServer> {
  let calls = 0;
  return startLoopbackServer(async (req, res, record) => {
    const { parsed, body } = await readJsonBody(req);
    record.body = body;
    const refusal = refuse(req, record, parsed, body, options);
    if (refusal !== undefined) {
      record.rejection = refusal.message;
      sendError(res, record, refusal.status, refusal.type, refusal.message);
      return;
    }
    record.accepted = true;
    const n = ++calls;
    if (options.slowMs !== undefined) await new Promise((resolve) => setTimeout(resolve, options.slowMs));
    await answer(res, record, body as JsonObject, await responder(record, n - 1), n);
  });
}

async function answer(res: ServerResponse, record: RecordedRequest, request: JsonObject, reply: AnthropicReply, n: number): Promise<void> {
  const id = `msg_fake_${String(n).padStart(4, "0")}`;
  const model = String(request.model);
  const stream = request.stream === true;
  if ("disconnect" in reply) {
    if (stream) {
      const send = openMessageStream(res, record, id, model, n);
      send({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }, "content_block_start");
      // Let the started stream reach the client before the connection goes.
      await new Promise<void>((resolve) => res.write("", () => resolve()));
    }
    res.destroy();
    return;
  }
  if ("status" in reply) {
    const type = reply.errorType ?? ERROR_TYPES[reply.status] ?? (reply.status >= 500 ? "api_error" : "invalid_request_error");
    const message = reply.message ?? DEFAULT_MESSAGES[type] ?? `fake ${reply.status}`;
    if (stream && reply.midStream === true) {
      openMessageStream(res, record, id, model, n)({ type: "error", error: { type, message } }, "error");
      res.end();
    } else {
      sendError(res, record, reply.status, type, message, n);
    }
    return;
  }
  if (stream) {
    streamTurn(openMessageStream(res, record, id, reply.model ?? model, n, reply.usage), reply);
    res.end();
    return;
  }
  const message = {
    id,
    type: "message",
    role: "assistant",
    model: reply.model ?? model,
    content: reply.content,
    stop_reason: reply.stop_reason,
    stop_sequence: null,
    usage: wireUsage(reply.usage),
  };
  sendJson(res, record, 200, message, { "request-id": requestId(n) });
}

function requestId(n: number): string {
  return `req_fake_${String(n).padStart(4, "0")}`;
}

function sendError(res: ServerResponse, record: RecordedRequest, status: number, type: string, message: string, n = 0): void {
  const request_id = requestId(n);
  sendJson(res, record, status, { type: "error", error: { type, message }, request_id }, { "request-id": request_id });
}

function wireUsage(usage: AnthropicTurn["usage"]): JsonObject {
  return {
    input_tokens: usage.input_tokens,
    cache_creation_input_tokens: usage.cache_creation_input_tokens === undefined ? 0 : usage.cache_creation_input_tokens,
    cache_read_input_tokens: usage.cache_read_input_tokens === undefined ? 0 : usage.cache_read_input_tokens,
    output_tokens: usage.output_tokens,
  };
}

type SendEvent = (data: unknown, event?: string) => void;

/** Starts the SSE response with message_start: the input side up front, a token or so of output. */
function openMessageStream(
  res: ServerResponse,
  record: RecordedRequest,
  id: string,
  model: string,
  n: number,
  usage: AnthropicTurn["usage"] = { input_tokens: 0, output_tokens: 0 },
): SendEvent {
  const send = startEventStream(res, record, { "request-id": requestId(n) });
  const start = { ...wireUsage(usage), output_tokens: Math.min(1, usage.output_tokens) };
  const message = { id, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: start };
  send({ type: "message_start", message }, "message_start");
  return send;
}

/** The rest of the SSE sequence for one turn, with text, thinking and tool input in pieces. */
function streamTurn(send: SendEvent, turn: AnthropicTurn): void {
  send({ type: "ping" }, "ping");
  turn.content.forEach((block, index) => {
    const { start, deltas } = streamedBlock(block);
    send({ type: "content_block_start", index, content_block: start }, "content_block_start");
    for (const delta of deltas) send({ type: "content_block_delta", index, delta }, "content_block_delta");
    send({ type: "content_block_stop", index }, "content_block_stop");
  });
  // message_delta carries the totals.
  const delta = { stop_reason: turn.stop_reason, stop_sequence: null };
  send({ type: "message_delta", delta, usage: wireUsage(turn.usage) }, "message_delta");
  send({ type: "message_stop" }, "message_stop");
}

function streamedBlock(block: WireBlock): { start: WireBlock; deltas: JsonObject[] } {
  switch (block.type) {
    case "text": {
      const text = typeof block.text === "string" ? block.text : "";
      return { start: { ...block, text: "" }, deltas: chunked(text).map((piece) => ({ type: "text_delta", text: piece })) };
    }
    case "thinking": {
      const thinking = typeof block.thinking === "string" ? block.thinking : "";
      const deltas: JsonObject[] = chunked(thinking).map((piece) => ({ type: "thinking_delta", thinking: piece }));
      // The signature comes last, in one piece, just before the block stops.
      if (typeof block.signature === "string") deltas.push({ type: "signature_delta", signature: block.signature });
      return { start: { ...block, thinking: "", signature: "" }, deltas };
    }
    case "tool_use": {
      const json = JSON.stringify(block.input ?? {});
      const deltas = ["", ...chunked(json)].map((piece) => ({ type: "input_json_delta", partial_json: piece }));
      return { start: { ...block, input: {} }, deltas };
    }
    default:
      // redacted_thinking and server blocks arrive whole in content_block_start.
      return { start: block, deltas: [] };
  }
}

interface Refusal {
  status: number;
  type: string;
  message: string;
}

function refuse(req: IncomingMessage, record: RecordedRequest, parsed: boolean, body: unknown, options: FakeAnthropicOptions): Refusal | undefined {
  if (record.method !== "POST" || record.path.split("?")[0] !== "/v1/messages") {
    return { status: 404, type: "not_found_error", message: `${record.method} ${record.path} not found` };
  }
  // The 1.x SDK sends the key as a bearer token; raw clients send x-api-key. The API takes either.
  const rawKey = req.headers["x-api-key"];
  const key = (Array.isArray(rawKey) ? rawKey[0] : rawKey) ?? bearerToken(req.headers);
  if (key === undefined || key === "") {
    return { status: 401, type: "authentication_error", message: "x-api-key header is required" };
  }
  if (options.apiKey !== undefined && key !== options.apiKey) {
    return { status: 401, type: "authentication_error", message: "invalid x-api-key" };
  }
  if (req.headers["anthropic-version"] === undefined) {
    return invalid("anthropic-version: header is required");
  }
  if (!parsed || !isObject(body)) return invalid("There was an error parsing the body of your request: it is not a JSON object");
  const problem = checkBody(body);
  if (problem !== undefined) return invalid(problem);
  const tokens = requestTokens(body);
  if (options.contextWindow !== undefined && tokens > options.contextWindow) {
    return invalid(`prompt is too long: ${tokens} tokens > ${options.contextWindow} maximum`);
  }
  return undefined;
}

function invalid(message: string): Refusal {
  return { status: 400, type: "invalid_request_error", message };
}

/** The first thing the real API would refuse in this body, or undefined when it would accept it. */
export function checkBody(body: JsonObject): string | undefined {
  for (const param of REMOVED_PARAMS) {
    if (param in body) return `${param}: this parameter is not supported in this API version`;
  }
  if (typeof body.model !== "string" || body.model === "") return "model: Field required";
  if (body.max_tokens === undefined) return "max_tokens: Field required";
  if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 0) {
    return "max_tokens: Input should be a valid non-negative integer";
  }
  const maxTokens = body.max_tokens as number;
  if (body.messages === undefined) return "messages: Field required";
  if (!Array.isArray(body.messages)) return "messages: Input should be a valid list";
  if (body.messages.length === 0) return "messages: at least one message is required";
  return (
    checkSystem(body.system) ?? checkTools(body.tools) ?? checkThinking(body.thinking, maxTokens) ?? checkMessages(body.messages) ?? checkCacheBreakpoints(body)
  );
}

function checkSystem(system: unknown): string | undefined {
  if (system === undefined || typeof system === "string") return undefined;
  if (!Array.isArray(system)) return "system: Input should be a valid string or list of text blocks";
  for (const [i, block] of system.entries()) {
    if (!isObject(block) || block.type !== "text") return `system.${i}.type: Input should be 'text'`;
    if (typeof block.text !== "string" || block.text === "") return `system.${i}.text: text content blocks must be non-empty`;
    const cache = checkCacheControl(block, `system.${i}`);
    if (cache !== undefined) return cache;
  }
  return undefined;
}

function checkTools(tools: unknown): string | undefined {
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools)) return "tools: Input should be a valid list";
  for (const [i, tool] of tools.entries()) {
    if (!isObject(tool)) return `tools.${i}: Input should be a valid dictionary`;
    // Server tools (type "web_search_20250305" and the like) have their own shapes.
    if (tool.type !== undefined && tool.type !== "custom" && tool.type !== null) continue;
    if (typeof tool.name !== "string") return `tools.${i}.custom.name: Field required`;
    if (!TOOL_NAME.test(tool.name)) return `tools.${i}.custom.name: String should match pattern '${TOOL_NAME.source}'`;
    if (tool.input_schema === undefined) return `tools.${i}.custom.input_schema: Field required`;
    if (!isObject(tool.input_schema) || tool.input_schema.type !== "object") {
      return `tools.${i}.custom.input_schema.type: Input should be 'object'`;
    }
    const cache = checkCacheControl(tool, `tools.${i}.custom`);
    if (cache !== undefined) return cache;
  }
  return undefined;
}

function checkThinking(thinking: unknown, maxTokens: number): string | undefined {
  if (thinking === undefined) return undefined;
  if (!isObject(thinking)) return "thinking: Input should be a valid dictionary";
  switch (thinking.type) {
    case "enabled": {
      const budget = thinking.budget_tokens;
      if (budget === undefined) return "thinking.enabled.budget_tokens: Field required";
      if (!Number.isInteger(budget)) return "thinking.enabled.budget_tokens: Input should be a valid integer";
      if ((budget as number) < MIN_THINKING_BUDGET) {
        return `thinking.enabled.budget_tokens: Input should be greater than or equal to ${MIN_THINKING_BUDGET}`;
      }
      if ((budget as number) >= maxTokens) return "`max_tokens` must be greater than `thinking.budget_tokens`";
      return undefined;
    }
    case "adaptive":
    case "disabled":
    case "between_tools":
      return undefined;
    default:
      return `thinking.type: Input tag '${String(thinking.type)}' found using 'type' does not match any of the expected tags: 'enabled', 'disabled', 'adaptive', 'between_tools'`;
  }
}

function checkMessages(messages: unknown[]): string | undefined {
  // The tool_use ids of the previous assistant message, which the next user message must answer first.
  let pending: Set<string> = new Set();
  for (const [i, message] of messages.entries()) {
    const at = `messages.${i}`;
    if (!isObject(message)) return `${at}: Input should be a valid dictionary`;
    if (message.role !== "user" && message.role !== "assistant") {
      return `${at}.role: Input should be 'user' or 'assistant'`;
    }
    if (i === 0 && message.role !== "user") return `${at}.role: the first message must use the "user" role`;
    const previous = messages[i - 1];
    if (isObject(previous) && previous.role === message.role) {
      return `messages: roles must alternate between "user" and "assistant", but found multiple "${message.role}" roles in a row`;
    }
    const isFinal = i === messages.length - 1;
    const blocks = contentBlocks(message.content);
    if (blocks === undefined) return `${at}.content: Input should be a valid string or list of content blocks`;
    if (blocks.length === 0 && !(isFinal && message.role === "assistant")) {
      return `${at}: all messages must have non-empty content except for the optional final assistant message`;
    }
    const serverCalls = new Set<string>();
    for (const [j, block] of blocks.entries()) {
      const problem = checkBlock(block, message.role, `${at}.content.${j}`);
      if (problem !== undefined) return problem;
      if (block.type === "server_tool_use" || block.type === "mcp_tool_use") serverCalls.add(String(block.id));
      if (SERVER_TOOL_RESULTS.has(String(block.type)) && !serverCalls.has(String(block.tool_use_id))) {
        return `${at}.content.${j}: a \`${String(block.type)}\` block must follow the server tool call it answers (tool_use_id ${String(block.tool_use_id)})`;
      }
    }
    if (message.role === "user") {
      const problem = checkToolResults(blocks, pending, i);
      if (problem !== undefined) return problem;
      pending = new Set();
    } else {
      pending = new Set(blocks.filter((b) => b.type === "tool_use").map((b) => String(b.id)));
    }
  }
  if (pending.size > 0) return unansweredToolUse(messages.length - 1, pending);
  return undefined;
}

function unansweredToolUse(index: number, ids: Set<string>): string {
  return (
    `messages.${index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${[...ids].join(", ")}. ` +
    "Each `tool_use` block must have a corresponding `tool_result` block in the next message."
  );
}

/** Checks the tool_result blocks of a user message against the tool_use ids of the assistant message before it. */
function checkToolResults(blocks: JsonObject[], pending: Set<string>, index: number): string | undefined {
  const at = `messages.${index}`;
  const answered = new Set<string>();
  let seenOther = false;
  for (const [j, block] of blocks.entries()) {
    if (block.type !== "tool_result") {
      seenOther = true;
      continue;
    }
    const id = String(block.tool_use_id);
    if (seenOther) {
      return `${at}.content.${j}: \`tool_result\` blocks must come first in the user message content, before any other content`;
    }
    if (answered.has(id)) return `${at}.content.${j}: duplicate \`tool_result\` block for tool_use_id ${id}`;
    if (!pending.has(id)) {
      return (
        `${at}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. ` +
        "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
      );
    }
    answered.add(id);
  }
  const missing = [...pending].filter((id) => !answered.has(id));
  if (missing.length > 0) return unansweredToolUse(index - 1, new Set(missing));
  return undefined;
}

function contentBlocks(content: unknown): JsonObject[] | undefined {
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }];
  if (!Array.isArray(content)) return undefined;
  return content.map((block) => (isObject(block) ? block : { type: undefined }));
}

const USER_BLOCKS = new Set(["text", "image", "document", "tool_result", "search_result"]);
// Server tools the API runs itself, and the MCP connector's blocks, which fisk-ai does not model.
const SERVER_TOOL_RESULTS = new Set(["tool_search_tool_result", "web_search_tool_result", "code_execution_tool_result", "mcp_tool_result"]);
const ASSISTANT_BLOCKS = new Set(["text", "thinking", "redacted_thinking", "tool_use", "server_tool_use", "mcp_tool_use", ...SERVER_TOOL_RESULTS]);

function checkBlock(block: JsonObject, role: string, at: string): string | undefined {
  if (typeof block.type !== "string") return `${at}.type: Field required`;
  const allowed = role === "user" ? USER_BLOCKS : ASSISTANT_BLOCKS;
  if (!allowed.has(block.type)) return `${at}.type: a \`${block.type}\` block is not allowed in a ${role} message`;
  switch (block.type) {
    case "text":
      if (typeof block.text !== "string") return `${at}.text: Field required`;
      if (block.text === "") return `${at}.text: text content blocks must be non-empty`;
      break;
    case "thinking":
      if (typeof block.thinking !== "string") return `${at}.thinking.thinking: Field required`;
      if (typeof block.signature !== "string") return `${at}.thinking.signature: Field required`;
      if ("cache_control" in block) return `${at}.thinking.cache_control: Extra inputs are not permitted`;
      break;
    case "redacted_thinking":
      if (typeof block.data !== "string") return `${at}.redacted_thinking.data: Field required`;
      if ("cache_control" in block) return `${at}.redacted_thinking.cache_control: Extra inputs are not permitted`;
      break;
    case "tool_use":
      if (typeof block.id !== "string" || block.id === "") return `${at}.tool_use.id: Field required`;
      if (typeof block.name !== "string" || block.name === "") return `${at}.tool_use.name: Field required`;
      if (!isObject(block.input)) return `${at}.tool_use.input: Input should be a valid dictionary`;
      break;
    case "server_tool_use":
    case "mcp_tool_use":
      if (typeof block.id !== "string" || block.id === "") return `${at}.${block.type}.id: Field required`;
      if (typeof block.name !== "string" || block.name === "") return `${at}.${block.type}.name: Field required`;
      if (block.type === "mcp_tool_use" && typeof block.server_name !== "string") return `${at}.mcp_tool_use.server_name: Field required`;
      if (!isObject(block.input)) return `${at}.${block.type}.input: Input should be a valid dictionary`;
      break;
    case "tool_result": {
      if (typeof block.tool_use_id !== "string" || block.tool_use_id === "") return `${at}.tool_result.tool_use_id: Field required`;
      const content = block.content;
      if (content !== undefined && typeof content !== "string") {
        if (!Array.isArray(content)) return `${at}.tool_result.content: Input should be a valid string or list`;
        for (const [k, inner] of content.entries()) {
          if (!isObject(inner) || (inner.type !== "text" && inner.type !== "image" && inner.type !== "document" && inner.type !== "search_result")) {
            return `${at}.tool_result.content.${k}.type: Input should be 'text', 'image', 'document' or 'search_result'`;
          }
          if (inner.type === "text" && (typeof inner.text !== "string" || inner.text === "")) {
            return `${at}.tool_result.content.${k}.text: text content blocks must be non-empty`;
          }
        }
      }
      if (block.is_error !== undefined && typeof block.is_error !== "boolean") return `${at}.tool_result.is_error: Input should be a valid boolean`;
      break;
    }
  }
  return checkCacheControl(block, at);
}

function checkCacheControl(holder: JsonObject, at: string): string | undefined {
  const cache = holder.cache_control;
  if (cache === undefined || cache === null) return undefined;
  if (!isObject(cache) || cache.type !== "ephemeral") return `${at}.cache_control.type: Input should be 'ephemeral'`;
  if (cache.ttl !== undefined && cache.ttl !== "5m" && cache.ttl !== "1h") return `${at}.cache_control.ttl: Input should be '5m' or '1h'`;
  return undefined;
}

function checkCacheBreakpoints(body: JsonObject): string | undefined {
  const holders: unknown[] = [body];
  if (Array.isArray(body.system)) holders.push(...body.system);
  if (Array.isArray(body.tools)) holders.push(...body.tools);
  for (const message of body.messages as unknown[]) {
    if (!isObject(message) || !Array.isArray(message.content)) continue;
    for (const block of message.content) {
      holders.push(block);
      if (isObject(block) && Array.isArray(block.content)) holders.push(...block.content);
    }
  }
  const found = holders.filter((h) => isObject(h) && h.cache_control !== undefined && h.cache_control !== null).length;
  if (found > MAX_CACHE_BREAKPOINTS) {
    return `A maximum of ${MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found ${found}.`;
  }
  return undefined;
}
