// The seam between the agent loop and a model API. The journal's message shape is the
// Anthropic Messages shape; each provider converts to and from it.
import { FiskError } from "../errors/fisk-error.js";
import type { AssistantMessage, Message } from "../runstate/records/records.js";

/**
 * Which provider a run uses. It is recorded in the session's fingerprint, and a session
 * never resumes with another provider, not even with `force`.
 */
export type ProviderName = "anthropic" | "openai" | "script";

/** A tool as the model is told of it: what every provider sends, whatever its API calls it. */
export interface ToolSpec {
  /** The name the model calls the tool by; unique among a run's tools. */
  name: string;
  /** What the tool does, for the model: when to call it and what it returns. */
  description: string;
  /** A JSON Schema object for the tool's input, as the model APIs take it. */
  input_schema: Record<string, unknown>;
}

/**
 * Extended thinking. `off` sends no thinking setting; `enabled` gives the model a thinking
 * budget of its own; `adaptive` lets the model decide how much to think. Only the
 * anthropic provider sends it: reasoning models behind the openai provider think on
 * their own, and it has no counterpart there.
 */
export type ThinkingConfig =
  | {
      /** No thinking setting is sent. */
      mode: "off";
    }
  | {
      /** Thinking with a fixed budget. */
      mode: "enabled";
      /** Tokens the model may spend thinking in one call (the anthropic API takes at least 1024, and fewer than the call's `maxOutputTokens`). */
      budget_tokens: number;
    }
  | {
      /** The model decides how much to think. */
      mode: "adaptive";
    };

/**
 * The request a summary answers: appended to the conversation up to the cut as the user's
 * words. A provider that must tell a summarizing call from the run's own (the script
 * provider) knows it by this text, the last block of the last message.
 */
export const SUMMARY_REQUEST =
  "Summarize the conversation so far for your own later use: it will replace the conversation, and you will continue from the summary alone. " +
  "Keep the task, the decisions made and why, facts and names found (files, commands, results), what is done and what remains. " +
  "Be concise. Reply with the summary only, and call no tools.";

/** One model call as the loop asks for it, in the journal's (Anthropic Messages) shape. */
export interface ModelRequest {
  /** The model's id as the provider's API knows it, e.g. `claude-sonnet-4-5`. */
  model: string;
  /** The system prompt as sent: any resume reminder is already in it. */
  system: string;
  /** The committed conversation; providers must not mutate it (it is the journal's). */
  messages: readonly Message[];
  /** The tools the model may call; empty for none. */
  tools: readonly ToolSpec[];
  /** The output limit of this one call (the API's max_tokens), not the run's budget. */
  maxOutputTokens: number;
  /** Extended thinking for this call. */
  thinking: ThinkingConfig;
}

/**
 * The tokens one call used, by tier. The tiers do not overlap: `in_tokens` excludes what
 * was read from or written to the prompt cache. A provider whose API has no cache tier
 * leaves its field out.
 */
export interface ModelUsage {
  /** Input tokens, not counting cached ones. */
  in_tokens: number;
  /** Output tokens, thinking included. */
  out_tokens: number;
  /** Input tokens read from the prompt cache; absent when the API reports none. */
  cache_read_tokens?: number;
  /** Input tokens written to the prompt cache; absent when the API reports none. */
  cache_create_tokens?: number;
}

/** What one model call returned, ready to be journaled as an assistant record. */
export interface ModelTurn {
  /** The turn as the journal keeps it (Anthropic Messages shape), its blocks as the API sent them. */
  message: AssistantMessage;
  /**
   * Why the model stopped, in the Anthropic API's terms: `end_turn`, `tool_use`,
   * `max_tokens`, `pause_turn`, `refusal`, or whatever else the API sent.
   */
  stop_reason: string;
  /** The tokens this call used. */
  usage: ModelUsage;
  /** The model that answered, as the API named it (it may name a dated version of the one asked for); absent when the API does not say. */
  model?: string;
}

/**
 * A model API behind one method: the seam between the agent loop and a model. Built in
 * are AnthropicProvider, OpenAIProvider and ScriptProvider; a provider of your own
 * implements this and converts to and from the journal's message shape.
 */
export interface ModelProvider {
  /** Which provider this is: recorded in the session's fingerprint. */
  readonly name: ProviderName;
  /**
   * One model call. Rejects with ModelCallError; `signal` aborts it (timeout or shutdown).
   * `onText` gets the answer's text as it arrives, where the API streams it.
   */
  complete(request: ModelRequest, signal: AbortSignal, onText?: (text: string) => void): Promise<ModelTurn>;
}

/** A failed model call, classified so the retry policy need not know any SDK. */
export class ModelCallError extends FiskError<"ERR_MODEL_CALL"> {
  /** Always `"ModelCallError"`. */
  override readonly name = "ModelCallError";
  /**
   * Whether the failure may pass with time (a rate limit, an overload, a 5xx, a dropped
   * connection, a timeout): the loop retries only these, with backoff. An abort never is.
   */
  readonly retryable: boolean;
  /** The HTTP status the API answered with; undefined when there was no HTTP answer (a transport failure, an error mid-stream, a turn that could not be used). */
  readonly status: number | undefined;
  /**
   * The API refused the request as longer than the model's context window (Anthropic's
   * "prompt is too long", OpenAI's `context_length_exceeded`): sending it again never
   * helps, a shorter conversation does. A run with compaction on compacts and sends once more.
   */
  readonly tooLong: boolean;

  /**
   * @param message - One line, naming the provider and what went wrong.
   * @param options - `retryable` as above; `status` the HTTP status, if any; `tooLong` as above (default false); `cause` the underlying error, kept as `cause`.
   */
  constructor(message: string, options: { retryable: boolean; status?: number; tooLong?: boolean; cause?: unknown }) {
    super("ERR_MODEL_CALL", message, { cause: options.cause });
    this.retryable = options.retryable;
    this.status = options.status;
    this.tooLong = options.tooLong === true;
  }
}
