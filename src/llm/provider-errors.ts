// What both SDK-backed providers need to turn a failed call into a ModelCallError:
// which statuses pass with time, how an abort reads, and one line from a nested cause.
import { ModelCallError } from "./model-provider.js";

/** 408, 409, 429 and 5xx pass with time, as the SDKs' own retry logic has it, unless the server says otherwise. */
export function retryableStatus(status: number, headers: Headers | undefined): boolean {
  const hint = headers?.get("x-should-retry");
  if (hint === "true") return true;
  if (hint === "false") return false;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** An aborted call is the caller's decision (timeout or shutdown), so it is never retried here. */
function abortedCallError(provider: string, signal: AbortSignal, cause: unknown): ModelCallError {
  return new ModelCallError(`the ${provider} API call was aborted: ${abortReasonText(signal.reason)}`, {
    retryable: false,
    cause,
  });
}

function abortReasonText(reason: unknown): string {
  if (typeof reason === "string" && reason !== "") return reason;
  if (typeof reason === "object" && reason !== null) {
    const { name, message } = reason as { name?: unknown; message?: unknown };
    // AbortSignal.timeout() aborts with a DOMException named TimeoutError.
    if (name === "TimeoutError") return "timed out";
    if (typeof message === "string" && message !== "") return message;
  }
  return "aborted";
}

/** The innermost cause's message (with its errno code): "fetch failed" alone says nothing. */
export function rootCauseText(error: unknown): string {
  let current = error;
  for (let depth = 0; depth < 8 && current instanceof Error && current.cause !== undefined; depth++) current = current.cause;
  // A refused dual-stack connect is an AggregateError with an empty message.
  if (current instanceof AggregateError && current.message === "" && current.errors.length > 0) current = current.errors[0];
  if (!(current instanceof Error)) return String(current);
  const code = (current as NodeJS.ErrnoException).code;
  const message = current.message === "" ? current.name : current.message;
  return typeof code === "string" && !message.includes(code) ? `${message} (${code})` : message;
}

/** Error messages are single lines: they end up in one log line and one terminal record. */
export function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").trim();
}

/** An error class of an SDK, for instanceof. */
type ErrorClass = abstract new (...args: never[]) => Error;

/** The classes both SDKs (Anthropic's and OpenAI's, one Stainless shape) give a failure before any answer. */
export interface TransportErrorClasses {
  APIUserAbortError: ErrorClass;
  APIConnectionTimeoutError: ErrorClass;
  APIConnectionError: ErrorClass;
}

/** How an SDK's error class places a failure that happened before any answer. */
function transportFailure(error: unknown, sdk: TransportErrorClasses): "aborted" | "timed_out" | "unreachable" | undefined {
  if (error instanceof sdk.APIUserAbortError) return "aborted";
  // The timeout class extends the connection class, so it is asked first.
  if (error instanceof sdk.APIConnectionTimeoutError) return "timed_out";
  return error instanceof sdk.APIConnectionError ? "unreachable" : undefined;
}

/**
 * The failures both SDKs report alike: an abort (the caller's decision, never retried
 * here), a connect that timed out or could not be made (both pass with time).
 */
export function transportCallError(
  provider: string,
  baseURL: string,
  sdk: TransportErrorClasses,
  error: unknown,
  signal: AbortSignal,
): ModelCallError | undefined {
  const failure = transportFailure(error, sdk);
  // Checked first: an abort can surface as any of the SDK's errors, depending on when it hit.
  if (signal.aborted || failure === "aborted") return abortedCallError(provider, signal, error);
  if (failure === "timed_out") {
    return new ModelCallError(`the ${provider} API at ${baseURL} did not answer in time`, { retryable: true, cause: error });
  }
  if (failure === "unreachable") {
    return new ModelCallError(oneLine(`cannot reach the ${provider} API at ${baseURL}: ${rootCauseText(error)}`), {
      retryable: true,
      cause: error,
    });
  }
  return undefined;
}

/**
 * Whether an API's 400 refuses the request as longer than the model's context window.
 * Anthropic: `invalid_request_error` "prompt is too long: N tokens > M maximum"; OpenAI
 * (and servers that copy it): the code `context_length_exceeded`.
 */
export function refusedAsTooLong(status: number, kind: { type?: string | null | undefined; code?: string | null | undefined; message: string }): boolean {
  if (status !== 400) return false;
  if (kind.code === "context_length_exceeded") return true;
  return kind.type === "invalid_request_error" && /^prompt is too long\b/i.test(kind.message);
}
