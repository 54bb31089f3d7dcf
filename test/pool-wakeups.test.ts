// covers: src/conformance/index.ts, src/pool/await-submitted.ts, src/backends/file/directory-changes.ts
// covers: src/backends/file/file-queue.ts, src/queue/queue-watch.ts, src/backends/file/file-store.ts
// process: shared
// An idle worker and a follower of a submitted run wake when the queue or the run changes
// (RunQueue.watch), on the file store: each is given a poll of ten minutes, so only a
// wake-up lets it go on within the test's time.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { metaPayload, terminalEntry } from "../src/conformance/index.js";
import { awaitSubmitted } from "../src/pool/await-submitted.js";
import { FileQueue, fileQueueDir } from "../src/backends/file/file-queue.js";
import { FileStore } from "../src/backends/file/file-store.js";
import type { JournalRecord } from "../src/runstate/records/records.js";
import { runCli } from "./helpers/cli-harness.js";
import { poolWorkspace, StartedWorkers } from "./helpers/pool-workspace.js";

/** Far past the test's timeout: a waiter that only polls never gets to look again. */
const TEN_MINUTES_MS = 600_000;

const root = mkdtempSync(join(tmpdir(), "fisk-ai-pool-wakeups-"));
after(() => rmSync(root, { recursive: true, force: true }));
const workers = new StartedWorkers();
after(() => workers.killAll());

describe("pool wake-ups on files", { timeout: 120_000 }, () => {
  it("an idle worker polling every ten minutes takes each run as it is submitted, and stops at once on SIGTERM", async () => {
    const ws = poolWorkspace(join(root, "worker"));
    const worker = workers.add(ws.worker(["--poll", String(TEN_MINUTES_MS)]));
    await workers.printedLine(worker, /taking runs/);
    // Twice: the second waits from the idle after the worker's first run.
    for (const name of ["first", "second"]) {
      const waited = await runCli(["submit", "Write two notes", "--name", name, "--wait"], { cwd: ws.dir, env: ws.env });
      assert.equal(waited.code, 0, waited.stderr);
      assert.equal(waited.stdout, "two notes written\n");
    }
    worker.child.kill("SIGTERM");
    const stopped = await worker.done;
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.match(stopped.stdout, /^took first\nfinished first: completed\ntook second\nfinished second: completed\n/m);
  });

  it("awaitSubmitted polling every ten minutes hears each record and the finish of another process's claim", async () => {
    const dir = join(root, "follower");
    const [ours, theirs] = [new FileStore({ dir }), new FileStore({ dir })];
    const [queue, workerQueue] = [new FileQueue({ dir: fileQueueDir(dir), store: ours }), new FileQueue({ dir: fileQueueDir(dir), store: theirs })];
    try {
      const meta = metaPayload("followed");
      await (await ours.create("followed", meta)).close();
      await queue.enqueue({
        runId: "followed",
        queued: new Date().toISOString(),
        fingerprint: meta.fingerprint,
        version: meta.version,
        afterSeq: 1,
        state: "queued",
      });
      const heard: JournalRecord[] = [];
      const outcome = awaitSubmitted(ours, queue, "followed", { pollMs: TEN_MINUTES_MS, onRecord: (record) => heard.push(record) });
      const claim = await workerQueue.claim(() => true);
      assert.equal(claim?.entry.runId, "followed");
      await claim?.journal.append(2, terminalEntry("completed"));
      await claim?.finish();
      assert.equal((await outcome).reason, "completed");
      assert.deepEqual(
        heard.map((record) => record.seq),
        [2],
      );
    } finally {
      await Promise.all([queue.close(), workerQueue.close()]);
      await Promise.all([ours.close(), theirs.close()]);
    }
  });

  it("awaitSubmitted resolves only once the worker let go of the run, not when its entry left the queue", async () => {
    const dir = join(root, "released");
    const [ours, theirs] = [new FileStore({ dir }), new FileStore({ dir })];
    const queue = new FileQueue({ dir: fileQueueDir(dir), store: ours });
    try {
      const meta = metaPayload("held");
      const held = await theirs.create("held", meta);
      await held.append(2, terminalEntry("completed"));
      // At rest and out of the queue, but another process still holds the journal, as a worker does between settling its entry and closing.
      let looks = 0;
      const counting = new Proxy(ours, {
        get: (target, property) => {
          const value: unknown = Reflect.get(target, property, target);
          if (property === "summarize") looks++;
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      let resolved = false;
      const waited = awaitSubmitted(counting, queue, "held", { fromSeq: 1, pollMs: TEN_MINUTES_MS }).then((outcome) => {
        resolved = true;
        return outcome;
      });
      while (looks < 5) await new Promise((resolve) => setTimeout(resolve, 5));
      assert.equal(resolved, false, "still held: not at rest for a caller yet");
      await held.close();
      assert.equal((await waited).reason, "completed");
      await assert.doesNotReject(async () => (await ours.open("held")).close(), "the caller can take the journal at once");
    } finally {
      await queue.close();
      await Promise.all([ours.close(), theirs.close()]);
    }
  });
});
