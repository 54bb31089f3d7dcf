// How long serve gives a slow client: its request's headers, then the whole request with
// its body. Past either, Node answers 408 and closes the connection, and the other clients
// go on being served. A stream (SSE) is past its request, so no timeout here cuts it.
import { UsageError } from "../cli-errors.js";

/** How long a client may take to send a request's headers, in milliseconds, unless --headers-timeout says. */
export const HEADERS_TIMEOUT_MS = 10_000;
/** How long a client may take to send a whole request, its body too, in milliseconds, unless --request-timeout says. */
export const REQUEST_TIMEOUT_MS = 5 * 60_000;
/** How often Node looks for a request past its timeout at most, in milliseconds (Node's default is 30 s, which would let a 10 s timeout run to 40). */
const CHECK_EVERY_MS = 1000;

/** The node:http server options of --headers-timeout and --request-timeout. */
export function serveTimeouts(flags: { headersTimeout?: string; requestTimeout?: string }): {
  headersTimeout: number;
  requestTimeout: number;
  connectionsCheckingInterval: number;
} {
  const headersTimeout = milliseconds(flags.headersTimeout, "--headers-timeout", HEADERS_TIMEOUT_MS);
  const requestTimeout = milliseconds(flags.requestTimeout, "--request-timeout", REQUEST_TIMEOUT_MS);
  if (headersTimeout > requestTimeout)
    throw new UsageError(`--headers-timeout ${headersTimeout} is longer than --request-timeout ${requestTimeout}: the request's time includes its headers'`);
  return { headersTimeout, requestTimeout, connectionsCheckingInterval: Math.min(CHECK_EVERY_MS, headersTimeout) };
}

function milliseconds(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(number) || number < 1)
    throw new UsageError(`${flag} takes milliseconds, a whole number from 1, not ${JSON.stringify(value)}`);
  return number;
}
