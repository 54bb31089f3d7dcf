// Sessions: list (filtered, a page at a time), one at a glance, its records in windows,
// remove, fork, compact, rename, export (the bytes `session export` writes) and import.
// Each is one library call; this renders its result as JSON.
import { Readable } from "node:stream";
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { ledgerOf, tokensOf } from "../../ledger/ledger.js";
import type { RunStatus, RunSummary } from "../../runstate/store/store.js";
import { compactSession } from "../../session/compact-session.js";
import { recordWindow } from "../../session/record-window.js";
import { removeSession } from "../../session/remove-session.js";
import { sessionOverview } from "../../session/session-overview.js";
import { sessionPage } from "../../session/session-page.js";
import { sessionAgentPath } from "../../session/session-agent-path.js";
import { titleSession } from "../../session/session-title.js";
import { exportJournal, forkSession, importJournal } from "../../session/transfer.js";
import { tenantStore } from "../../backends/tenant-store.js";
import { tenantRunId } from "../../runstate/store/tenant.js";
import { visible, visibleSession } from "../access.js";
import { ServerError } from "../problem.js";
import {
  ForkBody,
  ImportQuery,
  RecordsQuery,
  RecordsSchema,
  RenameBody,
  SessionListQuery,
  SessionListSchema,
  SessionOverviewSchema,
  SessionParams,
  SessionSchema,
} from "../schemas.js";
import type { ServedAgent, ServerContext, ServerEnv } from "../server-context.js";
import { json, route } from "./route.js";

/** The path of the import route, which takes a journal of any size up to its own limit. */
export const IMPORT_PATH = "/v1/sessions/import";

const list = route("read", {
  method: "get",
  path: "/v1/sessions",
  summary: "list sessions, newest first, a page at a time",
  request: { query: SessionListQuery },
  responses: { 200: { content: json(SessionListSchema), description: "a page; `next` is the cursor of the next one" } },
});

const show = route("read", {
  method: "get",
  path: "/v1/sessions/{id}",
  summary: "one session: its summary, cost per call and total, children, waiting calls",
  request: { params: SessionParams },
  responses: { 200: { content: json(SessionOverviewSchema), description: "the session" } },
});

const records = route("read", {
  method: "get",
  path: "/v1/sessions/{id}/records",
  summary: "a window of the session's records: after and before a seq, at most limit",
  request: { params: SessionParams, query: RecordsQuery },
  responses: { 200: { content: json(RecordsSchema), description: "the records; `next` is the `after` of the next window" } },
});

const remove = route("run", {
  method: "delete",
  path: "/v1/sessions/{id}",
  summary: "remove a session and its child sessions (not while it is queued or running)",
  request: { params: SessionParams },
  responses: { 200: { content: json(z.object({ removed: z.array(z.string()) })), description: "the sessions removed" } },
});

const fork = route("run", {
  method: "post",
  path: "/v1/sessions/{id}/fork",
  summary: "copy the session through a seq (its last by default) as a new session",
  request: { params: SessionParams, body: { content: json(ForkBody), required: true } },
  responses: { 201: { content: json(z.object({ runId: z.string(), at: z.number().int() })), description: "the fork" } },
});

const compact = route("run", {
  method: "post",
  path: "/v1/sessions/{id}/compact",
  summary: "summarize the session's older conversation with its agent's model",
  request: { params: SessionParams },
  responses: { 200: { content: json(z.object({ compactions: z.array(z.looseObject({})) })), description: "the compaction records journaled" } },
});

const rename = route("run", {
  method: "patch",
  path: "/v1/sessions/{id}",
  summary: "give the session a title",
  request: { params: SessionParams, body: { content: json(RenameBody), required: true } },
  responses: { 200: { content: json(SessionSchema), description: "the session, titled" } },
});

const exportRoute = route("read", {
  method: "get",
  path: "/v1/sessions/{id}/export",
  summary: "the session's journal, the bytes `fisk-ai session export` writes",
  request: { params: SessionParams },
  responses: { 200: { content: { "application/x-ndjson": { schema: z.string() } }, description: "the journal, one record a line" } },
});

const importRoute = route("run", {
  method: "post",
  path: IMPORT_PATH,
  summary: "import an exported journal (under its own id, or as a copy named `name`)",
  request: { query: ImportQuery, body: { content: { "application/x-ndjson": { schema: z.string() } }, required: true } },
  responses: { 201: { content: json(z.object({ runId: z.string() })), description: "imported" } },
});

/** The names of the served agents, by the agent.yaml a session's meta names (`config`). */
function agentNames(agents: ReadonlyMap<string, ServedAgent>): ReadonlyMap<string, string> {
  const names = new Map<string, string>();
  for (const agent of agents.values()) if (agent.spec.configPath !== undefined) names.set(agent.spec.configPath, agent.name);
  return names;
}

/** A summary as the API shows it; its cost and tokens from its digest, where the store keeps one. */
function sessionJson(summary: RunSummary, agents: ReadonlyMap<string, string>): z.infer<typeof SessionSchema> {
  const { meta, digest } = summary;
  const agent = meta?.config === undefined ? undefined : agents.get(meta.config);
  const ledger = digest === undefined ? undefined : ledgerOf([digest]);
  return {
    runId: summary.runId,
    status: summary.status,
    ...(digest?.title === undefined ? {} : { title: digest.title }),
    ...(meta === undefined ? {} : { prompt: meta.prompt, created: meta.created, model: meta.fingerprint.model }),
    updated: summary.updated,
    lastSeq: summary.lastSeq,
    ...(meta?.parent === undefined ? {} : { parent: meta.parent.run_id }),
    ...(agent === undefined ? {} : { agent }),
    ...(ledger === undefined
      ? {}
      : { cost: ledger.cost, tokens: tokensOf(ledger.usage), ...(ledger.unpriced.length === 0 ? {} : { unpriced: ledger.unpriced }) }),
  };
}

