// covers: src/backends/memory/memory-queue.ts, src/backends/memory/memory-backend.ts
// The memory backend's queue passes the queue conformance suite, two queues sharing one
// state as two workers share a queue; and memory:// gives a bundle whose pool runs here.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MemoryQueue, MemoryStore, openBackend } from "../src/index.js";
import { runQueueConformance } from "../src/conformance/index.js";

function memoryStore(store: unknown): MemoryStore {
  assert.ok(store instanceof MemoryStore);
  return store;
}

runQueueConformance("memory", {
  makeQueue: async () => {
    const store = new MemoryStore();
    return { store, queue: new MemoryQueue({ store }) };
  },
  again: async (of) => {
    const store = new MemoryStore({ sharedWith: memoryStore(of.store) });
    assert.ok(of.queue instanceof MemoryQueue);
    return { store, queue: new MemoryQueue({ store, sharedWith: of.queue }) };
  },
  // The claim is the store's open, released when the dying worker's journal is: the next claim takes it.
  takeoverMs: 0,
  // Its entries are its own decoded copies, reachable only through its API: nothing can be planted.
  plant: async () => false,
});

describe("memory backend", () => {
  it("memory:// opens a store with its queue", async () => {
    const { store, queue } = await openBackend("memory://");
    assert.ok(store instanceof MemoryStore);
    assert.ok(queue instanceof MemoryQueue);
  });

  it("a queue refuses a store that is not a MemoryStore", () => {
    assert.throws(() => new MemoryQueue({ store: {} as MemoryStore }), /^TypeError: not a MemoryStore$/);
  });
});
