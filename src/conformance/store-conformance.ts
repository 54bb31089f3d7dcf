// The contract every Store backend keeps (SPEC section 4), as node:test cases grouped by
// method. A backend's test file calls runStoreConformance with a harness and runs under
// `node --test`; nothing here knows how a backend stores bytes.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { isRunStateError, type RunStateErrorCode } from "../runstate/errors.js";
import { fold } from "../runstate/fold.js";
import { encodeRecord } from "../runstate/journal-codec.js";
import type { Journal, Store } from "../runstate/store.js";
import { HOSTILE_IDS } from "./hostile-ids.js";
import { assistantEntry, completedRun, metaPayload, metaRecord, terminalEntry, toolResultEntry } from "./record-builders.js";

/** What a backend promises beyond what every backend must do. */
export interface StoreCapabilities {
  /**
   * A writer holds a run from open (or create) to close: a second open fails at once
   * with ERR_LOCKED naming the holder, list shows the run `running` with that holder,
   * and delete refuses it. Without it, a second writer may open but loses at its first
   * append of a seq the first writer has taken.
   */
  exclusiveOpen: boolean;
}

export interface StoreHarness {
  capabilities: StoreCapabilities;
  /** Runs once before any case, and may take a while (starting a server). */
  setup?(): Promise<void>;
  /** A fresh, empty store: the suite closes it when done. */
  makeStore(): Promise<Store>;
  /** A second store on the same storage, as another process would open it. */
  sameStorage(store: Store): Promise<Store>;
  /** Writes journal lines for a run exactly as given, bypassing every check. */
  plantRaw(store: Store, runId: string, lines: string[]): Promise<void>;
  /** Runs once after every case and every store is closed: removes what the harness made. */
  teardown?(): Promise<void>;
}

