// GET /metrics: Prometheus's text format, for admins only (it counts every tenant's runs,
// though no label names one).
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { ServerEnv } from "../server-context.js";
import type { ServerMetrics } from "../server-metrics.js";
import { route } from "./route.js";

/** Where the metrics are served. */
export const METRICS_PATH = "/metrics";

const metricsRoute = route("admin", {
  method: "get",
  path: METRICS_PATH,
  summary: "the server's metrics, in Prometheus's text format",
  description:
    "Runs in the queue by state, the queue's depth, runs settled by this process's workers by outcome, event streams open, and request latency by route pattern and status class. No label names a tenant or a session.",
  responses: { 200: { content: { "text/plain": { schema: z.string() } }, description: "the metrics (text format 0.0.4)" } },
});

export function metricsRoutes(app: OpenAPIHono<ServerEnv>, metrics: ServerMetrics): void {
  app.openapi(metricsRoute, async (c) => c.text(await metrics.scrape(), 200, { "content-type": metrics.registry.contentType }));
}
