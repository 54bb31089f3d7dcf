// The file queue passes the queue conformance suite, over a file store in a scratch
// directory, and lets go of its directory watchers.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { runQueueConformance } from "../src/conformance/index.js";
import { FileStore } from "../src/backends/file/file-store.js";
import { FileQueue, fileQueueDir } from "../src/backends/file/file-queue.js";
import { WORKER_DEFAULTS } from "../src/pool/worker.js";

const scratch = mkdtempSync(join(tmpdir(), "fisk-ai-file-queue-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** How long a child that let go of its queue may take to exit: far past what exiting takes, so only a leaked watcher fails it. */
const EXIT_PATIENCE_MS = 20_000;

let dirs = 0;

function over(dir: string) {
  const store = new FileStore({ dir });
  return { store, queue: new FileQueue({ dir: fileQueueDir(dir), store }) };
}

runQueueConformance("file", {
  makeQueue: async () => over(join(scratch, `runs-${++dirs}`)),
  again: async (of) => over((of.store as FileStore).dir),
  // The claim is the run's kernel lock, free once its holder is gone: a worker takes it at its next poll.
  takeoverMs: WORKER_DEFAULTS.pollMs,
});

describe("file queue watches", () => {
  // A process whose watchers are all closed ends by itself; one left open keeps it alive for good.
  for (const how of ["queue", "watches"] as const) {
    it(`a process that woke on its watches exits by itself once ${how === "queue" ? "the queue is closed" : "each watch is closed, the queue left open"}`, async () => {
      const dir = join(scratch, `watching-${how}`);
      const child = spawn(process.execPath, [new URL("./helpers/watching-queue.js", import.meta.url).pathname, dir, how], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      let stdout = "";
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
      const patience = setTimeout(() => child.kill("SIGKILL"), EXIT_PATIENCE_MS);
      const code = await exited;
      clearTimeout(patience);
      assert.equal(stdout, "let go\n", "both watches were woken by the enqueue");
      assert.equal(code, 0, `exited by itself within ${EXIT_PATIENCE_MS} ms: no watcher was left open`);
    });
  }
});
