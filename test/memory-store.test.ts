// The in-process backend, tested as a third party would test its own: through the
// package's exports `fisk-ai` and `fisk-ai/conformance`, which is what the export is for.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createStore, MemoryStore, storeContract, type MemoryRun, type Store } from "fisk-ai";
import { metaPayload, runStoreConformance, terminalEntry } from "fisk-ai/conformance";

function runsOf(store: Store): MemoryStore["runs"] {
  assert.ok(store instanceof MemoryStore);
  return store.runs;
}

/** Runs whose lines refuse to grow while `failing()` says so, as a full disk refuses a write. */
class FailingRuns extends Map<string, MemoryRun> {
  readonly #failing: () => boolean;

  constructor(failing: () => boolean) {
    super();
    this.#failing = failing;
  }

  override set(runId: string, run: MemoryRun): this {
    const { lines } = run;
    const push = lines.push;
    lines.push = (...added) => {
      if (this.#failing()) throw new Error("ENOSPC: no space left on device");
      return push.apply(lines, added);
    };
    return super.set(runId, run);
  }
}

runStoreConformance("memory", {
  capabilities: { exclusiveOpen: true },
  makeStore: async () => new MemoryStore(),
  sameStorage: async (store) => new MemoryStore({ runs: runsOf(store) }),
  plantRaw: async (store, runId, lines) => {
    runsOf(store).set(runId, { lines, updated: new Date() });
  },
  failingWrites: async (failing) => new MemoryStore({ runs: new FailingRuns(failing) }),
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
    await assert.rejects(createStore({ backend: "postgres" } as never), /^TypeError: unknown session backend "postgres": use one of file, memory/);
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
