// `fisk-ai serve`: the HTTP API (src/server/) on a port, and N in-process workers on the
// store's queue, so one command is a whole service. It keeps nothing beyond the store: a
// server killed mid-run is replaced by starting one again (or any other), whose workers
// take the run over.
import { availableParallelism } from "node:os";
import { basename, extname } from "node:path";
import { serve, type ServerType } from "@hono/node-server";
import { Worker } from "../../pool/worker.js";
import { createServer, type FiskServer } from "../../server/create-server.js";
import type { ServedAgent } from "../../server/server-context.js";
import { UsageError } from "../cli-errors.js";
import { EXIT } from "../exit-codes.js";
import type { CommandIO } from "../context/command-io.js";
import type { StoreFlags } from "../context/stores.js";
import { openPool, workerEvents } from "../context/pool-context.js";
import { openInBrowser } from "../run/open-browser.js";
import { openConsoleTickets } from "../../server/console/open-console.js";
import { listenAllowed } from "../../server/auth/listen-allowed.js";
import { serverAccess } from "./server-access.js";
import { TextDeltas } from "../../server/text-deltas.js";
import { serveTimeouts } from "./serve-timeouts.js";

export interface ServeFlags extends Omit<StoreFlags, "config"> {
  config?: string[];
  keys?: string;
  allowHost?: string[];
  listen?: string;
  workers?: string;
  open?: boolean;
  publicUrl?: string;
  headersTimeout?: string;
  requestTimeout?: string;
}

/** Where serve listens unless told: loopback only. */
export const DEFAULT_LISTEN = "127.0.0.1:7474";

export async function serveCommand(positionals: string[], flags: ServeFlags, io: CommandIO): Promise<number> {
  if (positionals.length > 0) throw new UsageError(`serve takes no arguments (got ${JSON.stringify(positionals[0])}): name its agents with --config FILE`);
  const { host, port } = listenAddress(flags.listen ?? DEFAULT_LISTEN, flags.keys !== undefined);
  const workers = workerCount(flags.workers);
  const publicUrl = flags.publicUrl === undefined ? undefined : urlFlag(flags.publicUrl);
  // Every flag checked before anything is opened: a refusal leaves nothing to close.
  const timeouts = serveTimeouts(flags);
  const access = await serverAccess(flags, io);
  const pool = await openPool(flags, io).catch((error: unknown) => {
    access.close();
    throw error;
  });
  try {
    const agents = servedAgents(
      pool.paths,
      pool.agents.map((agent) => agent.spec),
    );
    const tickets = await openConsoleTickets(io.env);
    const textDeltas = new TextDeltas();
    const api = createServer({
      store: pool.store,
      queue: pool.queue,
      agents,
      env: io.env,
      console: { tickets, secure: publicUrl?.protocol === "https:" },
      textDeltas,
      ...access.options,
    });
    const worker = workers === 0 ? undefined : inProcessWorker(pool, api, agents, workers, io, textDeltas);
    const working = worker?.run();
    const server = await listening(api.fetch, host, port, timeouts);
    const address = server.address();
    const bound = typeof address === "object" && address !== null ? address.port : port;
    access.listening(api, bound);
    const url = `http://${host.includes(":") ? `[${host}]` : host}:${bound}`;
    io.stdout.write(`serving ${agents.map((agent) => agent.name).join(", ")} on ${url} with ${workers} ${workers === 1 ? "worker" : "workers"}\n`);
    if (flags.open === true) openInBrowser(publicUrl?.href ?? `${url}/`, io.env, "xdg-open");
    await stoppedBySignal(io, access.reload, () => {
      worker?.stop();
      server.close();
      if ("closeAllConnections" in server) server.closeAllConnections();
    });
    await working;
    return EXIT.completed;
  } finally {
    access.close();
    await pool.close();
  }
}

/** The workers that drive the served agents' runs in this process, taking over runs others left. */
function inProcessWorker(
  pool: Awaited<ReturnType<typeof openPool>>,
  api: FiskServer,
  agents: ServedAgent[],
  concurrency: number,
  io: CommandIO,
  deltas: TextDeltas,
): Worker {
  const { store, queue } = pool;
  return new Worker({
    store,
    queue,
    agents: agents.map((agent) => agent.spec),
    concurrency,
    adopt: true,
    // Counted in GET /metrics as well as printed.
    events: api.workerEvents(workerEvents(io)),
    runEvents: deltas.runEvents,
  });
}

/** Resolves once SIGTERM or SIGINT came and `stop` ran; SIGHUP meanwhile reads the key file again. */
function stoppedBySignal(io: CommandIO, reload: () => void, stop: () => void): Promise<void> {
  return new Promise<void>((resolve) => {
    const onSignal = () => {
      process.off("SIGTERM", onSignal).off("SIGINT", onSignal).off("SIGHUP", reload);
      io.stdout.write("stopping: no new requests, runs handed back at their next boundary\n");
      stop();
      resolve();
    };
    process.on("SIGTERM", onSignal).on("SIGINT", onSignal).on("SIGHUP", reload);
  });
}

function urlFlag(text: string): URL {
  const url = URL.canParse(text) ? new URL(text) : undefined;
  if (url === undefined || (url.protocol !== "https:" && url.protocol !== "http:"))
    throw new UsageError(`--public-url takes the http(s) URL people reach the server at, not ${JSON.stringify(text)}`);
  return url;
}

function listening(
  fetch: (request: Request) => Promise<Response>,
  hostname: string,
  port: number,
  timeouts: ReturnType<typeof serveTimeouts>,
): Promise<ServerType> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch, hostname, port, serverOptions: timeouts }, () => resolve(server));
    server.once("error", (error: NodeJS.ErrnoException) => reject(new UsageError(`cannot listen on ${hostname}:${port}: ${error.code ?? error.message}`)));
  });
}

/** The agents by the names clients give: each agent.yaml's base name, without its extension. */
function servedAgents(paths: readonly (string | undefined)[], specs: ServedAgent["spec"][]): ServedAgent[] {
  const agents = paths.map((path, index) => ({
    name: path === undefined ? "default" : basename(path, extname(path)),
    spec: specs[index] as ServedAgent["spec"],
  }));
  const names = agents.map((agent) => agent.name);
  const twice = names.find((name, index) => names.indexOf(name) !== index);
  if (twice !== undefined) throw new UsageError(`two --config files are named ${twice}: a client names an agent by its file's base name, so give each its own`);
  return agents;
}

/** --listen HOST:PORT: on a loopback address unless the server has API keys to check. */
function listenAddress(listen: string, hasKeys: boolean): { host: string; port: number } {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+):(\d{1,5})$/.exec(listen);
  const port = Number(match?.[2]);
  if (match === null || port > 65535) throw new UsageError(`--listen takes HOST:PORT (127.0.0.1:7474, [::1]:7474), not ${JSON.stringify(listen)}`);
  const host = (match[1] as string).replace(/^\[(.*)\]$/, "$1");
  if (!listenAllowed(host, hasKeys))
    throw new UsageError(
      `--listen ${listen} is not a loopback address: without --keys FILE, serve listens on 127.0.0.1, ::1 or localhost only, since every request would be let in (docs/server.md#the-key-file)`,
    );
  return { host, port };
}

function workerCount(value: string | undefined): number {
  if (value === undefined) return availableParallelism();
  const number = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(number)) throw new UsageError(`--workers takes a whole number from 0, not ${JSON.stringify(value)}`);
  return number;
}
