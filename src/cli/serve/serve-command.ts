// `fisk-ai serve`: the HTTP API (src/server/) on a port, and N in-process workers on the
// store's queue, so one command is a whole service. It keeps nothing beyond the store: a
// server killed mid-run is replaced by starting one again (or any other), whose workers
// take the run over.
import { availableParallelism } from "node:os";
import { basename, extname } from "node:path";
import { serve, type ServerType } from "@hono/node-server";
import { Worker } from "../../pool/worker.js";
import { createServer } from "../../server/create-server.js";
import type { ServedAgent } from "../../server/server-context.js";
import { UsageError } from "../cli-errors.js";
import { EXIT } from "../exit-codes.js";
import type { CommandIO } from "../context/command-io.js";
import type { StoreFlags } from "../context/stores.js";
import { openPool, workerEvents } from "../worker/worker-command.js";
import { openInBrowser } from "../run/open-browser.js";
import { openConsoleTickets } from "../../server/console/open-console.js";
import { serveTimeouts } from "./serve-timeouts.js";

export interface ServeFlags extends Omit<StoreFlags, "config"> {
  config?: string[];
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
  const { host, port } = listenAddress(flags.listen ?? DEFAULT_LISTEN);
  const workers = workerCount(flags.workers);
  const publicUrl = flags.publicUrl === undefined ? undefined : urlFlag(flags.publicUrl);
  const timeouts = serveTimeouts(flags);
  const pool = await openPool(flags, io);
  try {
    const agents = servedAgents(
      pool.paths,
      pool.agents.map((agent) => agent.options),
    );
    const tickets = await openConsoleTickets(io.env);
    const api = createServer({ store: pool.store, queue: pool.queue, agents, env: io.env, console: { tickets, secure: publicUrl?.protocol === "https:" } });
    const worker =
      workers === 0
        ? undefined
        : new Worker({
            store: pool.store,
            queue: pool.queue,
            agents: agents.map((agent) => agent.options),
            concurrency: workers,
            adopt: true,
            events: api.workerEvents(workerEvents(io)),
          });
    const working = worker?.run();
    const server = await listening(api.fetch, host, port, timeouts);
    const address = server.address();
    const bound = typeof address === "object" && address !== null ? address.port : port;
    io.stdout.write(
      `serving ${agents.map((agent) => agent.name).join(", ")} on http://${host.includes(":") ? `[${host}]` : host}:${bound} with ${workers} ${workers === 1 ? "worker" : "workers"}\n`,
    );
    if (flags.open === true) openInBrowser(publicUrl?.href ?? `http://${host.includes(":") ? `[${host}]` : host}:${bound}/`, io.env, "xdg-open");
    const stopped = new Promise<void>((resolve) => {
      const onSignal = () => {
        process.off("SIGTERM", onSignal).off("SIGINT", onSignal);
        io.stdout.write("stopping: no new requests, runs handed back at their next boundary\n");
        worker?.stop();
        server.close();
        if ("closeAllConnections" in server) server.closeAllConnections();
        resolve();
      };
      process.on("SIGTERM", onSignal).on("SIGINT", onSignal);
    });
    await stopped;
    await working;
    return EXIT.completed;
  } finally {
    await pool.close();
  }
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
function servedAgents(paths: readonly (string | undefined)[], options: ServedAgent["options"][]): ServedAgent[] {
  const agents = paths.map((path, index) => ({
    name: path === undefined ? "default" : basename(path, extname(path)),
    options: options[index] as ServedAgent["options"],
  }));
  const names = agents.map((agent) => agent.name);
  const twice = names.find((name, index) => names.indexOf(name) !== index);
  if (twice !== undefined) throw new UsageError(`two --config files are named ${twice}: a client names an agent by its file's base name, so give each its own`);
  return agents;
}

/** --listen HOST:PORT on a loopback address: without API keys, nothing else may reach the server. */
export function listenAddress(listen: string): { host: string; port: number } {
  const match = /^(\[[0-9a-fA-F:]+\]|[^:[\]]+):(\d{1,5})$/.exec(listen);
  const port = Number(match?.[2]);
  if (match === null || port > 65535) throw new UsageError(`--listen takes HOST:PORT (127.0.0.1:7474, [::1]:7474), not ${JSON.stringify(listen)}`);
  const host = (match[1] as string).replace(/^\[(.*)\]$/, "$1");
  if (!isLoopback(host))
    throw new UsageError(
      `--listen ${listen} is not a loopback address: serve listens on 127.0.0.1, ::1 or localhost until it has API keys to check (docs/server.md)`,
    );
  return { host, port };
}

function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function workerCount(value: string | undefined): number {
  if (value === undefined) return availableParallelism();
  const number = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(number)) throw new UsageError(`--workers takes a whole number from 0, not ${JSON.stringify(value)}`);
  return number;
}
