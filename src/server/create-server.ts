// The HTTP API over a store and its queue, as a fetch-style handler: `fisk-ai serve`
// listens with it, and a program mounts it in its own server (Hono, Express through an
// adapter, Next.js route handlers) with its own authenticate hook. Every route validates
// its input with the schemas /openapi.json is generated from, and every error is a
// problem+json.
import { OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { packageVersion } from "../package/package-files.js";
import type { RequestCheck } from "./auth/host-guard.js";
import { localOnly, type Authenticate } from "./principal.js";
import { problemOf, problemResponse, ServerError } from "./problem.js";
import { agentRoutes } from "./routes/agents.js";
import { approvalRoutes } from "./routes/approvals.js";
import { eventRoutes } from "./routes/events.js";
import { healthRoutes } from "./routes/health.js";
import { poolRoutes } from "./routes/pool.js";
import { runRoutes } from "./routes/runs.js";
import { meRoute } from "./routes/me.js";
import { transcriptRoutes } from "./routes/transcript.js";
import { withConsoleCookie } from "./console/console-auth.js";
import { consoleRoutes } from "./console/console-routes.js";
import { IMPORT_PATH, sessionRoutes } from "./routes/sessions.js";
import type { ServerContext, ServerEnv, ServerOptions } from "./server-context.js";
import { StreamSlots } from "./stream-slots.js";
import { METRICS_PATH, metricsRoutes } from "./routes/metrics.js";
import { ServerMetrics } from "./server-metrics.js";
import type { WorkerEvents } from "../pool/worker.js";

/** The API's handler, and its OpenAPI document. */
export interface FiskServer {
  /** Answers one request: mount it where a fetch-style handler goes. */
  fetch(request: Request): Promise<Response>;
  /** The OpenAPI 3.1 document, as /openapi.json serves it. */
  document(): Record<string, unknown>;
  /** Has every open event stream ask `stillValid` of its principal now: call it once the keys changed, and streams of revoked keys end. */
  recheckStreams(): void;
  /** `events` for a Worker beside the server, also counting the runs it settles in GET /metrics. */
  workerEvents(events?: WorkerEvents): WorkerEvents;
}

const DOCUMENT = {
  openapi: "3.1.0",
  info: { title: "fisk-ai", version: packageVersion(), description: "fisk-ai's sessions, runs and approvals over HTTP (docs/server.md)" },
};

/** The default largest JSON body, in bytes. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;
/** The default cap of event streams open at once. */
export const DEFAULT_MAX_STREAMS = 1000;
/** The default largest journal an import takes, in bytes. */
export const DEFAULT_IMPORT_LIMIT = 256 * 1024 * 1024;

/** The API over `options.store` and its queue. */
export function createServer(options: ServerOptions): FiskServer {
  const onInternal =
    options.onInternalError ??
    ((error: unknown) => process.stderr.write(`fisk-ai serve: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`));
  const context: ServerContext = {
    store: options.store,
    queue: options.queue,
    agents: new Map(options.agents.map((agent) => [agent.name, agent])),
    stillValid: options.stillValid ?? (() => true),
    textDeltas: options.textDeltas,
    env: options.env ?? process.env,
    cwd: options.cwd ?? process.cwd(),
    streams: new StreamSlots(options.maxStreams ?? DEFAULT_MAX_STREAMS),
  };
  const tickets = options.console?.tickets;
  const authenticate = tickets === undefined ? (options.authenticate ?? localOnly) : withConsoleCookie(options.authenticate ?? localOnly, tickets);
  const app = new OpenAPIHono<ServerEnv>({
    defaultHook: (result) => {
      if (!result.success) {
        const issues = result.error.issues.map((issue) => ({ path: issue.path.map(String).join("."), message: issue.message }));
        throw new ServerError(
          "ERR_BAD_REQUEST",
          `the request's ${result.target} does not check: ${issues.map((issue) => `${issue.path || "(root)"}: ${issue.message}`).join("; ")}`,
          { issues },
        );
      }
    },
  });
  const metrics = new ServerMetrics(context);
  app.use("*", metrics.timing);
  app.onError((error) => problemResponse(problemOf(error, onInternal)));
  app.notFound((c) =>
    problemResponse(problemOf(new ServerError("ERR_NO_ROUTE", `no route ${c.req.method} ${c.req.path}: /openapi.json lists them`), onInternal)),
  );
  guard(app, options.bodyLimit ?? DEFAULT_BODY_LIMIT, authenticate, options.checkRequest);
  healthRoutes(app, context);
  agentRoutes(app, context);
  runRoutes(app, context);
  sessionRoutes(app, context, options.importLimit ?? DEFAULT_IMPORT_LIMIT);
  eventRoutes(app, context, onInternal);
  approvalRoutes(app, context);
  poolRoutes(app, context);
  transcriptRoutes(app, context, onInternal);
  metricsRoutes(app, metrics);
  meRoute(app, tickets);
  if (tickets !== undefined) consoleRoutes(app, { tickets, authenticate: options.authenticate ?? localOnly, secure: options.console?.secure === true });
  app.doc31("/openapi.json", DOCUMENT);
  return {
    fetch: async (request) => app.fetch(request),
    document: () => app.getOpenAPI31Document(DOCUMENT) as unknown as Record<string, unknown>,
    recheckStreams: () => context.streams.recheck(),
    workerEvents: (events) => metrics.workerEvents(events),
  };
}

/**
 * What every request meets before its route: the request check (a loopback server's Host
 * and Origin), the body limit (an import has its own), and who it is from (401 without
 * credentials).
 */
function guard(app: OpenAPIHono<ServerEnv>, limit: number, authenticate: Authenticate, check: RequestCheck | undefined): void {
  if (check !== undefined) {
    app.use("*", async (c, next) => {
      const refused = check(c.req.raw);
      if (refused !== undefined)
        throw new ServerError("ERR_FORBIDDEN", `${refused}: reach this server by its own address (docs/server.md#without-keys-loopback-only)`);
      await next();
    });
  }
  const jsonLimit = bodyLimit({
    maxSize: limit,
    onError: () => {
      throw new ServerError("ERR_TOO_LARGE", `the request's body is over ${limit} bytes, this route's limit`);
    },
  });
  // An import takes a journal, not JSON: it has its own limit (sessions.ts).
  app.use("/v1/*", (c, next) => (c.req.path === IMPORT_PATH ? next() : jsonLimit(c, next)));
  app.use("/console/*", jsonLimit);
  const authenticated: MiddlewareHandler<ServerEnv> = async (c, next) => {
    const principal = await authenticate(c.req.raw);
    if (principal === undefined) throw new ServerError("ERR_UNAUTHENTICATED", "this route needs credentials: send an API key (docs/server.md)");
    c.set("principal", principal);
    await next();
  };
  app.use("/v1/*", authenticated);
  app.use(METRICS_PATH, authenticated);
}
