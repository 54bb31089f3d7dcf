// Liveness and readiness: /healthz answers while the process serves; /readyz only once the
// store answers too, so a balancer sends no request to a server cut off from its store.
import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { ServerContext, ServerEnv } from "../server-context.js";

const Health = z.object({ ok: z.boolean() }).openapi("Health");

const healthz = createRoute({
  method: "get",
  path: "/healthz",
  summary: "the process serves",
  responses: { 200: { content: { "application/json": { schema: Health } }, description: "serving" } },
});

const readyz = createRoute({
  method: "get",
  path: "/readyz",
  summary: "the store answers",
  responses: {
    200: { content: { "application/json": { schema: Health } }, description: "ready" },
    503: { content: { "application/json": { schema: Health } }, description: "the store does not answer" },
  },
});

export function healthRoutes(app: OpenAPIHono<ServerEnv>, context: ServerContext): void {
  app.openapi(healthz, (c) => c.json({ ok: true }, 200));
  app.openapi(readyz, async (c) => {
    try {
      await context.queue.list();
      return c.json({ ok: true }, 200);
    } catch {
      return c.json({ ok: false }, 503);
    }
  });
}
