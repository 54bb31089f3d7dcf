// Store.load: reads and folds a run without locking it, refusing what does not fold.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { encodeRecord } from "../../runstate/journal-codec.js";
import { HOSTILE_IDS } from "../hostile-ids.js";
import { assistantEntry, completedRun, metaPayload, metaRecord, terminalEntry } from "../record-builders.js";
import { rejectsWith, type Suite } from "./suite.js";

export function loadCases(suite: Suite): void {
  describe("Store.load", () => {
    it("reads a run a writer holds, without locking it", async () => {
      const journal = await suite.store.create("load-1", metaPayload("load-1"));
      await journal.append(2, assistantEntry(0, "hi"));
      const state = await suite.store.load("load-1");
      assert.equal(state.lastSeq, 2);
      await journal.append(3, terminalEntry("completed"));
      await journal.close();
    });

    it("refuses an unknown run with ERR_NOT_FOUND", async () => {
      await rejectsWith(suite.store.load("load-missing"), "ERR_NOT_FOUND", undefined, { runId: "load-missing" });
    });

    it("reads a version 1 journal", async () => {
      const v1 = metaRecord("version-1", { version: 1 });
      delete v1.meta.fingerprint.provider;
      await suite.harness.plantRaw(suite.store, "version-1", [encodeRecord(v1)]);
      assert.equal((await suite.store.load("version-1")).meta.version, 1);
    });

    it("refuses a newer version, naming both versions", async () => {
      await suite.harness.plantRaw(suite.store, "version-4", [encodeRecord(metaRecord("version-4", { version: 6 }))]);
      await rejectsWith(suite.store.load("version-4"), "ERR_VERSION", /version 6.*version 5/);
    });

    it("refuses a journal whose interior is corrupt with ERR_CORRUPT", async () => {
      const lines = completedRun("corrupt-1").map(encodeRecord);
      lines[2] = "{not json\n";
      await suite.harness.plantRaw(suite.store, "corrupt-1", lines);
      await rejectsWith(suite.store.load("corrupt-1"), "ERR_CORRUPT", undefined, { runId: "corrupt-1" });
    });

    it("refuses hostile ids before touching storage", async () => {
      for (const id of HOSTILE_IDS) await rejectsWith(suite.store.load(id), "ERR_INVALID_ID");
    });
  });
}
