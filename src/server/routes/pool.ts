// The worker pool: the queue's entries (waiting, running, parked, with the follow-ups
// behind them) and the processes driving runs now. An admin's view of the whole pool,
// scoped to the tenant's sessions like every other.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { poolProcesses, queueOverview } from "../../pool/queue-overview.js";
import { visible } from "../access.js";
import type { ServerContext, ServerEnv } from "../server-context.js";
import { json, route } from "./route.js";

const Holder = z.object({ pid: z.number().int(), host: z.string(), started: z.string() });

const QueueItemSchema = z
  .object({
    runId: z.string(),
    state: z.enum(["queued", "running", "parked"]),
    queued: z.string(),
    followUp: z.boolean(),
    holder: Holder.optional(),
    behind: z.number().int().openapi({ description: "follow-ups waiting behind it" }),
  })
  .openapi("QueueItem");

const queueRoute = route("read", {
  method: "get",
  path: "/v1/queue",
  summary: "the runs queued, running and parked for the worker pool, oldest first",
  responses: { 200: { content: json(z.object({ runs: z.array(QueueItemSchema) })), description: "the queue" } },
});

const workersRoute = route("admin", {
  method: "get",
  path: "/v1/workers",
  summary: "the processes driving runs now: host, pid, since when, which runs",
  responses: {
    200: { content: json(z.object({ workers: z.array(Holder.extend({ runs: z.array(z.string()) })) })), description: "the processes" },
  },
});

export function poolRoutes(app: OpenAPIHono<ServerEnv>, context: ServerContext): void {
  const { store, queue } = context;
  const visibleItems = async (principal: Parameters<typeof visible>[0]) => {
    const items = [];
    for (const item of await queueOverview(store, queue)) {
      const summary = await store.summarize(item.entry.runId, { digest: false }).catch(() => undefined);
      if (summary !== undefined && visible(principal, summary)) items.push(item);
    }
    return items;
  };
  app.openapi(queueRoute, async (c) => {
    const runs = (await visibleItems(c.get("principal"))).map(({ entry, holder, behind }) => ({
      runId: entry.runId,
      state: holder !== undefined ? ("running" as const) : entry.state,
      queued: entry.queued,
      followUp: entry.followUp !== undefined,
      ...(holder === undefined ? {} : { holder }),
      behind: behind.length,
    }));
    return c.json({ runs }, 200);
  });
  app.openapi(workersRoute, async (c) => c.json({ workers: poolProcesses(await visibleItems(c.get("principal"))) }, 200));
}
