// Store.summarize: one run's summary, as list gives it.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { HOSTILE_IDS } from "../hostile-ids.js";
import { assistantEntry, metaPayload, toolResultEntry } from "../record-builders.js";
import { rejectsWith, type Suite } from "./suite.js";

export function summarizeCases(suite: Suite): void {
  describe("Store.summarize", () => {
    it("summarizes a run as running while its writer holds it, and as open with no holder once it closed without a terminal", async () => {
      const live = await suite.store.create("summarize-open", metaPayload("summarize-open", { prompt: "still going" }));
      await live.append(2, assistantEntry(0, "", ["t1"]));
      if (suite.exclusive) {
        const held = await suite.store.summarize("summarize-open");
        assert.deepEqual([held.status, held.holder?.pid, held.lastSeq], ["running", process.pid, 2], "running while its writer holds it");
      }
      await live.append(3, toolResultEntry("t1"));
      await live.close();
      const closed = await suite.store.summarize("summarize-open");
      assert.deepEqual([closed.status, closed.holder, closed.lastSeq], ["open", undefined, 3], "open: no terminal, no writer");
    });

    it("refuses an unknown run with ERR_NOT_FOUND", async () => {
      await rejectsWith(suite.store.summarize("list-missing"), "ERR_NOT_FOUND");
    });

    it("refuses hostile ids before touching storage", async () => {
      for (const id of HOSTILE_IDS) await rejectsWith(suite.store.summarize(id), "ERR_INVALID_ID");
    });
  });
}
