// One model call under a per-call timeout, retried with exponential backoff when the
// failure is one that passes (rate limits, overload, 5xx, a dropped connection).
import { setTimeout as sleep } from "node:timers/promises";
import { ModelCallError, type ModelProvider, type ModelRequest, type ModelTurn } from "./model-provider.js";

export interface RetryPolicy {
  attempts: number;
  baseDelayMs: number;
  timeoutMs: number;
}

export interface RetryHooks {
  /** Aborts the call and any wait between attempts. */
  signal: AbortSignal;
  onRetry?(attempt: number, delayMs: number, error: ModelCallError): void;
  /** The text of the attempt under way as it streams; a retry streams again from the start. */
  onText?(text: string): void;
}

export async function callWithRetries(provider: ModelProvider, request: ModelRequest, policy: RetryPolicy, hooks: RetryHooks): Promise<ModelTurn> {
  for (let attempt = 1; ; attempt++) {
    // A timer of our own rather than AbortSignal.timeout, whose timer does not keep the
    // process alive: a call stuck on nothing else would end the process, not time out.
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new DOMException("timed out", "TimeoutError")), policy.timeoutMs);
    try {
      return await provider.complete(request, AbortSignal.any([hooks.signal, timeout.signal]), hooks.onText);
    } catch (caught) {
      const error =
        timeout.signal.aborted && !hooks.signal.aborted
          ? new ModelCallError(`the model call timed out after ${policy.timeoutMs / 1000}s`, { retryable: true, cause: caught })
          : asModelCallError(caught);
      if (!error.retryable || attempt >= policy.attempts || hooks.signal.aborted) throw error;
      // Full jitter keeps many clients from retrying in step after one outage.
      const delayMs = Math.round(policy.baseDelayMs * 2 ** (attempt - 1) * (0.5 + Math.random() / 2));
      hooks.onRetry?.(attempt, delayMs, error);
      await sleep(delayMs, undefined, { signal: hooks.signal }).catch(() => undefined);
      if (hooks.signal.aborted) throw error;
    } finally {
      clearTimeout(timer);
    }
  }
}

function asModelCallError(error: unknown): ModelCallError {
  if (error instanceof ModelCallError) return error;
  return new ModelCallError(error instanceof Error ? error.message : String(error), { retryable: false, cause: error });
}
