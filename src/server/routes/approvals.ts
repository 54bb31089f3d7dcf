// Approvals: the calls waiting for a decision across the tenant's sessions, and a decision
// on one, journaled through the same approve, deny and answer as `session approve`, with
// the principal's name as the decider. A call is decided once: a second decider is told
// who decided (409).
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { listPending } from "../../agent/waiting-calls.js";
import { answer, approve, deny, type DecideOptions } from "../../session/decide-calls.js";
import { visible, visibleSession } from "../access.js";
import type { Principal } from "../principal.js";
import { CallParams, DecisionBody, DecisionResultSchema, SessionParams, WaitingCallSchema } from "../schemas.js";
import type { ServerContext, ServerEnv } from "../server-context.js";
import { json, route } from "./route.js";

const inbox = route("read", {
  method: "get",
  path: "/v1/approvals",
  summary: "the calls waiting for a decision, oldest first",
  responses: { 200: { content: json(z.object({ calls: z.array(WaitingCallSchema) })), description: "the waiting calls" } },
});

const decideCall = route("approve", {
  method: "post",
  path: "/v1/sessions/{id}/calls/{callId}/decision",
  summary: "approve, deny (with a reason) or answer a waiting call",
  request: { params: CallParams, body: { content: json(DecisionBody), required: true } },
  responses: { 200: { content: json(DecisionResultSchema), description: "journaled; a run the pool parked is queued again once no call waits" } },
});

const decideSession = route("approve", {
  method: "post",
  path: "/v1/sessions/{id}/decision",
  summary: "approve or deny every call the session waits on, or answer its one question",
  request: { params: SessionParams, body: { content: json(DecisionBody), required: true } },
  responses: { 200: { content: json(DecisionResultSchema), description: "journaled; a run the pool parked is queued again once no call waits" } },
});

export function approvalRoutes(app: OpenAPIHono<ServerEnv>, context: ServerContext): void {
  const { store, queue } = context;
  app.openapi(inbox, async (c) => {
    const principal = c.get("principal");
    const waiting = await listPending(store);
    const sessions = new Map<string, boolean>();
    for (const runId of new Set(waiting.map((call) => call.runId))) {
      sessions.set(runId, visible(principal, await store.summarize(runId, { digest: false })));
    }
    return c.json({ calls: waiting.filter((call) => sessions.get(call.runId) === true) }, 200);
  });

  /** One decision on the calls named (none: every one that waits), as the principal. */
  const decided = async (principal: Principal, id: string, calls: string[], body: z.infer<typeof DecisionBody>) => {
    await visibleSession(context, principal, id);
    const options: DecideOptions = { decidedBy: principal.name, queue, env: context.env };
    if (body.decision === "approve") return approve(store, id, calls, options);
    if (body.decision === "deny") return deny(store, id, body.reason, calls, options);
    return answer(store, id, body.answer, { ...options, ...(calls[0] === undefined ? {} : { toolUseId: calls[0] }) });
  };

  app.openapi(decideCall, async (c) => {
    const { id, callId } = c.req.valid("param");
    return c.json(await decided(c.get("principal"), id, [callId], c.req.valid("json")), 200);
  });

  app.openapi(decideSession, async (c) => {
    const { id } = c.req.valid("param");
    return c.json(await decided(c.get("principal"), id, [], c.req.valid("json")), 200);
  });
}
