// The seam between the agent loop and a model API. The journal's message shape is the
// Anthropic Messages shape; each provider converts to and from it.
import type { AssistantMessage, Message } from "../runstate/records.js";

export type ProviderName = "anthropic" | "openai" | "script";

export interface ToolSpec {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

export type ThinkingConfig = { mode: "off" } | { mode: "enabled"; budget_tokens: number } | { mode: "adaptive" };

export interface ModelRequest {
  model: string;
  /** The system prompt as sent: any resume reminder is already in it. */
  system: string;
  /** The committed conversation; providers must not mutate it (it is the journal's). */
  messages: readonly Message[];
  tools: readonly ToolSpec[];
  /** The output limit of this one call (the API's max_tokens), not the run's budget. */
  maxOutputTokens: number;
  thinking: ThinkingConfig;
}

export interface ModelUsage {
  in_tokens: number;
  out_tokens: number;
  cache_read_tokens?: number;
  cache_create_tokens?: number;
}

export interface ModelTurn {
  message: AssistantMessage;
  stop_reason: string;
  usage: ModelUsage;
}

export interface ModelProvider {
  readonly name: ProviderName;
  /**
   * One model call. Rejects with ModelCallError; `signal` aborts it (timeout or shutdown).
   * `onText` gets the answer's text as it arrives, where the API streams it.
   */
  complete(request: ModelRequest, signal: AbortSignal, onText?: (text: string) => void): Promise<ModelTurn>;
}

/** A failed model call, classified so the retry policy need not know any SDK. */
export class ModelCallError extends Error {
  override readonly name = "ModelCallError";
  readonly retryable: boolean;
  readonly status: number | undefined;

  constructor(message: string, options: { retryable: boolean; status?: number; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.retryable = options.retryable;
    this.status = options.status;
  }
}
