// A real nats-server with JetStream for a test: on a free 127.0.0.1 port, storing in a
// temporary directory, stopped (and its directory removed) by the test. It can be killed
// outright and started again on the same port and store, to test a server crash.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { programPath } from "./programs.js";

// Where it is not found, spawn fails by name: the tests that need it are skipped before that (programs.ts).
const NATS_SERVER = programPath("nats-server") ?? "nats-server";

export interface NatsServer {
  readonly url: string;
  readonly port: number;
  /** SIGKILL: no flush, no goodbye, as a crash. */
  kill(): Promise<void>;
  /** SIGSTOP: it takes requests but answers none until resume(), as a server stalled mid-request. */
  pause(): void;
  /** SIGCONT after pause(). */
  resume(): void;
  /** Starts it again on the same port and store directory. */
  restart(): Promise<void>;
  /** Stops it and removes its store. */
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

function launch(port: number, storeDir: string, extra: readonly string[]): Promise<ChildProcess> {
  const child = spawn(NATS_SERVER, ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", storeDir, ...extra], { stdio: ["ignore", "ignore", "pipe"] });
  return new Promise((resolve, reject) => {
    let output = "";
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      output += chunk;
      if (output.includes("Server is ready")) resolve(child);
    });
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`nats-server exited ${code} before it was ready: ${output.slice(-500)}`)));
  });
}

async function end(child: ChildProcess | undefined, signal: NodeJS.Signals): Promise<void> {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill(signal);
  await exited;
}

/** `extra` arguments go to nats-server as given, e.g. `["--user", "u", "--pass", "p"]`. */
export async function startNatsServer(extra: readonly string[] = []): Promise<NatsServer> {
  const port = await freePort();
  const storeDir = mkdtempSync(join(tmpdir(), "fisk-ai-nats-"));
  let child: ChildProcess | undefined = await launch(port, storeDir, extra);
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    kill: async () => {
      await end(child, "SIGKILL");
      child = undefined;
    },
    pause: () => void child?.kill("SIGSTOP"),
    resume: () => void child?.kill("SIGCONT"),
    restart: async () => {
      child = await launch(port, storeDir, extra);
    },
    stop: async () => {
      await end(child, "SIGTERM");
      child = undefined;
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
}
