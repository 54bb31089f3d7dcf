// Store.summarize: one run's summary, as list gives it.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { HOSTILE_IDS } from "../hostile-ids.js";
import { assistantEntry, metaPayload, terminalEntry, titleEntry, toolResultEntry } from "../record-builders.js";
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

    it("without the digest says what it says with it: status, holder, last seq and meta, an annotation after the terminal record included", async () => {
      const live = await suite.store.create("summarize-bare", metaPayload("summarize-bare", { prompt: "said twice" }));
      await live.append(2, assistantEntry(0, "", ["t1"]));
      const essentials = ({ status, holder, lastSeq, meta }: Awaited<ReturnType<Suite["store"]["summarize"]>>) => ({ status, pid: holder?.pid, lastSeq, meta });
      if (suite.exclusive) assert.deepEqual(essentials(await suite.store.summarize("summarize-bare", { digest: false })).status, "running");
      await live.append(3, toolResultEntry("t1"));
      await live.append(4, terminalEntry("suspended"));
      await live.append(5, titleEntry("named after it stopped"));
      await live.close();
      const bare = essentials(await suite.store.summarize("summarize-bare", { digest: false }));
      assert.deepEqual(bare, essentials(await suite.store.summarize("summarize-bare")));
      assert.deepEqual([bare.status, bare.lastSeq], ["suspended", 5]);
      await rejectsWith(suite.store.summarize("summarize-missing", { digest: false }), "ERR_NOT_FOUND");
    });

    it("refuses an unknown run with ERR_NOT_FOUND", async () => {
      await rejectsWith(suite.store.summarize("list-missing"), "ERR_NOT_FOUND");
    });

    it("refuses hostile ids before touching storage", async () => {
      for (const id of HOSTILE_IDS) await rejectsWith(suite.store.summarize(id), "ERR_INVALID_ID");
    });
  });
}
