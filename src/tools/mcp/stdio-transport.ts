// The stdio transport for MCP servers, in place of the SDK's: a server runs in a process
// group of its own, so the operator's Ctrl-C (a request to suspend) does not reach it, and
// the reaper stops the group if this process is killed. The message framing is the SDK's.
import type { ChildProcess, ChildProcessWithoutNullStreams } from "node:child_process";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { forgetGroup, spawnWatched } from "../group-reaper.js";

export interface StdioServer {
  command: string;
  args: readonly string[];
  env: Record<string, string>;
  cwd?: string;
}

/** How long a server has to exit after its stdin closes, and again after SIGTERM. */
const GRACE_MS = 2000;

export class GroupedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #server: StdioServer;
  readonly #onStderr: (chunk: Buffer) => void;
  readonly #buffer = new ReadBuffer();
  #child: ChildProcess | undefined;

  constructor(server: StdioServer, onStderr: (chunk: Buffer) => void) {
    this.#server = server;
    this.#onStderr = onStderr;
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawnWatched(this.#server.command, this.#server.args, {
        env: this.#server.env,
        cwd: this.#server.cwd,
        stdio: ["pipe", "pipe", "pipe"],
      }) as ChildProcessWithoutNullStreams;
      this.#child = child;
      child.on("error", (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.on("spawn", () => resolve());
      child.on("close", () => {
        if (child.pid !== undefined) forgetGroup(child.pid);
        this.#child = undefined;
        this.onclose?.();
      });
      child.stdout.on("data", (chunk: Buffer) => {
        this.#buffer.append(chunk);
        this.#readMessages();
      });
      // Read for the whole life of the server: an unread pipe would stall it once full.
      child.stderr.on("data", this.#onStderr);
      child.stdin.on("error", (error) => this.onerror?.(error));
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.#child?.stdin;
      if (stdin === undefined || stdin === null) return reject(new Error("the server is not running"));
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", resolve);
    });
  }

  /** Closes stdin, on which a server exits; then SIGTERM and SIGKILL to its group for one that does not. */
  async close(): Promise<void> {
    const child = this.#child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
    const within = (ms: number) => Promise.race([exited.then(() => true), new Promise<boolean>((resolve) => setTimeout(resolve, ms, false).unref())]);
    child.stdin?.end();
    for (const signal of ["SIGTERM", "SIGKILL"] as const) {
      if (await within(GRACE_MS)) return;
      try {
        process.kill(-(child.pid as number), signal);
      } catch {
        return;
      }
    }
    await within(GRACE_MS);
  }

  #readMessages(): void {
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.#buffer.readMessage();
      } catch (error) {
        this.onerror?.(error as Error);
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }
}
