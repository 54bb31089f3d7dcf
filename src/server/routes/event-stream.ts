// What every event stream of the server does around what it sends: a slot under the cap of
// open streams, a ping while it is quiet (so proxies keep it open and clients tell a quiet
// stream from a dead one), an end when the client goes, and an `error` event carrying a
// problem when what it follows fails.
import type { Context } from "hono";
import { streamSSE, type SSEStreamingApi } from "hono/streaming";
import { problemOf } from "../problem.js";
import type { ServerContext, ServerEnv } from "../server-context.js";

/** How often a stream with nothing to say sends a ping, in milliseconds. */
export const PING_MS = 15_000;

/** `send` writes the stream's events until it is done or `signal` aborts (the client went). */
export function eventStream(
  c: Context<ServerEnv>,
  context: ServerContext,
  onInternal: (error: unknown) => void,
  send: (stream: SSEStreamingApi, signal: AbortSignal) => Promise<void>,
): Response {
  const release = context.streams.take();
  return streamSSE(c, async (stream) => {
    const gone = new AbortController();
    stream.onAbort(() => gone.abort());
    const signal = AbortSignal.any([gone.signal, c.req.raw.signal]);
    const pinging = setInterval(() => void stream.writeSSE({ event: "ping", data: "" }), PING_MS);
    try {
      await send(stream, signal);
    } catch (error) {
      if (signal.aborted) return;
      await stream.writeSSE({ event: "error", data: JSON.stringify(problemOf(error, onInternal)) });
    } finally {
      clearInterval(pinging);
      release();
    }
  });
}

/** The seq of the last record a client has: its Last-Event-ID, which wins, else its `after`. */
export function lastSeen(lastEventId: string | undefined, after: number | undefined): number {
  return lastEventId === undefined ? (after ?? 0) : Number(lastEventId);
}
