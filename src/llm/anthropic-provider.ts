// The anthropic provider: the official SDK, streaming. The journal already holds the
// Messages API shape, so the request is the conversation as recorded plus prompt-caching
// breakpoints, and the turn comes back with its thinking blocks (and signatures) verbatim.
import type Anthropic from "@anthropic-ai/sdk";
import { RECORD_SCHEMAS } from "../runstate/records/record-schemas.js";
import { isOtherBlock, type AssistantMessage, type Message } from "../runstate/records/records.js";
import {
  ModelCallError,
  type ModelProvider,
  type ModelRequest,
  type ModelTurn,
  type ModelUsage,
  type ThinkingConfig,
  type ToolSpec,
} from "./model-provider.js";
import { loadedOnce } from "./load-once.js";
import { oneLine, refusedAsTooLong, retryableStatus, rootCauseText, transportCallError } from "./provider-errors.js";

/** How an AnthropicProvider reaches the API. Nothing is read from the environment. */
export interface AnthropicProviderOptions {
  /** The API key, sent as `x-api-key`; the caller reads it (say from ANTHROPIC_API_KEY). */
  apiKey: string;
  /** Defaults to the public API; the caller resolves ANTHROPIC_BASE_URL. */
  baseURL?: string | undefined;
}

const DEFAULT_BASE_URL = "https://api.anthropic.com";
const anthropicSdk = loadedOnce(() => import("./anthropic-sdk.js"));
type AnthropicSdk = Awaited<ReturnType<typeof anthropicSdk>>;
type MessagesApi = InstanceType<AnthropicSdk["Messages"]>;

// The journal's assistant message schema: what a returned turn must satisfy to be recorded.
const ASSISTANT_MESSAGE = RECORD_SCHEMAS.assistant.shape.assistant.shape.message;
// The API refuses cache_control on thinking blocks, so the breakpoint goes on the block before.
const UNCACHEABLE_BLOCK_TYPES = new Set(["thinking", "redacted_thinking"]);
// Error types the API sends as an `error` event inside a 200 stream that pass with time.
const TRANSIENT_STREAM_ERRORS = new Set(["overloaded_error", "api_error", "rate_limit_error", "timeout_error"]);

type Block = Message["content"][number];
type JsonRecord = Record<string, unknown>;

/**
 * The Anthropic Messages API through the official SDK, streaming. The conversation goes as
 * the journal holds it, with prompt-caching breakpoints added (on the system prompt, the
 * last tool and the latest block), and the turn comes back with its thinking blocks and
 * their signatures verbatim. The SDK's own retries are off: the loop retries, by
 * ModelCallError's `retryable`. A turn the journal could not record is a ModelCallError
 * that is not retryable.
 */
export class AnthropicProvider implements ModelProvider {
  /** Always `"anthropic"`. */
  readonly name = "anthropic";
  readonly #apiKey: string;
  readonly #baseURL: string;
  /** Made at the first call, with the SDK it loads. */
  #messages: MessagesApi | undefined;

  constructor(options: AnthropicProviderOptions) {
    this.#apiKey = options.apiKey;
    this.#baseURL = options.baseURL ?? DEFAULT_BASE_URL;
  }

