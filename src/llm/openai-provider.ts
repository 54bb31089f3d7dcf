// The openai provider: the official SDK's chat completions against any OpenAI-compatible
// endpoint (OpenAI, Ollama, llama.cpp server, vLLM). The journal keeps the Anthropic
// Messages shape, so each call converts the conversation there and the turn back.
import { randomUUID } from "node:crypto";
import type OpenAI from "openai";
import type {
  ChatCompletion,
  ChatCompletionAssistantMessageParam,
  ChatCompletionContentPart,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
} from "openai/resources/chat/completions";
import {
  isOtherBlock,
  type AssistantMessage,
  type ImageBlock,
  type ToolResultBlock,
  type ToolUseBlock,
  type UserMessage,
} from "../runstate/records/records.js";
import { loadedOnce } from "./load-once.js";
import { oneLine, refusedAsTooLong, retryableStatus, rootCauseText, transportCallError } from "./provider-errors.js";
import { ModelCallError, type ModelProvider, type ModelRequest, type ModelTurn, type ModelUsage } from "./model-provider.js";

/** The request field that carries a call's output limit: servers differ on which they honor. */
export type MaxTokensParam = "max_tokens" | "max_completion_tokens";

/** How an OpenAIProvider reaches its endpoint. Nothing is read from the environment. */
export interface OpenAIProviderOptions {
  /** The API key, sent as a bearer token; the caller reads it (say from OPENAI_API_KEY). For a local server that wants none, any non-empty placeholder. */
  apiKey: string;
  /** Defaults to the public API; the caller resolves OPENAI_BASE_URL. */
  baseURL?: string | undefined;
  /**
   * How the output limit is sent. OpenAI deprecated `max_tokens` and refuses it for
   * reasoning models; Ollama, llama.cpp and vLLM honor `max_tokens` and some ignore the
   * newer name. The default is `max_completion_tokens` for api.openai.com, else `max_tokens`.
   */
  maxTokensParam?: MaxTokensParam;
}

const DEFAULT_BASE_URL = "https://api.openai.com/v1";
const openaiSdk = loadedOnce(() => import("openai"));
type OpenAISdk = Awaited<ReturnType<typeof openaiSdk>>;

const STOP_REASONS: Record<string, string> = {
  tool_calls: "tool_use",
  function_call: "tool_use",
  stop: "end_turn",
  length: "max_tokens",
  content_filter: "refusal",
};

type Block = UserMessage["content"][number];

/**
 * Chat completions through the official OpenAI SDK, streaming, against any
 * OpenAI-compatible endpoint (OpenAI, Ollama, llama.cpp server, vLLM). The journal keeps
 * the Anthropic Messages shape, so each call converts the conversation there and the turn
 * back: thinking blocks and `thinking` settings are not sent, and tool results carry text
 * only (an image in one is replaced by a note). Usage reports cached prompt tokens apart,
 * as `cache_read_tokens`. The SDK's own retries are off: the loop retries, by
 * ModelCallError's `retryable`.
 */
export class OpenAIProvider implements ModelProvider {
  /** Always `"openai"`. */
  readonly name = "openai";
  readonly #apiKey: string;
  readonly #baseURL: string;
  readonly #maxTokensParam: MaxTokensParam;
  /** Made at the first call, with the SDK it loads. */
  #client: OpenAI | undefined;

  constructor(options: OpenAIProviderOptions) {
    this.#apiKey = options.apiKey;
    this.#baseURL = options.baseURL ?? DEFAULT_BASE_URL;
    this.#maxTokensParam = options.maxTokensParam ?? defaultMaxTokensParam(this.#baseURL);
  }

