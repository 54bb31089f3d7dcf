// What GET /metrics tells Prometheus, in a registry of this server's own (a program may
// mount two servers; prom-client's global registry would mix them). No label names a
// tenant or a session: runs are counted, requests are labelled by their route's pattern
// (ids are in paths) and their status class.
// The live runs (queued, running, parked) are read from the queue at each scrape, the
// work GET /v1/queue does: its cost follows the queue's depth, not the store's size. Runs
// at rest are not listed from the store (a listing reads every session): the runs this
// process's workers let go of are counted as they settle, a counter from the process's start.
import type { MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { Settled } from "../pool/drive-claimed.js";
import { queueOverview } from "../pool/queue-overview.js";
import type { WorkerEvents } from "../pool/worker.js";
import type { ServerContext } from "./server-context.js";

/** The methods a request is labelled by; any other is `other`, so a client cannot make new series. */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** The states of a run in the queue, each a series even at zero. */
const QUEUE_STATES = ["queued", "running", "parked"] as const;

/** A server's metrics and the hooks that feed them. */
export class ServerMetrics {
  readonly registry = new Registry();
  readonly #context: Pick<ServerContext, "store" | "queue" | "streams">;
  readonly #requests = new Histogram({
    name: "fisk_http_request_duration_seconds",
    help: "Time from a request's arrival to its response's head, by method, route pattern and status class.",
    labelNames: ["method", "route", "status"] as const,
    registers: [this.registry],
  });
  readonly #runs = new Gauge({
    name: "fisk_runs",
    help: "Runs in the worker pool's queue now, by state: queued for a worker, running (a worker holds it), parked for a decision.",
    labelNames: ["state"] as const,
    registers: [this.registry],
  });
  readonly #depth = new Gauge({
    name: "fisk_queue_depth",
    help: "Work waiting for a worker now: runs queued and not yet taken, and follow-ups waiting behind runs.",
    registers: [this.registry],
  });
  readonly #settled = new Counter({
    name: "fisk_runs_settled_total",
    help: "Runs this process's workers let go of, by outcome: a terminal reason (completed, error, budget, max_iterations, suspended), parked, handed_back or dropped.",
    labelNames: ["outcome"] as const,
    registers: [this.registry],
  });
  readonly #streams = new Gauge({
    name: "fisk_sse_clients",
    help: "Event streams (Server-Sent Events) open now.",
    registers: [this.registry],
  });

  constructor(context: Pick<ServerContext, "store" | "queue" | "streams">) {
    this.#context = context;
  }

  /** Middleware timing every request, to go before every other. */
  readonly timing: MiddlewareHandler = async (c, next) => {
    const stop = this.#requests.startTimer();
    await next();
    stop({ method: METHODS.has(c.req.method) ? c.req.method : "other", route: routePattern(c), status: `${Math.floor(c.res.status / 100)}xx` });
  };

  /** `events` (a Worker's), also counting each run it settles. */
  workerEvents(events: WorkerEvents = {}): WorkerEvents {
    return {
      ...events,
      settled: (entry, settled) => {
        this.#settled.inc({ outcome: outcomeOf(settled) });
        events.settled?.(entry, settled);
      },
    };
  }

  /** The metrics now, in Prometheus's text format: the queue read once. */
  async scrape(): Promise<string> {
    const items = await queueOverview(this.#context.store, this.#context.queue);
    const counts = new Map<string, number>(QUEUE_STATES.map((state) => [state, 0]));
    let waiting = 0;
    for (const { entry, holder, behind } of items) {
      const state = holder !== undefined ? "running" : entry.state;
      counts.set(state, (counts.get(state) ?? 0) + 1);
      waiting += (state === "queued" ? 1 : 0) + behind.length;
    }
    for (const [state, count] of counts) this.#runs.set({ state }, count);
    this.#depth.set(waiting);
    this.#streams.set(this.#context.streams.open);
    return this.registry.metrics();
  }
}

/** The pattern of the route that answered (`/v1/sessions/:id`), never the path itself; `unmatched` when no route did. */
function routePattern(c: Parameters<MiddlewareHandler>[0]): string {
  // Middleware is registered for every method (ALL); a route for its own.
  return matchedRoutes(c).findLast((route) => route.method !== "ALL")?.path ?? "unmatched";
}

function outcomeOf(settled: Settled): string {
  switch (settled.how) {
    case "finished":
      return settled.outcome?.reason ?? "at_rest";
    case "parked":
      return "parked";
    case "handed back":
      return "handed_back";
    case "dropped":
      return "dropped";
  }
}