async function rejectsWith(promise: Promise<unknown>, code: RunStateErrorCode, message?: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(isRunStateError(error), `expected a RunStateError ${code}, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    if (message !== undefined) assert.match(error.message, message);
    return true;
  });
}

/** Appends a completed run's records after its meta, as the loop would. */
async function appendCompletedRun(journal: Journal): Promise<void> {
  for (const record of completedRun(journal.runId).slice(1)) {
    const { seq, ...entry } = record;
    await journal.append(seq, entry);
  }
}

export function runStoreConformance(backend: string, harness: StoreHarness): void {
  const exclusive = harness.capabilities.exclusiveOpen;
  const needsExclusive = exclusive ? false : "the backend does not declare exclusiveOpen";
  describe(`Store conformance: ${backend}`, () => {
    const made: Store[] = [];
    const track = async (made_: Promise<Store>) => {
      const store = await made_;
      made.push(store);
      return store;
    };
    const makeStore = () => track(harness.makeStore());
    const sameStorage = (store: Store) => track(harness.sameStorage(store));
    let store: Store;
    before(async () => {
      await harness.setup?.();
      store = await makeStore();
    });
    after(async () => {
      for (const each of made) await each.close();
      await harness.teardown?.();
    });

    describe("create", () => {
      it("writes meta as seq 1 and returns the locked journal", async () => {
        const journal = await store.create("create-1", metaPayload("create-1"));
        assert.equal(journal.runId, "create-1");
        assert.equal(journal.lastSeq, 1);
        assert.deepEqual(await journal.records(), [metaRecord("create-1")]);
        if (exclusive) await rejectsWith(store.open("create-1"), "ERR_LOCKED");
        await journal.close();
        assert.equal((await store.load("create-1")).lastSeq, 1);
      });

      it("refuses an id that exists, open or closed", async () => {
        const journal = await store.create("create-2", metaPayload("create-2"));
        await journal.close();
        await rejectsWith(store.create("create-2", metaPayload("create-2")), "ERR_EXISTS", /already exists/);
        assert.equal((await store.load("create-2")).lastSeq, 1, "the existing run is untouched");
      });

      it("refuses a meta whose run_id is another id, and an invalid meta", async () => {
        await rejectsWith(store.create("create-3", metaPayload("other")), "ERR_INVALID_RECORD");
        await rejectsWith(store.create("create-3", { ...metaPayload("create-3"), created: "today" }), "ERR_INVALID_RECORD", /created/);
        await rejectsWith(store.load("create-3"), "ERR_NOT_FOUND");
      });

      it("refuses a meta of a newer version, naming both", async () => {
        await rejectsWith(store.create("create-4", metaPayload("create-4", { version: 4 })), "ERR_VERSION", /4.*3/);
      });
    });

    describe("append", () => {
      it("appends consecutive seqs and reads them back", async () => {
        const journal = await store.create("append-1", metaPayload("append-1"));
        await appendCompletedRun(journal);
        assert.equal(journal.lastSeq, 6);
        assert.deepEqual(await journal.records(), completedRun("append-1"));
        await journal.close();
        assert.deepEqual(await store.load("append-1"), fold(completedRun("append-1")));
      });

      it("is a no-op for a seq at or below the last one written", async () => {
        const journal = await store.create("append-2", metaPayload("append-2"));
        await journal.append(2, assistantEntry(0, "one", ["t1"]));
        await journal.append(2, assistantEntry(0, "one", ["t1"]));
        await journal.append(1, terminalEntry("completed"));
        assert.equal(journal.lastSeq, 2);
        await journal.close();
        assert.equal((await store.load("append-2")).lastSeq, 2);
      });

      it("refuses a seq that skips ahead with ERR_SEQ_GAP and writes nothing", async () => {
        const journal = await store.create("append-3", metaPayload("append-3"));
        await rejectsWith(journal.append(3, terminalEntry("completed")), "ERR_SEQ_GAP", /seq 3.*last seq is 1/);
        assert.equal(journal.lastSeq, 1);
        await journal.close();
        assert.equal((await store.load("append-3")).lastSeq, 1);
      });

      it("refuses an invalid record and writes nothing", async () => {
        const journal = await store.create("append-4", metaPayload("append-4"));
        const invalid = { protocol: "io.choria.fisk-ai.v1.session.terminal", terminal: { reason: "exploded" } } as never;
        await rejectsWith(journal.append(2, invalid), "ERR_INVALID_RECORD", /terminal\.reason/);
        await rejectsWith(journal.append(2, { protocol: "io.choria.fisk-ai.v1.session.nope" } as never), "ERR_INVALID_RECORD");
        assert.equal(journal.lastSeq, 1);
        await journal.append(2, terminalEntry("completed"));
        await journal.close();
        assert.equal((await store.load("append-4")).terminal?.reason, "completed");
      });

      it("takes appends issued together, in order, each resolving durable", async () => {
        const journal = await store.create("append-5", metaPayload("append-5"));
        await journal.append(2, assistantEntry(0, "", ["t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8"]));
        const ids = ["t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8"];
        await Promise.all(ids.map((id, index) => journal.append(3 + index, toolResultEntry(id))));
        await journal.close();
        const reopened = await store.open("append-5");
        assert.deepEqual(
          (await reopened.records()).map((record) => record.seq),
          [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
        );
        await reopened.close();
      });

      it("refuses appends after close with ERR_CLOSED, and every close returns only once the run is free", async () => {
        const journal = await store.create("append-6", metaPayload("append-6"));
        const first = journal.close();
        await journal.close();
        const reopened = await store.open("append-6");
        await first;
        await rejectsWith(journal.append(2, terminalEntry("completed")), "ERR_CLOSED");
        await reopened.close();
      });
    });

    describe("open", () => {
      it("continues a closed run from its last seq", async () => {
        const journal = await store.create("open-1", metaPayload("open-1"));
        await journal.append(2, assistantEntry(0, "", ["t1"]));
        await journal.close();
        const reopened = await store.open("open-1");
        assert.equal(reopened.lastSeq, 2);
        await rejectsWith(reopened.append(4, toolResultEntry("t1")), "ERR_SEQ_GAP");
        await reopened.append(3, toolResultEntry("t1"));
        await reopened.close();
        assert.equal((await store.load("open-1")).counters.toolCalls, 1);
      });

      it("refuses an unknown run with ERR_NOT_FOUND", async () => {
        await rejectsWith(store.open("open-missing"), "ERR_NOT_FOUND", /no session open-missing/);
      });

      it("refuses a second writer at open, through the same store or another one, with ERR_LOCKED", { skip: needsExclusive }, async () => {
        const journal = await store.create("open-2", metaPayload("open-2"));
        await rejectsWith(store.open("open-2"), "ERR_LOCKED", /open-2 is in use/);
        const other = await sameStorage(store);
        await rejectsWith(other.open("open-2"), "ERR_LOCKED");
        await rejectsWith(other.create("open-2", metaPayload("open-2")), "ERR_EXISTS", /already exists/);
        await journal.close();
        const second = await other.open("open-2");
        await second.close();
      });

      it("never lets two writers both take one seq", async () => {
        const first = await store.create("open-3", metaPayload("open-3"));
        const other = await sameStorage(store);
        let second: Journal;
        try {
          second = await other.open("open-3");
        } catch (error) {
          assert.ok(isRunStateError(error, "ERR_LOCKED"), `expected ERR_LOCKED, got ${String(error)}`);
          await first.close();
          return;
        }
        await first.append(2, assistantEntry(0, "first"));
        await rejectsWith(second.append(2, assistantEntry(0, "second")), "ERR_LOCKED");
        await Promise.all([first.close(), second.close()]);
        const reopened = await other.open("open-3");
        assert.deepEqual((await reopened.records()).map((record) => record.protocol), [metaRecord("open-3").protocol, assistantEntry(0, "").protocol]);
        await reopened.close();
      });
    });

    describe("load", () => {
      it("reads a run a writer holds, without locking it", async () => {
        const journal = await store.create("load-1", metaPayload("load-1"));
        await journal.append(2, assistantEntry(0, "hi"));
        const state = await store.load("load-1");
        assert.equal(state.lastSeq, 2);
        await journal.append(3, terminalEntry("completed"));
        await journal.close();
      });

      it("refuses an unknown run with ERR_NOT_FOUND", async () => {
        await rejectsWith(store.load("load-missing"), "ERR_NOT_FOUND");
      });
    });

    describe("load and open of a stored journal", () => {
      it("reads a version 1 journal", async () => {
        const v1 = metaRecord("version-1", { version: 1 });
        delete v1.meta.fingerprint.provider;
        await harness.plantRaw(store, "version-1", [encodeRecord(v1)]);
        assert.equal((await store.load("version-1")).meta.version, 1);
        const journal = await store.open("version-1");
        await journal.close();
      });

      it("keeps a version 3 journal in version 3: what it takes is stored in that shape and read back as it was given", async () => {
        const journal = await store.create("version-3", metaPayload("version-3", { version: 3 }));
        await appendCompletedRun(journal);
        await journal.close();
        const lines = Buffer.from(await store.readJournal("version-3")).toString("utf8").split("\n").slice(0, -1);
        const first = JSON.parse(lines[0] as string) as { meta: { version: number } };
        const turn = JSON.parse(lines[1] as string) as { assistant: { message: { content: object[] } } };
        assert.equal(first.meta.version, 3);
        assert.deepEqual(turn.assistant.message.content[0], { text: { text: "Let me look." } }, "a version 3 block has no type");
        assert.deepEqual((await store.load("version-3")).messages, fold(completedRun("version-3").map((record) => (record.seq === 1 ? metaRecord("version-3", { version: 3 }) : record))).messages);
      });

      it("refuses to append to a version 3 journal what version 3 cannot hold, with ERR_INVALID_RECORD", async () => {
        const journal = await store.create("version-3-image", metaPayload("version-3-image", { version: 3 }));
        await journal.append(2, assistantEntry(0, "Looking.", ["toolu_1"]));
        const image = { type: "image" as const, source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } };
        const result = { ...toolResultEntry("toolu_1"), tool_result: { tool_use_id: "toolu_1", result: { type: "tool_result" as const, tool_use_id: "toolu_1", content: [image] } } };
        await rejectsWith(journal.append(3, result), "ERR_INVALID_RECORD", /version 3 .*cannot hold this tool_result record/);
        await journal.append(3, toolResultEntry("toolu_1"));
        await journal.close();
        assert.equal((await store.load("version-3-image")).lastSeq, 3);
      });

      it("refuses a newer version on load, open and list, naming both versions", async () => {
        await harness.plantRaw(store, "version-4", [encodeRecord(metaRecord("version-4", { version: 4 }))]);
        await rejectsWith(store.load("version-4"), "ERR_VERSION", /version 4.*version 3/);
        await rejectsWith(store.open("version-4"), "ERR_VERSION");
        const listed = (await store.list()).find((summary) => summary.runId === "version-4");
        assert.equal(listed?.status, "corrupt");
        assert.match(listed?.problem ?? "", /version 4/);
      });

      it("refuses a journal whose interior is corrupt with ERR_CORRUPT", async () => {
        const lines = completedRun("corrupt-1").map(encodeRecord);
        lines[2] = "{not json\n";
        await harness.plantRaw(store, "corrupt-1", lines);
        await rejectsWith(store.load("corrupt-1"), "ERR_CORRUPT");
        await rejectsWith(store.open("corrupt-1"), "ERR_CORRUPT");
      });
    });

    describe("list and summarize", () => {
      it("lists every run with its status, newest record last, without locking", async () => {
        const fresh = await makeStore();
        assert.deepEqual(await fresh.list(), []);
        const done = await fresh.create("list-done", metaPayload("list-done"));
        await appendCompletedRun(done);
        await done.close();
        const suspended = await fresh.create("list-suspended", metaPayload("list-suspended"));
        await suspended.append(2, terminalEntry("suspended"));
        await suspended.close();
        const live = await fresh.create("list-open", metaPayload("list-open", { prompt: "still going" }));
        await live.append(2, assistantEntry(0, "", ["t1"]));
        const summaries = new Map((await fresh.list()).map((summary) => [summary.runId, summary]));
        assert.deepEqual([...summaries.keys()].sort(), ["list-done", "list-open", "list-suspended"]);
        assert.equal(summaries.get("list-done")?.status, "completed");
        assert.equal(summaries.get("list-done")?.lastSeq, 6);
        assert.equal(summaries.get("list-suspended")?.status, "suspended");
        const running = summaries.get("list-open");
        if (exclusive) {
          assert.equal(running?.status, "running", "a live writer holds it");
          assert.equal(running?.holder?.pid, process.pid);
        }
        assert.equal(running?.meta?.prompt, "still going");
        assert.equal(running?.lastSeq, 2, "its last record is the assistant turn");
        assert.ok(!Number.isNaN(Date.parse(running?.updated ?? "")), "updated is a timestamp");
        await live.append(3, toolResultEntry("t1"));
        await live.close();
        const closed = await fresh.summarize("list-open");
        assert.deepEqual([closed.status, closed.holder, closed.lastSeq], ["open", undefined, 3], "open: no terminal, no writer");
        await rejectsWith(fresh.summarize("list-missing"), "ERR_NOT_FOUND");
      });

    });

    describe("delete", () => {
      it("deletes a run, after which its id is free again", async () => {
        const journal = await store.create("delete-1", metaPayload("delete-1"));
        await journal.close();
        await store.delete("delete-1");
        await rejectsWith(store.load("delete-1"), "ERR_NOT_FOUND");
        assert.ok(!(await store.list()).some((summary) => summary.runId === "delete-1"));
        const again = await store.create("delete-1", metaPayload("delete-1"));
        await again.close();
      });

      it("refuses to delete a run a writer holds, and leaves it whole", { skip: needsExclusive }, async () => {
        const journal = await store.create("delete-2", metaPayload("delete-2"));
        await rejectsWith(store.delete("delete-2"), "ERR_LOCKED");
        await journal.append(2, terminalEntry("completed"));
        await journal.close();
        assert.equal((await store.load("delete-2")).terminal?.reason, "completed");
      });

      it("refuses to delete an unknown run with ERR_NOT_FOUND", async () => {
        await rejectsWith(store.delete("delete-missing"), "ERR_NOT_FOUND");
      });
    });

    describe("readJournal and importJournal", () => {
      it("reads a journal's bytes as written, and imports them as a new run", async () => {
        const source = await makeStore();
        const journal = await source.create("moving", metaPayload("moving"));
        await appendCompletedRun(journal);
        await journal.close();
        const bytes = await source.readJournal("moving");
        assert.equal(Buffer.from(bytes).toString("utf8"), completedRun("moving").map(encodeRecord).join(""));
        await store.importJournal("moving", bytes);
        assert.deepEqual(Buffer.from(await store.readJournal("moving")), Buffer.from(bytes), "byte for byte");
        assert.deepEqual(await store.load("moving"), fold(completedRun("moving")));
        const reopened = await store.open("moving");
        assert.equal(reopened.lastSeq, 6);
        await reopened.close();
      });

      it("refuses an existing id, another run's journal, a torn or corrupt one, and a newer version", async () => {
        const lines = completedRun("import-1").map(encodeRecord);
        const bytes = (text: string) => Buffer.from(text);
        await store.importJournal("import-1", bytes(lines.join("")));
        await rejectsWith(store.importJournal("import-1", bytes(lines.join(""))), "ERR_EXISTS");
        await rejectsWith(store.importJournal("import-2", bytes(lines.join(""))), "ERR_INVALID_RECORD", /holds session import-1/);
        const own = completedRun("import-3").map(encodeRecord);
        await rejectsWith(store.importJournal("import-3", bytes(own.join("").slice(0, -10))), "ERR_CORRUPT", /incomplete line/);
        await rejectsWith(store.importJournal("import-3", bytes([own[0], "{oops\n", ...own.slice(2)].join(""))), "ERR_CORRUPT", /line 2/);
        await rejectsWith(store.importJournal("import-3", bytes(encodeRecord(metaRecord("import-3", { version: 4 })))), "ERR_VERSION");
        await rejectsWith(store.load("import-3"), "ERR_NOT_FOUND", undefined);
        assert.ok(!(await store.list()).some((summary) => summary.runId === "import-3"), "nothing half-imported is listed");
      });

      it("refuses to read an unknown run", async () => {
        await rejectsWith(store.readJournal("read-missing"), "ERR_NOT_FOUND");
      });
    });

    describe("close", () => {
      it("closes a store, after which another on the same storage sees its runs", async () => {
        const first = await makeStore();
        await (await first.create("close-1", metaPayload("close-1"))).close();
        const second = await sameStorage(first);
        await first.close();
        assert.equal((await second.load("close-1")).lastSeq, 1);
      });
    });

    describe("run ids", () => {
      it("refuses hostile ids in every call before touching storage", async () => {
        for (const id of HOSTILE_IDS) {
          await rejectsWith(store.create(id, metaPayload("x")), "ERR_INVALID_ID");
          await rejectsWith(store.open(id), "ERR_INVALID_ID");
          await rejectsWith(store.load(id), "ERR_INVALID_ID");
          await rejectsWith(store.delete(id), "ERR_INVALID_ID");
          await rejectsWith(store.summarize(id), "ERR_INVALID_ID");
          await rejectsWith(store.readJournal(id), "ERR_INVALID_ID");
          await rejectsWith(store.importJournal(id, Buffer.from("")), "ERR_INVALID_ID");
        }
      });
    });
  });
}
