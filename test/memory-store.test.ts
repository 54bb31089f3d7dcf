// covers: src/conformance/hostile-ids.ts, src/conformance/index.ts, src/conformance/store-conformance.ts
// covers: src/conformance/store/append.ts, src/conformance/store/close.ts, src/conformance/store/create.ts
// covers: src/conformance/store/delete.ts, src/conformance/store/import-journal.ts
// covers: src/conformance/store/journal-close.ts, src/conformance/store/list.ts, src/conformance/store/load.ts
// covers: src/conformance/store/open.ts, src/conformance/store/read-journal.ts, src/conformance/store/read-journals.ts
// covers: src/conformance/store/read-records.ts, src/conformance/store/records.ts, src/conformance/store/suite.ts
// covers: src/conformance/store/summarize.ts, src/journal.ts, src/backends/open-backend.ts
// covers: src/backends/memory/memory-seams.ts, src/backends/memory/memory-storage.ts
// covers: src/backends/memory/memory-store.ts, src/runstate/store/store.ts
// process: shared
// The in-process backend through the conformance suite. Its seams (planted lines, failing
// writes) are not exported, so this test takes the store from the sources, as
// file-store.test.ts does; library-api.test.ts uses it through the package's exports.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createStore, MemoryStore, type Store } from "../src/index.js";
import { storeContract } from "../src/journal.js";
import { metaPayload, runStoreConformance, terminalEntry } from "../src/conformance/index.js";
import { memoryStoreWithFailingWrites, plantRaw } from "../src/backends/memory/memory-seams.js";

function memoryStore(store: Store): MemoryStore {
  assert.ok(store instanceof MemoryStore);
  return store;
}

runStoreConformance("memory", {
  capabilities: { exclusiveOpen: true },
  makeStore: async () => new MemoryStore(),
  sameStorage: async (store) => new MemoryStore({ sharedWith: memoryStore(store) }),
  plantRaw: async (store, runId, lines) => plantRaw(memoryStore(store), runId, lines),
  failingWrites: async (failing) => memoryStoreWithFailingWrites(failing),
});

describe("createStore", () => {
  it("makes each registered backend from its configuration", async () => {
    const memory = await createStore({ backend: "memory" });
    assert.ok(memory instanceof MemoryStore);
    const journal = await memory.create("made-1", metaPayload("made-1"));
    await journal.append(2, terminalEntry("completed"));
    await journal.close();
    assert.equal((await memory.summarize("made-1")).status, "completed");
    await memory.close();
  });

  it("refuses an unknown backend in one line naming those there are", async () => {
    await assert.rejects(
      createStore({ backend: "mysql" } as never),
      /^BackendError: unknown session backend "mysql": use one of file, memory, jetstream, postgres/,
    );
  });
});

describe("store contract", () => {
  it("decides a retry at or below the last seq, a gap above it, and checks the next record", () => {
    assert.deepEqual(storeContract.decideAppend("c-1", 3, 2, terminalEntry("completed"), 2), { kind: "retry" });
    assert.throws(() => storeContract.decideAppend("c-1", 3, 5, terminalEntry("completed"), 2), { code: "ERR_SEQ_GAP" });
    assert.throws(() => storeContract.decideAppend("c-1", 3, 4, { protocol: "nope" } as never, 2), { code: "ERR_INVALID_RECORD" });
    assert.equal(storeContract.decideAppend("c-1", 3, 4, terminalEntry("completed"), 2).kind, "append");
  });
});

describe("MemoryStore sharedWith", () => {
  it("shares runs with another MemoryStore only", async () => {
    const first = new MemoryStore();
    const second = new MemoryStore({ sharedWith: first });
    await (await first.create("shared-1", metaPayload("shared-1"))).close();
    assert.deepEqual(
      (await second.list()).map((summary) => summary.runId),
      ["shared-1"],
    );
    assert.deepEqual(await new MemoryStore().list(), []);
    assert.throws(() => new MemoryStore({ sharedWith: {} as MemoryStore }), /^TypeError: sharedWith must be a MemoryStore$/);
  });
});
