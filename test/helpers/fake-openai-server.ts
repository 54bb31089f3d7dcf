// A strict fake of an OpenAI-compatible chat completions endpoint (POST /v1/chat/completions)
// on loopback, refusing the conversations OpenAI refuses: above all a tool call that is not
// answered by tool messages right after it, or a tool message that answers nothing.
import type { ServerResponse } from "node:http";
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

export interface OpenAIToolCall {
  id: string;
  name: string;
  /** The arguments as the model wrote them: a JSON string, or not. */
  arguments: string;
}

export interface OpenAITurn {
  content?: string | null;
  tool_calls?: OpenAIToolCall[];
  finish_reason: string;
  usage: { prompt_tokens: number; completion_tokens: number; prompt_tokens_details?: { cached_tokens: number } };
}

export interface OpenAIErrorReply {
  status: number;
  message?: string;
  /** Defaults from the status: 429 requests, 5xx server_error, else invalid_request_error. */
  errorType?: string;
  code?: string | null;
}

/** Drops the connection before any byte of the reply, or halfway through its body. */
export interface OpenAIDisconnect {
  disconnect: true;
  afterHeaders?: boolean;
}

export type OpenAIReply = OpenAITurn | OpenAIErrorReply | OpenAIDisconnect;

export interface FakeOpenAIOptions {
  /** When set, `Authorization: Bearer <apiKey>` is required; local servers check nothing. */
  apiKey?: string;
  /**
   * The model's context window in tokens (about four characters a token of the messages and
   * tools as sent): a longer request is refused as the API refuses it, 400 with the code
   * `context_length_exceeded`. Read at each request. No limit when omitted.
   */
  contextWindow?: number;
}

const ROLES = new Set(["system", "developer", "user", "assistant", "tool", "function"]);
const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export async function startFakeOpenAI(responder: Responder<OpenAIReply>, options: FakeOpenAIOptions = {}): Promise<FakeServer> {
  let calls = 0;
  return startLoopbackServer(async (req, res, record) => {
    const { parsed, body } = await readJsonBody(req);
    record.body = body;
    if (record.method !== "POST" || record.path.split("?")[0] !== "/v1/chat/completions") {
      refuse(res, record, 404, `Invalid URL (${record.method} ${record.path})`);
      return;
    }
    if (options.apiKey !== undefined) {
      const key = bearerToken(req.headers);
      if (key === undefined) {
        refuse(res, record, 401, "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth.");
        return;
      }
      if (key !== options.apiKey) {
        refuse(res, record, 401, "Incorrect API key provided.", "invalid_api_key");
        return;
      }
    }
    const problem = !parsed || !isObject(body) ? "We could not parse the JSON body of your request." : checkBody(body);
    if (problem !== undefined) {
      refuse(res, record, 400, problem);
      return;
    }
    const tokens = Math.ceil(JSON.stringify([(body as JsonObject).tools ?? [], (body as JsonObject).messages]).length / 4);
    if (options.contextWindow !== undefined && tokens > options.contextWindow) {
      const message = `This model's maximum context length is ${options.contextWindow} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`;
      refuse(res, record, 400, message, "context_length_exceeded");
      return;
    }
    record.accepted = true;
    const request = body as JsonObject;
    const reply = await responder(record, calls++);
    if ("disconnect" in reply) {
      if (reply.afterHeaders === true) {
        record.status = 200;
        res.writeHead(200, { "content-type": "application/json", "content-length": 1000 });
        // Let the headers and a first piece of the body reach the client before the connection goes.
        await new Promise<void>((resolve) => res.write('{"id":"chatcmpl-cut","choi', () => resolve()));
      }
      res.destroy();
      return;
    }
    if ("status" in reply) {
      sendError(res, record, reply.status, reply.message ?? `fake ${reply.status}`, reply.code ?? null, reply.errorType);
      return;
    }
    const completion = { id: `chatcmpl-fake-${calls}`, created: Math.floor(Date.now() / 1000), model: String(request.model) };
    if (request.stream === true) streamTurn(res, record, reply, completion, includeUsage(request));
    else {
      const message: JsonObject = { role: "assistant", content: reply.content ?? null, refusal: null };
      if (reply.tool_calls !== undefined && reply.tool_calls.length > 0) message.tool_calls = reply.tool_calls.map(wireToolCall);
      const choice = { index: 0, message, logprobs: null, finish_reason: reply.finish_reason };
      sendJson(res, record, 200, { ...completion, object: "chat.completion", choices: [choice], usage: wireUsage(reply.usage) });
    }
  }, "/v1");
}

function refuse(res: ServerResponse, record: RecordedRequest, status: number, message: string, code: string | null = null): void {
  record.rejection = message;
  sendError(res, record, status, message, code);
}

function sendError(res: ServerResponse, record: RecordedRequest, status: number, message: string, code: string | null, type?: string): void {
  const errorType = type ?? (status === 429 ? "requests" : status >= 500 ? "server_error" : "invalid_request_error");
  sendJson(res, record, status, { error: { message, type: errorType, param: null, code } });
}

function wireToolCall(call: OpenAIToolCall): JsonObject {
  return { id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } };
}

function wireUsage(usage: OpenAITurn["usage"]): JsonObject {
  return { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens };
}

function includeUsage(request: JsonObject): boolean {
  return isObject(request.stream_options) && request.stream_options.include_usage === true;
}

