// A real Postgres cluster for a test: initdb'd in a temporary directory, listening on a
// free 127.0.0.1 port, stopped (and its directory removed) by the test. Postgres refuses
// to run as root, so when the tests run as root (as CI does) the cluster's directory
// belongs to the `postgres` user (else `nobody`) and initdb and the server run as it. The
// server is this process's child, so a test can crash it (SIGQUIT: an immediate shutdown,
// no checkpoint) and start it again on the same port and data.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./nats-server.js";
import { clusterUser, postgresBinDir } from "./programs.js";

export interface PostgresServer {
  /** `postgres://postgres@127.0.0.1:PORT/postgres`: the superuser, trusted on this host only. */
  readonly url: string;
  readonly port: number;
  /** A URL of the same server for `database`, as `role` (default the superuser). */
  urlFor(database: string, role?: string): string;
  /** Runs SQL through psql as the superuser, returning its output (unaligned, tuples only). */
  psql(sql: string, database?: string): string;
  /** SIGQUIT: an immediate shutdown without a checkpoint, as a crash; the next start recovers from the WAL. */
  crash(): Promise<void>;
  /** Starts it again on the same port and data. */
  restart(): Promise<void>;
  /** Stops it and removes its data. */
  stop(): Promise<void>;
}

function launch(bin: string, dataDir: string, as: { uid: number; gid: number } | undefined): Promise<ChildProcess> {
  const child = spawn(join(bin, "postgres"), ["-D", dataDir], { stdio: ["ignore", "ignore", "pipe"], ...as });
  return new Promise((resolve, reject) => {
    let output = "";
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      output = (output + chunk).slice(-4000);
      if (output.includes("database system is ready to accept connections")) resolve(child);
    });
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`postgres exited ${code} before it was ready: ${output.slice(-1000)}`)));
  });
}

async function end(child: ChildProcess | undefined, signal: NodeJS.Signals): Promise<void> {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill(signal);
  await exited;
}

async function initAndLaunch(
  bin: string,
  home: string,
  dataDir: string,
  port: number,
  as: { uid: number; gid: number } | undefined,
  options: { settings?: Record<string, string | number>; durable?: boolean },
): Promise<ChildProcess> {
  if (as !== undefined) chownSync(home, as.uid, as.gid);
  chmodSync(home, 0o700);
  execFileSync(join(bin, "initdb"), ["-D", dataDir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync", "--locale=C"], {
    stdio: "pipe",
    ...as,
  });
  const settings: Record<string, string | number> = {
    listen_addresses: "'127.0.0.1'",
    port,
    unix_socket_directories: `'${home}'`,
    max_connections: 100,
    ...(options.durable ? {} : { fsync: "off", full_page_writes: "off" }),
    ...options.settings,
  };
  const conf = join(dataDir, "postgresql.conf");
  writeFileSync(
    conf,
    `${readFileSync(conf, "utf8")}\n${Object.entries(settings)
      .map(([key, value]) => `${key} = ${value}`)
      .join("\n")}\n`,
  );
  return launch(bin, dataDir, as);
}

/**
 * Starts a cluster. `settings` are postgresql.conf lines added to the test's defaults; by
 * default it does not fsync (a test proves behavior, not a disk), `durable: true` keeps
 * Postgres's own defaults (fsync on), for a benchmark.
 */
export async function startPostgres(options: { settings?: Record<string, string | number>; durable?: boolean } = {}): Promise<PostgresServer> {
  const bin = postgresBinDir();
  if (bin === undefined) throw new Error("no Postgres binaries under /usr/lib/postgresql: apt-get install postgresql");
  const port = await freePort();
  const home = mkdtempSync(join(tmpdir(), "fisk-ai-pg-"));
  const dataDir = join(home, "data");
  const as = clusterUser();
  let child: ChildProcess | undefined;
  try {
    child = await initAndLaunch(bin, home, dataDir, port, as, options);
  } catch (error) {
    // A cluster that did not start leaves nothing behind.
    rmSync(home, { recursive: true, force: true });
    throw error;
  }
  const urlFor = (database: string, role = "postgres") => `postgres://${role}@127.0.0.1:${port}/${database}`;
  return {
    url: urlFor("postgres"),
    port,
    urlFor,
    psql: (sql, database = "postgres") =>
      execFileSync(
        join(bin, "psql"),
        ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-d", database, "-c", sql],
        {
          encoding: "utf8",
          stdio: ["ignore", "pipe", "pipe"],
          ...as,
        },
      ),
    crash: async () => {
      await end(child, "SIGQUIT");
      child = undefined;
    },
    restart: async () => {
      child = await launch(bin, dataDir, as);
    },
    stop: async () => {
      await end(child, "SIGINT");
      child = undefined;
      rmSync(home, { recursive: true, force: true });
    },
  };
}
