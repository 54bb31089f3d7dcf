// A session's transcript: its records as the things a reader sees (src/transcript/), in
// windows from the end, and followed live. What the console shows, made where the keys that
// verify decisions and the child sessions are: the page only lays entries out. The live
// stream does not end when the run parks or rests, as the record stream does: a page stays
// on a session while someone else decides its call or sends it a follow-up.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { followRecords } from "../../session/follow-records.js";
import { ChildSessions } from "../../transcript/child-sessions.js";
import type { TranscriptReader } from "../../transcript/transcript-entries.js";
import { trustedKeys } from "../../trust/keyring.js";
import { visibleSession } from "../access.js";
import { EventsHeaders, EventsQuery, Seq, SessionParams } from "../schemas.js";
import type { ServerContext, ServerEnv } from "../server-context.js";
import { eventStream, lastSeen } from "./event-stream.js";
import { route } from "./route.js";

/** Records read before a window and not shown, so its first results are named after their calls. */
const LEAD_IN = 8;
const MAX_WINDOW = 1000;

const EntrySchema = z
  .object({ seq: z.number().int(), kind: z.enum(["user", "text", "thinking", "tool_call", "child", "tool_result", "model_call", "other", "marker"]) })
  .passthrough()
  .openapi("TranscriptEntry", { description: "one thing said or done in the session (src/transcript/transcript-entries.ts names each kind's members)" });

const WindowQuery = z.object({
  before: Seq.optional().openapi({ description: "the window ends before this seq (default: after the last record)" }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_WINDOW)
    .optional()
    .openapi({ description: `records in the window, at most ${MAX_WINDOW} (default 200)` }),
});

const TranscriptWindow = z
  .object({
    entries: z.array(EntrySchema),
    firstSeq: z.number().int().openapi({ description: "the window's first record: ask before it for the earlier ones" }),
    lastSeq: z.number().int().openapi({ description: "the window's last record: follow after it" }),
    more: z.boolean().openapi({ description: "whether records come before the window" }),
  })
  .openapi("TranscriptWindow");

const window = route("read", {
  method: "get",
  path: "/v1/sessions/{id}/transcript",
  summary: "a window of a session's transcript, from its end",
  request: { params: SessionParams, query: WindowQuery },
  responses: { 200: { content: { "application/json": { schema: TranscriptWindow } }, description: "the window" } },
});

const follow = route("read", {
  method: "get",
  path: "/v1/sessions/{id}/transcript/events",
  summary: "follow a session's transcript (Server-Sent Events), through parks and follow-ups",
  description:
    "Each `record` event's data is `{entries}`, a record's transcript entries, and its id the record's seq: reconnect with Last-Event-ID (or ?after=SEQ) for every later record once. A `status` event (data: `{status}`) says the run parked or came to rest; the stream stays open for what comes next.",
  request: { params: SessionParams, query: EventsQuery, headers: EventsHeaders },
  responses: { 200: { content: { "text/event-stream": { schema: { type: "string" } } }, description: "the events" } },
});

export function transcriptRoutes(app: OpenAPIHono<ServerEnv>, context: ServerContext, onInternal: (error: unknown) => void): void {
  const { store, queue } = context;
  const readerOf = async (runId: string): Promise<TranscriptReader> => new ChildSessions(store, trustedKeys(context.env)).readerOf(runId);

  app.openapi(window, async (c) => {
    const { id } = c.req.valid("param");
    const { before, limit = 200 } = c.req.valid("query");
    const { lastSeq } = await visibleSession(context, c.get("principal"), id);
    const last = Math.min(lastSeq, before === undefined ? lastSeq : before - 1);
    const first = Math.max(1, last - limit + 1);
    const reader = await readerOf(id);
    const entries = [];
    for await (const record of store.readRecords(id, Math.max(1, first - LEAD_IN))) {
      if (record.seq > last) break;
      const read = reader.entriesOf(record);
      if (record.seq >= first) entries.push(...read);
    }
    return c.json({ entries, firstSeq: first, lastSeq: last, more: first > 1 }, 200);
  });

  app.openapi(follow, async (c) => {
    const { id } = c.req.valid("param");
    const after = lastSeen(c.req.valid("header")["last-event-id"], c.req.valid("query").after);
    await visibleSession(context, c.get("principal"), id);
    return eventStream(c, context, onInternal, async (stream, signal) => {
      const watch = queue.watch(id);
      try {
        const reader = await readerOf(id);
        let next = after + 1;
        // Read from before the client's last record, so each result is named after its call; only what the client lacks is sent.
        for await (const record of store.readRecords(id, Math.max(1, next - LEAD_IN))) if (record.seq < next) reader.entriesOf(record);
        // The client gone, the stream ends (a watch's wait resolves at once on an abort, and never rejects).
        while (!signal.aborted) {
          for await (const record of followRecords(store, queue, id, next, { signal })) {
            next = record.seq + 1;
            await stream.writeSSE({ id: String(record.seq), event: "record", data: JSON.stringify({ entries: reader.entriesOf(record) }) });
          }
          const entry = await queue.get(id);
          await stream.writeSSE({ event: "status", data: JSON.stringify({ status: entry?.state ?? (await store.summarize(id, { digest: false })).status }) });
          await watch.next(60_000, signal);
        }
      } finally {
        watch.close();
      }
    });
  });
}