  async complete(request: ModelRequest, signal: AbortSignal, onText?: (text: string) => void): Promise<ModelTurn> {
    const sdk = await openaiSdk();
    // Explicit organization and project keep the SDK from reading them from the environment.
    this.#client ??= new sdk.default({ apiKey: this.#apiKey, baseURL: this.#baseURL, organization: null, project: null, maxRetries: 0 });
    let completion: ChatCompletion;
    try {
      // Streamed, so the text can be shown as it arrives; usage comes in the last chunk.
      const stream = this.#client.chat.completions.stream({ ...this.#params(request), stream: true, stream_options: { include_usage: true } }, { signal });
      if (onText !== undefined) stream.on("content.delta", ({ delta }) => onText(delta));
      completion = await stream.finalChatCompletion();
    } catch (error) {
      throw openaiCallError(error, signal, this.#baseURL, sdk);
    }
    return toModelTurn(completion);
  }

  #params(request: ModelRequest): ChatCompletionCreateParamsNonStreaming {
    // Thinking settings have no counterpart here: reasoning models think on their own.
    const params: ChatCompletionCreateParamsNonStreaming = { model: request.model, messages: chatMessages(request) };
    params[this.#maxTokensParam] = request.maxOutputTokens;
    if (request.tools.length > 0) {
      params.tools = request.tools.map(
        (tool): ChatCompletionFunctionTool => ({
          type: "function",
          function: { name: tool.name, description: tool.description, parameters: tool.input_schema },
        }),
      );
    }
    return params;
  }
}

function defaultMaxTokensParam(baseURL: string): MaxTokensParam {
  try {
    return new URL(baseURL).hostname === "api.openai.com" ? "max_completion_tokens" : "max_tokens";
  } catch {
    return "max_tokens";
  }
}

function chatMessages(request: ModelRequest): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  if (request.system !== "") out.push({ role: "system", content: request.system });
  for (const message of request.messages) {
    if (message.role === "assistant") out.push(assistantMessage(message));
    else out.push(...userMessages(message));
  }
  return out;
}

function assistantMessage(message: AssistantMessage): ChatCompletionAssistantMessageParam {
  // Thinking blocks are dropped: their signatures mean nothing to another API.
  const text = message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");
  const calls = message.content.filter((block): block is ToolUseBlock => block.type === "tool_use");
  // An empty string, not null, when there is no text: Ollama refuses a null content.
  const param: ChatCompletionAssistantMessageParam = { role: "assistant", content: text };
  if (calls.length > 0) {
    param.tool_calls = calls.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: JSON.stringify(call.input) },
    }));
  }
  return param;
}

/**
 * A user message's tool results become one tool message each, first, since they must
 * follow the assistant message that asked for them; what else it says follows them.
 */
function userMessages(message: UserMessage): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  const rest: Block[] = [];
  for (const block of message.content) {
    if (!isOtherBlock(block) && block.type === "tool_result") out.push({ role: "tool", tool_call_id: block.tool_use_id, content: toolResultText(block) });
    else rest.push(block);
  }
  if (rest.length === 0) return out;
  if (rest.every((block) => block.type === "text")) {
    out.push({ role: "user", content: rest.map((block) => block.text).join("\n") });
  } else {
    const parts = rest.flatMap(contentPart);
    if (parts.length > 0) out.push({ role: "user", content: parts });
  }
  return out;
}

function toolResultText(block: ToolResultBlock): string {
  const text =
    typeof block.content === "string"
      ? block.content
      : block.content.map((part) => (part.type === "text" ? part.text : "[image omitted: tool messages carry text only]")).join("\n");
  return block.is_error === true ? `ERROR: ${text}` : text;
}

// A block only the anthropic API understands (a session keeps its provider) has no part here.
function contentPart(block: Block): ChatCompletionContentPart[] {
  if (isOtherBlock(block)) return [];
  if (block.type === "text") return [{ type: "text", text: block.text }];
  if (block.type === "image") {
    const url = imageURL(block);
    if (url !== undefined) return [{ type: "image_url", image_url: { url } }];
  }
  return [];
}