  async complete(request: ModelRequest, signal: AbortSignal, onText?: (text: string) => void): Promise<ModelTurn> {
    const sdk = await anthropicSdk();
    // The key and the URL are passed explicitly so the SDK does not fall back to the
    // environment or a credentials profile; retries and timeouts belong to the caller.
    this.#messages ??= new sdk.Messages(new sdk.BaseAnthropic({ apiKey: this.#apiKey, baseURL: this.#baseURL, maxRetries: 0 }));
    let message: Anthropic.Message;
    try {
      const stream = this.#messages.stream(anthropicParams(request), { signal });
      if (onText !== undefined) stream.on("text", (delta) => onText(delta));
      message = await stream.finalMessage();
    } catch (error) {
      throw anthropicCallError(error, signal, this.#baseURL, sdk);
    }
    return toModelTurn(message);
  }
}

function anthropicParams(request: ModelRequest): Anthropic.MessageStreamParams {
  const params: Anthropic.MessageStreamParams = {
    model: request.model,
    max_tokens: request.maxOutputTokens,
    messages: requestMessages(request.messages),
  };
  // The API refuses an empty text block, so an empty prompt is no system prompt.
  if (request.system !== "") params.system = [{ type: "text", text: request.system, cache_control: ephemeral() }];
  if (request.tools.length > 0) params.tools = request.tools.map((tool, i, all) => requestTool(tool, i === all.length - 1));
  const thinking = thinkingParam(request.thinking);
  if (thinking !== undefined) params.thinking = thinking;
  return params;
}

function ephemeral(): Anthropic.CacheControlEphemeral {
  return { type: "ephemeral" };
}

function requestTool(tool: ToolSpec, last: boolean): Anthropic.Tool {
  const spec: Anthropic.Tool = {
    name: tool.name,
    description: tool.description,
    input_schema: tool.input_schema as Anthropic.Tool.InputSchema,
  };
  if (last) spec.cache_control = ephemeral();
  return spec;
}

function thinkingParam(thinking: ThinkingConfig): Anthropic.ThinkingConfigParam | undefined {
  switch (thinking.mode) {
    case "enabled":
      return { type: "enabled", budget_tokens: thinking.budget_tokens };
    case "adaptive":
      return { type: "adaptive" };
    case "off":
      return undefined;
  }
}

/**
 * The conversation as sent: new message objects and content arrays, so the breakpoint on
 * the latest block never reaches the journal's messages. Blocks are shared, not copied,
 * unless they change: thinking blocks must go back byte for byte anyway.
 */
function requestMessages(messages: readonly Message[]): Anthropic.MessageParam[] {
  const out = messages.map((message) => ({ role: message.role, content: message.content.flatMap(requestBlock) }));
  const latest = out.at(-1)?.content;
  if (latest !== undefined) {
    // A marker on a block type we do not know might be one the API refuses it on.
    const index = latest.findLastIndex((block) => !isOtherBlock(block) && !UNCACHEABLE_BLOCK_TYPES.has(block.type));
    const block = latest[index];
    if (block !== undefined) latest[index] = { ...block, cache_control: ephemeral() };
  }
  // The records' zod types are looser than the SDK's (unknown fields are kept), not different.
  return out as unknown as Anthropic.MessageParam[];
}

function requestBlock(block: Block): Block[] {
  // The API refuses empty text blocks, which a model can return and the journal keeps verbatim.
  if (block.type === "text" && block.text === "") return [];
  // Markers recorded elsewhere would count against the API's limit of four breakpoints.
  const clean = withoutCacheControl(block);
  if (clean.type === "tool_result" && Array.isArray(clean.content) && clean.content.some(hasCacheControl)) {
    return [{ ...clean, content: clean.content.map(withoutCacheControl) }];
  }
  return [clean];
}

function hasCacheControl(block: object): boolean {
  return "cache_control" in block;
}

function withoutCacheControl<T extends object>(block: T): T {
  if (!hasCacheControl(block)) return block;
  const { cache_control: _marker, ...rest } = block as T & { cache_control: unknown };
  return rest as T;
}

function toModelTurn(message: Anthropic.Message): ModelTurn {
  // A JSON copy: plain data as the API sent it, without the SDK's lazy getters and hidden fields.
  const blocks = (JSON.parse(JSON.stringify(message.content)) as JsonRecord[]).map(withoutCacheControl);
  const assistant = { role: "assistant", content: blocks };
  const checked = ASSISTANT_MESSAGE.safeParse(assistant);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    const where = issue === undefined ? "message" : issue.path.join(".");
    throw new ModelCallError(`the anthropic API returned a turn the journal cannot record: ${where}: ${issue?.message ?? "invalid"}`, {
      retryable: false,
    });
  }
  return {
    // zod returns a copy; the journal gets the value as the API sent it.
    message: assistant as AssistantMessage,
    stop_reason: message.stop_reason ?? "end_turn",
    usage: modelUsage(message.usage),
    ...(message.model ? { model: message.model } : {}),
  };
}

function modelUsage(usage: Anthropic.Usage): ModelUsage {
  const mapped: ModelUsage = { in_tokens: usage.input_tokens, out_tokens: usage.output_tokens };
  if (usage.cache_read_input_tokens != null) mapped.cache_read_tokens = usage.cache_read_input_tokens;
  if (usage.cache_creation_input_tokens != null) mapped.cache_create_tokens = usage.cache_creation_input_tokens;
  return mapped;
}

function anthropicCallError(error: unknown, signal: AbortSignal, baseURL: string, sdk: AnthropicSdk): ModelCallError {
  const transport = transportCallError("anthropic", baseURL, sdk, error, signal);
  if (transport !== undefined) return transport;
  if (error instanceof sdk.APIError) {
    const type = error.type ?? "error";
    const detail = error.apiMessage ?? error.message;
    if (error.status === undefined) {
      // An `error` event inside a stream that had started with 200.
      return new ModelCallError(oneLine(`anthropic API stream error ${type}: ${detail}`), {
        retryable: TRANSIENT_STREAM_ERRORS.has(type),
        cause: error,
      });
    }
    return new ModelCallError(oneLine(`anthropic API ${error.status} ${type}: ${detail}`), {
      retryable: retryableStatus(error.status, error.headers),
      status: error.status,
      tooLong: refusedAsTooLong(error.status, { type, message: detail }),
      cause: error,
    });
  }
  if (error instanceof sdk.AnthropicError) {
    // The stream helper wraps what breaks mid-response (a dropped connection, a cut-off stream).
    return new ModelCallError(oneLine(`the anthropic API stream from ${baseURL} broke off: ${rootCauseText(error)}`), {
      retryable: true,
      cause: error,
    });
  }
  return new ModelCallError(oneLine(`the anthropic API call failed: ${rootCauseText(error)}`), { retryable: false, cause: error });
}
