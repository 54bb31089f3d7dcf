// What every event stream of the server does around what it sends: a slot under the cap of
// open streams, a ping while it is quiet (so proxies keep it open and clients tell a quiet
// stream from a dead one), an end when the client goes or its key is revoked, and an
// `error` event carrying a problem when what it follows fails.
import type { Context } from "hono";
import { streamSSE, type SSEStreamingApi } from "hono/streaming";
import { problemOf, ServerError } from "../problem.js";
import type { ServerContext, ServerEnv } from "../server-context.js";

/** How often a stream with nothing to say sends a ping, in milliseconds. */
export const PING_MS = 15_000;

/** What a stream's sender writes with. */
export type EventWriter = Pick<SSEStreamingApi, "writeSSE">;

/**
 * `send` writes the stream's events until it is done or `signal` aborts (the client went, or
 * the key the stream was opened with no longer holds: asked before each event and ping, and
 * whenever the server is told its keys changed).
 */
export function eventStream(
  c: Context<ServerEnv>,
  context: ServerContext,
  onInternal: (error: unknown) => void,
  send: (stream: EventWriter, signal: AbortSignal) => Promise<void>,
): Response {
  const principal = c.get("principal");
  const revoked = new AbortController();
  const holds = () => {
    if (!revoked.signal.aborted && !context.stillValid(principal)) revoked.abort();
    return !revoked.signal.aborted;
  };
  const release = context.streams.take(holds);
  return streamSSE(c, async (stream) => {
    const gone = new AbortController();
    stream.onAbort(() => gone.abort());
    const writer: EventWriter = {
      writeSSE: async (message) => {
        if (holds()) await stream.writeSSE(message);
      },
    };
    const signal = AbortSignal.any([gone.signal, c.req.raw.signal, revoked.signal]);
    const pinging = setInterval(() => void writer.writeSSE({ event: "ping", data: "" }), PING_MS);
    let failure: unknown;
    try {
      await send(writer, signal);
    } catch (error) {
      failure = error;
    } finally {
      clearInterval(pinging);
      release();
    }
    if (gone.signal.aborted || c.req.raw.signal.aborted) return;
    if (revoked.signal.aborted)
      failure = new ServerError("ERR_UNAUTHENTICATED", "the key this stream was opened with is no longer accepted: reconnect with a valid key");
    if (failure !== undefined) await stream.writeSSE({ event: "error", data: JSON.stringify(problemOf(failure, onInternal)) });
  });
}

/** The seq of the last record a client has: its Last-Event-ID, which wins, else its `after`. */
export function lastSeen(lastEventId: string | undefined, after: number | undefined): number {
  return lastEventId === undefined ? (after ?? 0) : Number(lastEventId);
}
