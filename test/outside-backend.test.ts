// covers: src/backends/registry.ts, src/backends/open-backend.ts, src/pool/submit-run.ts, src/pool/worker.ts
// A backend written outside fisk-ai, as a program would write one: a store and a queue of
// classes fisk-ai has never seen (each call counted, then passed to a memory store and
// queue inside), that pass the store and queue conformance suites. Registered through the
// public API, its URL gets submitted runs and workers with nothing in fisk-ai naming it.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  awaitSubmitted,
  MemoryQueue,
  MemoryStore,
  openBackend,
  registerBackend,
  ScriptProvider,
  submitRun,
  Worker,
  type Backend,
  type RunQueue,
  type Store,
} from "../src/index.js";
import { runQueueConformance, runStoreConformance } from "../src/conformance/index.js";
// The conformance suite plants raw lines below the store's checks; the harness reaches the memory store's seam for that.
import { memoryStoreWithFailingWrites, plantRaw } from "../src/backends/memory/memory-seams.js";

const STORE_METHODS = ["create", "open", "load", "list", "summarize", "readRecords", "readJournal", "importJournal", "delete", "close"] as const;
const QUEUE_METHODS = ["enqueue", "list", "get", "behind", "withdraw", "unpark", "claim", "watch", "quarantined", "discard", "onQuarantine", "close"] as const;

/** Each call counted by method name. */
type Calls = Map<string, number>;

/** A plain object (no class of fisk-ai's in its prototype chain) whose methods count each call and pass it to `inner`. */
function counting<T extends object>(inner: T, methods: readonly (keyof T & string)[], calls: Calls): T {
  const outer: Record<string, unknown> = {};
  for (const method of methods) {
    outer[method] = (...args: unknown[]) => {
      calls.set(method, (calls.get(method) ?? 0) + 1);
      return (inner[method] as (...args: unknown[]) => unknown).apply(inner, args);
    };
  }
  return outer as T;
}

const inners = new WeakMap<object, MemoryStore | MemoryQueue>();

function outsideStore(inner: MemoryStore, calls: Calls = new Map()): Store {
  const store = counting<Store>(inner, STORE_METHODS, calls);
  inners.set(store, inner);
  return store;
}

function outsideQueue(inner: MemoryQueue, calls: Calls = new Map()): RunQueue {
  const queue = counting<RunQueue>(inner, QUEUE_METHODS, calls);
  inners.set(queue, inner);
  return queue;
}

function inner<T extends MemoryStore | MemoryQueue>(outer: object): T {
  const found = inners.get(outer);
  assert.ok(found !== undefined, "an outside store or queue");
  return found as T;
}

/** The outside backend's bundle over a fresh memory store, its calls counted in `calls`. */
function outsideBackend(calls: { store: Calls; queue: Calls }): Backend {
  const store = new MemoryStore();
  return { store: outsideStore(store, calls.store), queue: outsideQueue(new MemoryQueue({ store }), calls.queue) };
}

runStoreConformance("outside (a program's store on a memory store)", {
  capabilities: { exclusiveOpen: true },
  makeStore: async () => outsideStore(new MemoryStore()),
  sameStorage: async (store) => outsideStore(new MemoryStore({ sharedWith: inner<MemoryStore>(store) })),
  plantRaw: async (store, runId, lines) => plantRaw(inner<MemoryStore>(store), runId, lines),
  failingWrites: async (failing) => outsideStore(memoryStoreWithFailingWrites(failing)),
});

runQueueConformance("outside (a program's queue on a memory queue)", {
  makeQueue: async () => {
    const store = new MemoryStore();
    return { store: outsideStore(store), queue: outsideQueue(new MemoryQueue({ store })) };
  },
  again: async (of) => {
    const store = new MemoryStore({ sharedWith: inner<MemoryStore>(of.store) });
    return { store: outsideStore(store), queue: outsideQueue(new MemoryQueue({ store, sharedWith: inner<MemoryQueue>(of.queue) })) };
  },
  takeoverMs: 0,
  // Over a memory queue, whose entries nothing outside its API can write.
  plant: async () => false,
});

describe("a backend registered by a program", () => {
  it("gets submitted runs and a worker through the library, by its URL", async () => {
    const calls = { store: new Map<string, number>(), queue: new Map<string, number>() };
    const opened: string[] = [];
    registerBackend("outside", async (url) => {
      opened.push(url.href);
      return outsideBackend(calls);
    });
    const { store, queue } = await openBackend("outside://pool/one");
    assert.deepEqual(opened, ["outside://pool/one"]);
    assert.ok(queue !== undefined, "the bundle has its queue");
    const agent = { provider: new ScriptProvider({ turns: [{ text: "Done outside." }] }), model: "script-outside" };
    const runId = await submitRun({ store, queue, agent }, { prompt: "Work elsewhere", runId: "outside-1" });
    assert.equal(runId, "outside-1");
    const worker = new Worker({ store, queue, agents: [agent], events: { settled: () => worker.stop() } });
    const [outcome] = await Promise.all([awaitSubmitted(store, queue, runId), worker.run()]);
    assert.equal(outcome.reason, "completed");
    assert.equal(outcome.answer, "Done outside.");
    assert.deepEqual(await queue.list(), [], "the finished run left the queue");
    assert.equal((await store.summarize(runId)).status, "completed");
    // The pool went through the program's objects: its queue was enqueued to and claimed from, its store written.
    assert.equal(calls.queue.get("enqueue"), 1);
    assert.ok((calls.queue.get("claim") ?? 0) >= 1);
    assert.equal(calls.store.get("create"), 1);
    await queue.close();
    await store.close();
  });
});
