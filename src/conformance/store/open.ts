// Store.open: takes an existing run for appending, from its last seq.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { encodeRecord } from "../../runstate/journal-codec.js";
import { completedRun, assistantEntry, metaPayload, metaRecord, toolResultEntry } from "../record-builders.js";
import { HOSTILE_IDS } from "../hostile-ids.js";
import { rejectsWith, type Suite } from "./suite.js";

export function openCases(suite: Suite): void {
  describe("Store.open", () => {
    it("continues a closed run from its last seq", async () => {
      const journal = await suite.store.create("open-1", metaPayload("open-1"));
      await journal.append(2, assistantEntry(0, "", ["t1"]));
      await journal.close();
      const reopened = await suite.store.open("open-1");
      assert.equal(reopened.lastSeq, 2);
      await rejectsWith(reopened.append(4, toolResultEntry("t1")), "ERR_SEQ_GAP");
      await reopened.append(3, toolResultEntry("t1"));
      await reopened.close();
      assert.equal((await suite.store.load("open-1")).counters.toolCalls, 1);
    });

    it("refuses an unknown run with ERR_NOT_FOUND", async () => {
      await rejectsWith(suite.store.open("open-missing"), "ERR_NOT_FOUND", /no session open-missing/);
    });

    it("refuses a second writer at open, through the same store or another one, with ERR_LOCKED", { skip: suite.skip.unlessExclusive }, async () => {
      const journal = await suite.store.create("open-2", metaPayload("open-2"));
      await rejectsWith(suite.store.open("open-2"), "ERR_LOCKED", /open-2 is in use/);
      const other = await suite.sameStorage(suite.store);
      await rejectsWith(other.open("open-2"), "ERR_LOCKED");
      await rejectsWith(other.create("open-2", metaPayload("open-2")), "ERR_EXISTS", /already exists/);
      await journal.close();
      const second = await other.open("open-2");
      await second.close();
    });

    it("opens a version 1 journal", async () => {
      const v1 = metaRecord("version-1-open", { version: 1 });
      delete v1.meta.fingerprint.provider;
      await suite.harness.plantRaw(suite.store, "version-1-open", [encodeRecord(v1)]);
      const journal = await suite.store.open("version-1-open");
      await journal.close();
    });

    it("refuses a journal of a newer version with ERR_VERSION", async () => {
      await suite.harness.plantRaw(suite.store, "version-4-open", [encodeRecord(metaRecord("version-4-open", { version: 6 }))]);
      await rejectsWith(suite.store.open("version-4-open"), "ERR_VERSION");
    });

    it("refuses a journal whose interior is corrupt with ERR_CORRUPT", async () => {
      const lines = completedRun("corrupt-open").map(encodeRecord);
      lines[2] = "{not json\n";
      await suite.harness.plantRaw(suite.store, "corrupt-open", lines);
      await rejectsWith(suite.store.open("corrupt-open"), "ERR_CORRUPT");
    });

    it("refuses hostile ids before touching storage", async () => {
      for (const id of HOSTILE_IDS) await rejectsWith(suite.store.open(id), "ERR_INVALID_ID");
    });
  });
}