/** Chunks as OpenAI streams them: role first, content and arguments in pieces, then [DONE]. */
function streamTurn(res: ServerResponse, record: RecordedRequest, turn: OpenAITurn, completion: JsonObject, withUsage: boolean): void {
  const send = startEventStream(res, record);
  const chunk = (delta: JsonObject, finish_reason: string | null = null) =>
    send({ ...completion, object: "chat.completion.chunk", choices: [{ index: 0, delta, logprobs: null, finish_reason }] });
  chunk({ role: "assistant", content: "", refusal: null });
  for (const piece of chunked(turn.content ?? "")) chunk({ content: piece });
  (turn.tool_calls ?? []).forEach((call, index) => {
    chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] });
    for (const piece of chunked(call.arguments)) chunk({ tool_calls: [{ index, function: { arguments: piece } }] });
  });
  chunk({}, turn.finish_reason);
  if (withUsage) send({ ...completion, object: "chat.completion.chunk", choices: [], usage: wireUsage(turn.usage) });
  send("[DONE]");
  res.end();
}

/** The first thing OpenAI would refuse in this body, or undefined when it would accept it. */
export function checkBody(body: JsonObject): string | undefined {
  if (typeof body.model !== "string" || body.model === "") return "you must provide a model parameter";
  if (!Array.isArray(body.messages)) return "Missing required parameter: 'messages'.";
  if (body.messages.length === 0) return "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.";
  for (const param of ["max_tokens", "max_completion_tokens"]) {
    const value = body[param];
    if (value !== undefined && value !== null && (!Number.isInteger(value) || (value as number) < 1)) {
      return `Invalid '${param}': integer below minimum value. Expected a value >= 1.`;
    }
  }
  return checkTools(body.tools) ?? checkMessages(body.messages);
}

function checkTools(tools: unknown): string | undefined {
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools)) return "Invalid type for 'tools': expected an array.";
  for (const [i, tool] of tools.entries()) {
    if (!isObject(tool) || tool.type !== "function") return `Invalid value for 'tools[${i}].type': expected 'function'.`;
    const fn = tool.function;
    if (!isObject(fn) || typeof fn.name !== "string") return `Missing required parameter: 'tools[${i}].function.name'.`;
    if (!FUNCTION_NAME.test(fn.name)) {
      return `Invalid 'tools[${i}].function.name': string does not match pattern. Expected a string that matches the pattern '${FUNCTION_NAME.source}'.`;
    }
    if (fn.parameters !== undefined && !isObject(fn.parameters)) return `Invalid type for 'tools[${i}].function.parameters': expected an object.`;
  }
  return undefined;
}

function checkMessages(messages: unknown[]): string | undefined {
  // The tool_call ids of the last assistant message that tool messages have yet to answer.
  let pending = new Set<string>();
  for (const [i, message] of messages.entries()) {
    const at = `messages[${i}]`;
    if (!isObject(message)) return `Invalid type for '${at}': expected an object.`;
    if (typeof message.role !== "string" || !ROLES.has(message.role)) {
      return `Invalid value: '${String(message.role)}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`;
    }
    if (message.role === "tool") {
      const id = message.tool_call_id;
      if (typeof id !== "string") return `Missing required parameter: '${at}.tool_call_id'.`;
      // Answered ids leave the set, so a second answer to one call is refused too.
      if (!pending.delete(id)) {
        return `Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.`;
      }
      const problem = checkContent(message.content, at, "tool");
      if (problem !== undefined) return problem;
      continue;
    }
    if (pending.size > 0) return unanswered(pending);
    const problem = message.role === "assistant" ? checkAssistant(message, at) : checkContent(message.content, at, message.role);
    if (problem !== undefined) return problem;
    if (message.role === "assistant" && Array.isArray(message.tool_calls)) {
      pending = new Set(message.tool_calls.map((call) => String((call as JsonObject).id)));
    }
  }
  return pending.size > 0 ? unanswered(pending) : undefined;
}

function unanswered(pending: Set<string>): string {
  return (
    "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. " +
    `The following tool_call_ids did not have response messages: ${[...pending].join(", ")}`
  );
}

function checkAssistant(message: JsonObject, at: string): string | undefined {
  const calls = message.tool_calls;
  if (calls !== undefined) {
    if (!Array.isArray(calls) || calls.length === 0) return `Invalid '${at}.tool_calls': empty array. Expected an array with minimum length 1.`;
    for (const [k, call] of calls.entries()) {
      const where = `${at}.tool_calls[${k}]`;
      if (!isObject(call) || typeof call.id !== "string" || call.id === "") return `Missing required parameter: '${where}.id'.`;
      if (call.type !== "function") return `Invalid value for '${where}.type': expected 'function'.`;
      const fn = call.function;
      if (!isObject(fn) || typeof fn.name !== "string") return `Missing required parameter: '${where}.function.name'.`;
      if (typeof fn.arguments !== "string") return `Invalid type for '${where}.function.arguments': expected a string.`;
    }
  }
  if ((message.content === null || message.content === undefined) && calls === undefined) {
    return `Invalid value for '${at}.content': expected a string, got null.`;
  }
  if (message.content === null || message.content === undefined) return undefined;
  return checkContent(message.content, at, "assistant");
}

function checkContent(content: unknown, at: string, role: string): string | undefined {
  if (typeof content === "string") return undefined;
  if (!Array.isArray(content)) return `Invalid type for '${at}.content': expected one of a string or array of objects.`;
  // Only user messages take images; the others carry text parts.
  const allowed = role === "user" ? ["text", "image_url", "input_audio", "file"] : ["text"];
  for (const [k, part] of content.entries()) {
    if (!isObject(part) || typeof part.type !== "string" || !allowed.includes(part.type)) {
      return `Invalid value for '${at}.content[${k}].type': expected one of ${allowed.map((t) => `'${t}'`).join(", ")}.`;
    }
    if (part.type === "text" && typeof part.text !== "string") return `Missing required parameter: '${at}.content[${k}].text'.`;
  }
  return undefined;
}
