// A session's records as Server-Sent Events, each event's id its record's seq: a client
// that reconnects with Last-Event-ID (or ?after=) gets every later record once, from
// whichever server answers, since the records are read from the store. The stream ends
// with an `end` event once the run is at rest or parked.
import type { OpenAPIHono } from "@hono/zod-openapi";
import { streamSSE } from "hono/streaming";
import { followRecords, restingStatus } from "../../session/follow-records.js";
import { visibleSession } from "../access.js";
import { problemOf } from "../problem.js";
import { EventsHeaders, EventsQuery, SessionParams } from "../schemas.js";
import type { ServerContext, ServerEnv } from "../server-context.js";
import { route } from "./route.js";

const sessionEvents = route("read", {
  method: "get",
  path: "/v1/sessions/{id}/events",
  summary: "follow a session's records as they are journaled (Server-Sent Events)",
  description:
    "Each `record` event's data is a journal record and its id the record's seq. Reconnect with Last-Event-ID (or ?after=SEQ) to get every later record exactly once. An `end` event (data: the session's status) closes the stream once the run is at rest or parked; an `error` event carries a problem.",
  request: { params: SessionParams, query: EventsQuery, headers: EventsHeaders },
  responses: { 200: { content: { "text/event-stream": { schema: { type: "string" } } }, description: "the events" } },
});

export function eventRoutes(app: OpenAPIHono<ServerEnv>, context: ServerContext, onInternal: (error: unknown) => void): void {
  const { store, queue } = context;
  app.openapi(sessionEvents, async (c) => {
    const { id } = c.req.valid("param");
    const lastEventId = c.req.valid("header")["last-event-id"];
    const after = lastEventId === undefined ? (c.req.valid("query").after ?? 0) : Number(lastEventId);
    await visibleSession(context, c.get("principal"), id);
    return streamSSE(c, async (stream) => {
      const gone = new AbortController();
      stream.onAbort(() => gone.abort());
      try {
        for await (const record of followRecords(store, queue, id, after + 1, { signal: AbortSignal.any([gone.signal, c.req.raw.signal]) })) {
          await stream.writeSSE({ id: String(record.seq), event: "record", data: JSON.stringify(record) });
        }
        await stream.writeSSE({ event: "end", data: JSON.stringify(await restingStatus(store, id)) });
      } catch (error) {
        if (gone.signal.aborted || c.req.raw.signal.aborted) return;
        await stream.writeSSE({ event: "error", data: JSON.stringify(problemOf(error, onInternal)) });
      }
    });
  });
}