export function sessionRoutes(app: OpenAPIHono<ServerEnv>, context: ServerContext, importLimit: number): void {
  readingRoutes(app, context);
  changingRoutes(app, context, importLimit);
}

/** List, show, read the records of and remove a session. */
function readingRoutes(app: OpenAPIHono<ServerEnv>, context: ServerContext): void {
  const { store, queue } = context;
  const agents = agentNames(context.agents);
  app.openapi(list, async (c) => {
    const principal = c.get("principal");
    const query = c.req.valid("query");
    const agent = query.agent === undefined ? undefined : context.agents.get(query.agent);
    if (query.agent !== undefined && agent === undefined) return c.json({ sessions: [] }, 200);
    const mine = (await store.list()).filter((summary) => visible(principal, summary));
    const page = sessionPage(
      mine,
      {
        status: query.status?.split(",") as RunStatus[] | undefined,
        config: agent?.spec.configPath,
        text: query.q,
        parent: query.parent,
        updatedSince: query.since,
      },
      { limit: query.limit, cursor: query.cursor },
    );
    return c.json({ sessions: page.sessions.map((summary) => sessionJson(summary, agents)), ...(page.next === undefined ? {} : { next: page.next }) }, 200);
  });

  app.openapi(show, async (c) => {
    const { id } = c.req.valid("param");
    await visibleSession(context, c.get("principal"), id);
    const { summary, calls, total, children, waiting } = await sessionOverview(store, id);
    return c.json({ session: sessionJson(summary, agents), calls: calls.map((call) => ({ ...call, cost: call.cost ?? null })), total, children, waiting }, 200);
  });

  app.openapi(records, async (c) => {
    const { id } = c.req.valid("param");
    await visibleSession(context, c.get("principal"), id);
    return c.json(await recordWindow(store, id, c.req.valid("query")), 200);
  });

  app.openapi(remove, async (c) => {
    const { id } = c.req.valid("param");
    await visibleSession(context, c.get("principal"), id);
    return c.json({ removed: [id, ...(await removeSession(store, queue, id))] }, 200);
  });
}

/** Fork, compact, rename, export and import. */
function changingRoutes(app: OpenAPIHono<ServerEnv>, context: ServerContext, importLimit: number): void {
  const { store } = context;
  const agents = agentNames(context.agents);
  app.openapi(fork, async (c) => {
    const { id } = c.req.valid("param");
    const principal = c.get("principal");
    await visibleSession(context, principal, id);
    const { at, name } = c.req.valid("json");
    const forked = await forkSession(store, id, {
      ...(at === undefined ? {} : { at }),
      ...(name === undefined ? {} : { name: tenantRunId(principal.tenant, name) }),
    });
    return c.json({ runId: forked.forkId, at: forked.at }, 201);
  });

  app.openapi(compact, async (c) => {
    const { id } = c.req.valid("param");
    const summary = await visibleSession(context, c.get("principal"), id);
    const served = new Map([...context.agents.values()].map((each) => [each.spec.configPath, each]));
    const path = sessionAgentPath(summary.meta, { available: (recorded) => served.has(recorded) });
    const agent = path === undefined ? undefined : served.get(path);
    if (agent === undefined)
      throw new ServerError("ERR_NO_AGENT", `session ${id} was not started with an agent served here: compact it where its agent.yaml is`);
    const { provider, model, system, tools } = agent.spec;
    const compactions = await compactSession({
      store,
      session: id,
      provider,
      model,
      system,
      tools,
    });
    return c.json({ compactions }, 200);
  });

  app.openapi(rename, async (c) => {
    const { id } = c.req.valid("param");
    await visibleSession(context, c.get("principal"), id);
    await titleSession(store, id, c.req.valid("json").title);
    return c.json(sessionJson(await store.summarize(id), agents), 200);
  });

  transferRoutes(app, context, importLimit);
}

/** Export and import. */
function transferRoutes(app: OpenAPIHono<ServerEnv>, context: ServerContext, importLimit: number): void {
  const { store } = context;
  app.openapi(exportRoute, async (c) => {
    const { id } = c.req.valid("param");
    await visibleSession(context, c.get("principal"), id);
    const { pieces, length } = await exportJournal(store, id);
    // Sent as it is read; should it change before its end, the response is cut short, never completed with other bytes.
    const body = Readable.toWeb(Readable.from(pieces())) as ReadableStream<Uint8Array>;
    // @hono/zod-openapi types application/x-ndjson as a JSON media type that matches no response: `never` it is.
    return c.body(body, 200, { "content-type": "application/x-ndjson", "content-length": String(length) }) as never;
  });

  app.use(
    IMPORT_PATH,
    bodyLimit({
      maxSize: importLimit,
      onError: () => {
        throw new ServerError("ERR_TOO_LARGE", `the journal is over ${importLimit} bytes, this server's import limit`);
      },
    }),
  );
  app.openapi(importRoute, async (c) => {
    const principal = c.get("principal");
    const { name } = c.req.valid("query");
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    // Into the principal's tenant alone: a journal of another tenant's is refused, not planted there.
    const runId = await importJournal(tenantStore(store, principal.tenant), bytes, {
      from: "http",
      by: principal.name,
      ...(name === undefined ? {} : { name: tenantRunId(principal.tenant, name) }),
    });
    return c.json({ runId }, 201);
  });
}
