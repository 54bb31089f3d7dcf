// Journal.records: the run's records in seq order, those appended included, once what
// is in flight is durable; none once a write has failed.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { assistantEntry, journalOf, metaPayload, terminalEntry } from "../record-builders.js";
import { journalTakenOver, journalWithFailedWrite, rejectsWith, type Suite } from "./suite.js";

export function recordsCases(suite: Suite): void {
  describe("Journal.records", () => {
    it("gives every record in seq order, the appends still in flight included", async () => {
      const journal = await suite.store.create("records-1", metaPayload("records-1"));
      const appends = [journal.append(2, assistantEntry(0, "hi")), journal.append(3, terminalEntry("completed"))];
      assert.deepEqual(await journal.records(), journalOf("records-1", assistantEntry(0, "hi"), terminalEntry("completed")));
      await Promise.all(appends);
      await journal.close();
    });

    it("refuses with ERR_IO once a write failed", { skip: suite.skip.unlessFailingWrites }, async () => {
      const { journal, heal } = await journalWithFailedWrite(suite, "records-failed-1");
      heal();
      await rejectsWith(journal.records(), "ERR_IO");
      await journal.close();
    });

    it("refuses with ERR_LOCKED once another writer took the run over", { skip: suite.skip.unlessTakeOver }, async () => {
      const journal = await journalTakenOver(suite, "records-lost-1");
      await rejectsWith(journal.records(), "ERR_LOCKED");
      await journal.close();
    });
  });
}
