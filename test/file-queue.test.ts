// The file queue passes the queue conformance suite, over a file store in a scratch directory.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";
import { runQueueConformance } from "../src/conformance/index.js";
import { FileStore } from "../src/runstate/backends/file/file-store.js";
import { FileQueue, fileQueueDir } from "../src/queue/file-queue.js";
import { WORKER_DEFAULTS } from "../src/pool/worker.js";

const scratch = mkdtempSync(join(tmpdir(), "fisk-ai-file-queue-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

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
