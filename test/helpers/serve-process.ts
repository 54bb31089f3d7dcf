// A `fisk-ai serve` process on a workspace, on a free port of 127.0.0.1 (`--listen
// 127.0.0.1:0`): its address read from the line it prints, and a typed client of it.
import { rmSync } from "node:fs";
import { after } from "node:test";
import { FiskClient } from "../../src/client/fisk-client.js";
import type { CliRun } from "./cli-harness.js";
import { stdoutLines } from "./pool-workspace.js";
import { eventually } from "./eventually.js";

export interface ServeProcess {
  run: CliRun;
  /** `http://127.0.0.1:PORT`. */
  url: string;
  client: FiskClient;
  /** What it printed on stdout so far. */
  output(): string;
}

/** Starts `fisk-ai serve` through `start` (a spawn in the workspace) with `args` (by default: on a free port, one worker) and waits until it listens. */
export async function startServe(start: (args: string[]) => CliRun, args = ["serve", "--listen", "127.0.0.1:0", "--workers", "1"]): Promise<ServeProcess> {
  const run = start(args);
  const output = stdoutLines(run);
  let url: string | undefined;
  await eventually(
    () => {
      url = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(output())?.[1];
      return url !== undefined || run.child.exitCode !== null;
    },
    "serve to print its address",
    { timeoutMs: 60_000 },
  );
  if (url === undefined) throw new Error(`serve did not start: ${output()}${run.stderr()}`);
  return { run, url, client: new FiskClient(url), output };
}

/** The serve processes a test file starts: each SIGKILLed after its tests, then `root` removed. */
export function serveProcessesUnder(root: string): ServeProcess[] {
  const servers: ServeProcess[] = [];
  after(async () => {
    for (const server of servers) {
      server.run.child.kill("SIGKILL");
      await server.run.done;
    }
    rmSync(root, { recursive: true, force: true });
  });
  return servers;
}