function imageURL(block: ImageBlock): string | undefined {
  const source = block.source;
  if (source.type === "base64" && typeof source.media_type === "string" && typeof source.data === "string") {
    return `data:${source.media_type};base64,${source.data}`;
  }
  if (source.type === "url" && typeof source.url === "string") return source.url;
  return undefined;
}

function toModelTurn(completion: ChatCompletion): ModelTurn {
  const choice = completion.choices[0];
  if (choice === undefined) throw new ModelCallError("the openai API returned a completion without choices", { retryable: false });
  const content: AssistantMessage["content"] = [];
  const text = choice.message.content;
  if (typeof text === "string" && text !== "") content.push({ type: "text", text });
  for (const call of choice.message.tool_calls ?? []) content.push(toolUse(call));
  // Some servers (older Ollama) report "stop" for a turn that calls tools.
  const calledTools = content.some((block) => block.type === "tool_use");
  const stop_reason = calledTools ? "tool_use" : (STOP_REASONS[choice.finish_reason] ?? choice.finish_reason ?? "end_turn");
  return {
    message: { role: "assistant", content },
    stop_reason,
    usage: modelUsage(completion.usage),
    ...(completion.model ? { model: completion.model } : {}),
  };
}

function toolUse(call: ChatCompletionMessageToolCall): ToolUseBlock {
  if (call.type !== "function") {
    throw new ModelCallError(`the openai API returned a ${String(call.type)} tool call, which this runtime never offers`, {
      retryable: false,
    });
  }
  if (call.function.name === "") {
    throw new ModelCallError("the openai API returned a tool call without a function name", { retryable: false });
  }
  // The journal needs an id to pair the result with; a few local servers leave it out.
  const id = call.id || `call_${randomUUID()}`;
  return { type: "tool_use", id, name: call.function.name, input: parseArguments(call.function.arguments) };
}

/** Arguments that are not a JSON object are kept raw, so the tool can report what it got. */
function parseArguments(raw: string): Record<string, unknown> {
  if (raw.trim() === "") return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // Falls through to the raw form.
  }
  return { _unparsed_arguments: raw };
}

function modelUsage(usage: ChatCompletion["usage"]): ModelUsage {
  const prompt = usage?.prompt_tokens ?? 0;
  const cached = usage?.prompt_tokens_details?.cached_tokens ?? 0;
  // OpenAI counts cached tokens inside prompt_tokens; the journal keeps the tiers apart.
  const mapped: ModelUsage = { in_tokens: Math.max(0, prompt - cached), out_tokens: usage?.completion_tokens ?? 0 };
  if (cached > 0) mapped.cache_read_tokens = cached;
  return mapped;
}

function openaiCallError(error: unknown, signal: AbortSignal, baseURL: string, sdk: OpenAISdk): ModelCallError {
  const transport = transportCallError("openai", baseURL, sdk, error, signal);
  if (transport !== undefined) return transport;
  if (error instanceof sdk.APIError && error.status !== undefined) {
    // `error.error` is the body's `error` object; compatible servers fill in what they like.
    const body = error.error as { message?: unknown } | undefined;
    const detail = typeof body?.message === "string" ? body.message : error.message;
    const kind = error.code ?? error.type ?? "error";
    return new ModelCallError(oneLine(`openai API ${error.status} ${kind}: ${detail}`), {
      retryable: retryableStatus(error.status, error.headers),
      status: error.status,
      tooLong: refusedAsTooLong(error.status, { type: error.type, code: error.code, message: detail }),
      cause: error,
    });
  }
  // Reading the body can still fail after the headers arrived, when the connection drops;
  // the stream helper wraps what breaks mid-response.
  if ((error instanceof TypeError && error.message === "terminated") || error instanceof sdk.OpenAIError) {
    return new ModelCallError(oneLine(`the connection to the openai API at ${baseURL} broke off: ${rootCauseText(error)}`), {
      retryable: true,
      cause: error,
    });
  }
  return new ModelCallError(oneLine(`the openai API call failed: ${rootCauseText(error)}`), { retryable: false, cause: error });
}
