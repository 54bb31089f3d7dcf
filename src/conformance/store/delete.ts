// Store.delete: removes a run no writer holds.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { HOSTILE_IDS } from "../hostile-ids.js";
import { metaPayload, terminalEntry } from "../record-builders.js";
import { rejectsWith, type Suite } from "./suite.js";

export function deleteCases(suite: Suite): void {
  describe("Store.delete", () => {
    it("deletes a run, after which its id is free again", async () => {
      const journal = await suite.store.create("delete-1", metaPayload("delete-1"));
      await journal.close();
      await suite.store.delete("delete-1");
      await rejectsWith(suite.store.load("delete-1"), "ERR_NOT_FOUND");
      assert.ok(!(await suite.store.list()).some((summary) => summary.runId === "delete-1"));
      const again = await suite.store.create("delete-1", metaPayload("delete-1"));
      await again.close();
    });

    it("refuses to delete a run a writer holds, and leaves it whole", { skip: suite.skip.unlessExclusive }, async () => {
      const journal = await suite.store.create("delete-2", metaPayload("delete-2"));
      await rejectsWith(suite.store.delete("delete-2"), "ERR_LOCKED");
      await journal.append(2, terminalEntry("completed"));
      await journal.close();
      assert.equal((await suite.store.load("delete-2")).terminal?.reason, "completed");
    });

    it("refuses to delete an unknown run with ERR_NOT_FOUND", async () => {
      await rejectsWith(suite.store.delete("delete-missing"), "ERR_NOT_FOUND");
    });

    it("refuses hostile ids before touching storage", async () => {
      for (const id of HOSTILE_IDS) await rejectsWith(suite.store.delete(id), "ERR_INVALID_ID");
    });
  });
}
