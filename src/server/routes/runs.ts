// Runs: start a session on a served agent (at most once per Idempotency-Key), send a
// follow-up to one, and wait for one to end. The pool's submitRun, submitFollowUp and
// awaitSubmitted do the work; a worker drives the run.
import type { OpenAPIHono } from "@hono/zod-openapi";
import { awaitSubmitted } from "../../pool/await-submitted.js";
import { idempotentRunId, submitOnce } from "../../pool/submit-once.js";
import { requestSuspend, submitFollowUp, submitRun } from "../../pool/submit-run.js";
import { tenantRunId } from "../../runstate/store/tenant.js";
import { visibleSession } from "../access.js";
import { ServerError } from "../problem.js";
import { FollowUpBody, IdempotencyHeaders, SessionParams, StartedRun, StartRunBody, WaitQuery, WaitResult } from "../schemas.js";
import type { ServerContext, ServerEnv } from "../server-context.js";
import { json, route } from "./route.js";

const startRun = route("run", {
  method: "post",
  path: "/v1/runs",
  summary: "start a session on an agent",
  request: { body: { content: json(StartRunBody), required: true }, headers: IdempotencyHeaders },
  responses: {
    201: { content: json(StartedRun), description: "journaled and queued: follow it at /v1/sessions/{id}/events" },
    200: { content: json(StartedRun), description: "the session this Idempotency-Key started before" },
  },
});

const followUp = route("run", {
  method: "post",
  path: "/v1/sessions/{id}/follow-ups",
  summary: "queue a follow-up prompt to a session",
  request: { params: SessionParams, body: { content: json(FollowUpBody), required: true } },
  responses: { 202: { content: json(StartedRun), description: "queued for the worker pool" } },
});

const suspendRun = route("run", {
  method: "post",
  path: "/v1/sessions/{id}/suspend",
  summary: "suspend a session's run at its next boundary, wherever in the pool it runs",
  description:
    "A request that waits behind the run in the queue: the worker driving it suspends it at its next boundary (between model calls and tools, never inside one), and it stays suspended until a follow-up or a resume. 404 when the pool has no run of it; 409 when it is parked for a decision.",
  request: { params: SessionParams },
  responses: { 202: { content: json(StartedRun), description: "asked: follow the session's events for its suspended end" } },
});

const waitRun = route("read", {
  method: "get",
  path: "/v1/sessions/{id}/wait",
  summary: "wait until the session's run ends or parks, or the timeout",
  request: { params: SessionParams, query: WaitQuery },
  responses: { 200: { content: json(WaitResult), description: "the outcome, or done: false at the timeout" } },
});

export function runRoutes(app: OpenAPIHono<ServerEnv>, context: ServerContext): void {
  const { store, queue } = context;
  app.openapi(startRun, async (c) => {
    const principal = c.get("principal");
    const body = c.req.valid("json");
    const key = c.req.valid("header")["idempotency-key"];
    const agent = context.agents.get(body.agent);
    if (agent === undefined) throw new ServerError("ERR_NO_AGENT", `no agent ${JSON.stringify(body.agent)} is served here: GET /v1/agents lists them`);
    const submit = { store, queue, agent: agent.spec };
    const named = body.name === undefined ? undefined : tenantRunId(principal.tenant, body.name);
    const start = { prompt: body.prompt, cwd: context.cwd, tenant: principal.tenant, ...(body.title === undefined ? {} : { title: body.title }) };
    if (key === undefined) return c.json({ runId: await submitRun(submit, { ...start, runId: named }), replayed: false }, 201);
    const runId = named ?? idempotentRunId(principal.tenant, key);
    const once = await submitOnce(submit, { ...start, runId });
    if (once.outcome === "replayed") await visibleSession(context, principal, runId);
    if (once.outcome === "conflict")
      throw new ServerError("ERR_IDEMPOTENCY", "this Idempotency-Key started a run with another agent or prompt: use a new key for a new run");
    return once.outcome === "started" ? c.json({ runId, replayed: false }, 201) : c.json({ runId, replayed: true }, 200);
  });

  app.openapi(followUp, async (c) => {
    const { id } = c.req.valid("param");
    const { prompt, ifRunning } = c.req.valid("json");
    await visibleSession(context, c.get("principal"), id);
    await submitFollowUp({ store, queue }, id, prompt, ifRunning);
    return c.json({ runId: id, replayed: false }, 202);
  });

  app.openapi(suspendRun, async (c) => {
    const { id } = c.req.valid("param");
    await visibleSession(context, c.get("principal"), id);
    await requestSuspend({ store, queue }, id);
    return c.json({ runId: id, replayed: false }, 202);
  });

  app.openapi(waitRun, async (c) => {
    const { id } = c.req.valid("param");
    const { timeout } = c.req.valid("query");
    await visibleSession(context, c.get("principal"), id);
    const signal = AbortSignal.any([c.req.raw.signal, AbortSignal.timeout(timeout)]);
    try {
      const outcome = await awaitSubmitted(store, queue, id, { signal });
      const { reason, answer, message } = outcome;
      return c.json({ runId: id, done: true, reason, ...(answer === undefined ? {} : { answer }), ...(message === undefined ? {} : { message }) }, 200);
    } catch (error) {
      if (!signal.aborted) throw error;
      return c.json({ runId: id, done: false }, 200);
    }
  });
}
