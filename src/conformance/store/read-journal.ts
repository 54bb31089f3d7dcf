// Store.readJournal: a journal's bytes as stored, without locking it.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { encodeRecord } from "../../runstate/records/journal-codec.js";
import { HOSTILE_IDS } from "../hostile-ids.js";
import { completedRun, metaPayload } from "../record-builders.js";
import { appendCompletedRun, rejectsWith, type Suite } from "./suite.js";

export function readJournalCases(suite: Suite): void {
  describe("Store.readJournal", () => {
    it("reads a journal's bytes as written", async () => {
      const journal = await suite.store.create("read-1", metaPayload("read-1"));
      await appendCompletedRun(journal);
      await journal.close();
      const bytes = await suite.store.readJournal("read-1");
      assert.equal(Buffer.from(bytes).toString("utf8"), completedRun("read-1").map(encodeRecord).join(""));
    });

    it("refuses to read an unknown run", async () => {
      await rejectsWith(suite.store.readJournal("read-missing"), "ERR_NOT_FOUND");
    });

    it("refuses hostile ids before touching storage", async () => {
      for (const id of HOSTILE_IDS) await rejectsWith(suite.store.readJournal(id), "ERR_INVALID_ID");
    });
  });
}
