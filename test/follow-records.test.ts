// covers: src/session/follow-records.ts
// tier: quick
// followRecords on a queue whose watch hears records journaled but not a run leaving the
// queue (as JetStream's watch does not hear the ack of a finish): a follower whose look is
// ten minutes away still ends soon after the run's terminal record, once its entry is gone.
import assert from "node:assert/strict";
import { it } from "node:test";
import { openMemoryBackend } from "../src/backends/memory/memory-backend.js";
import { QueueWatches } from "../src/queue/queue-watch.js";
import type { RunQueue } from "../src/queue/run-queue.js";
import { followRecords } from "../src/session/follow-records.js";
import { eventually } from "./helpers/eventually.js";
import { metaPayload, terminalEntry, userEntry } from "./helpers/record-builders.js";

/** `queue` with a watch that wakes only when `wake` is called. */
function deafened(queue: RunQueue): { queue: RunQueue; wake(): void } {
  const listening = new Set<() => void>();
  const watches = new QueueWatches();
  const watch = () =>
    watches.open((changed) => {
      listening.add(changed);
      return () => listening.delete(changed);
    });
  const deaf = new Proxy(queue, {
    get(target, key) {
      if (key === "watch") return watch;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { queue: deaf, wake: () => listening.forEach((changed) => changed()) };
}

it("a follower ends once its run leaves the queue after a terminal record, though no watch heard it leave", { timeout: 60_000 }, async () => {
  const backend = openMemoryBackend();
  const store = backend.store;
  const { queue, wake } = deafened(backend.queue as RunQueue);
  const meta = metaPayload("r1");
  const journal = await store.create("r1", meta);
  await queue.enqueue({ runId: "r1", queued: new Date().toISOString(), fingerprint: meta.fingerprint, version: meta.version, afterSeq: 1, state: "queued" });
  const seen: number[] = [];
  const following = (async () => {
    for await (const record of followRecords(store, queue, "r1", 1, { pollMs: 600_000 })) seen.push(record.seq);
  })();
  await eventually(() => seen.length === 1, "the meta record");
  await journal.append(2, userEntry("hello"));
  await journal.append(3, terminalEntry("completed"));
  wake();
  await eventually(() => seen.length === 3, "the terminal record");
  await journal.close();
  await queue.withdraw("r1");
  await following;
  assert.deepEqual(seen, [1, 2, 3]);
});
