// A session's records as Server-Sent Events, each event's id its record's seq: a client
// that reconnects with Last-Event-ID (or ?after=) gets every later record once, from
// whichever server answers, since the records are read from the store. The stream ends
// with an `end` event once the run is at rest or parked.
import type { OpenAPIHono } from "@hono/zod-openapi";
import { queueChanges } from "../../queue/queue-changes.js";
import { followRecords, restingStatus } from "../../session/follow-records.js";
import { visible, visibleSession } from "../access.js";
import { EventsHeaders, EventsQuery, SessionParams } from "../schemas.js";
import type { ServerContext, ServerEnv } from "../server-context.js";
import { eventStream, lastSeen } from "./event-stream.js";
import { route } from "./route.js";

const sessionEvents = route("read", {
  method: "get",
  path: "/v1/sessions/{id}/events",
  summary: "follow a session's records as they are journaled (Server-Sent Events)",
  description:
    "Each `record` event's data is a journal record and its id the record's seq. Reconnect with Last-Event-ID (or ?after=SEQ) to get every later record exactly once. A `delta` event (data: {text}, no id) is the model's text as it streams, on a server whose own workers run the session; it is not journaled: the `record` of the turn follows. An `end` event (data: the session's status) closes the stream once the run is at rest or parked; an `error` event carries a problem.",
  request: { params: SessionParams, query: EventsQuery, headers: EventsHeaders },
  responses: { 200: { content: { "text/event-stream": { schema: { type: "string" } } }, description: "the events" } },
});

const storeEvents = route("read", {
  method: "get",
  path: "/v1/events",
  summary: "follow the worker pool's queue: runs queued, parked, and leaving it (Server-Sent Events)",
  description:
    "First a `snapshot` (data: the queue's entries now), then `queued` and `parked` (data: the queue entry), and `left` (data: the run's id, status and last seq) when a run leaves the queue: ended, or withdrawn. A reconnect starts with a new snapshot.",
  responses: { 200: { content: { "text/event-stream": { schema: { type: "string" } } }, description: "the events" } },
});

export function eventRoutes(app: OpenAPIHono<ServerEnv>, context: ServerContext, onInternal: (error: unknown) => void): void {
  sessionEventRoute(app, context, onInternal);
  storeEventRoute(app, context, onInternal);
}

function sessionEventRoute(app: OpenAPIHono<ServerEnv>, context: ServerContext, onInternal: (error: unknown) => void): void {
  const { store, queue } = context;
  app.openapi(sessionEvents, async (c) => {
    const { id } = c.req.valid("param");
    const after = lastSeen(c.req.valid("header")["last-event-id"], c.req.valid("query").after);
    await visibleSession(context, c.get("principal"), id);
    return eventStream(c, context, onInternal, async (stream, signal) => {
      // Deltas carry no id: they are not journaled, and a reconnect gets the turn they made up.
      const stopDeltas = context.textDeltas?.subscribe(id, (text) => {
        stream.writeSSE({ event: "delta", data: JSON.stringify({ text }) }).catch(() => undefined);
      });
      try {
        for await (const record of followRecords(store, queue, id, after + 1, { signal })) {
          await stream.writeSSE({ id: String(record.seq), event: "record", data: JSON.stringify(record) });
        }
      } finally {
        stopDeltas?.();
      }
      await stream.writeSSE({ event: "end", data: JSON.stringify(await restingStatus(store, id)) });
    });
  });
}

function storeEventRoute(app: OpenAPIHono<ServerEnv>, context: ServerContext, onInternal: (error: unknown) => void): void {
  const { store, queue } = context;
  app.openapi(storeEvents, async (c) => {
    const principal = c.get("principal");
    const visibleRun = async (runId: string) => {
      const summary = await store.summarize(runId, { digest: false }).catch(() => undefined);
      return summary !== undefined && visible(principal, summary);
    };
    return eventStream(c, context, onInternal, async (stream, signal) => {
      for await (const change of queueChanges(queue, signal)) {
        if (change.kind === "snapshot") {
          const entries = [];
          for (const entry of change.entries) if (await visibleRun(entry.runId)) entries.push(entry);
          await stream.writeSSE({ event: "snapshot", data: JSON.stringify(entries) });
          continue;
        }
        const runId = change.kind === "left" ? change.runId : change.entry.runId;
        // A run withdrawn and removed has no session left to say whose it was: its leaving is not told.
        if (!(await visibleRun(runId))) continue;
        const data = change.kind === "left" ? { runId, ...(await restingStatus(store, runId)) } : change.entry;
        await stream.writeSSE({ event: change.kind, data: JSON.stringify(data) });
      }
    });
  });
}
