// Store.list: every run's summary, from its first and last records, locking none.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { encodeRecord } from "../../runstate/journal-codec.js";
import { assistantEntry, metaPayload, metaRecord, terminalEntry } from "../record-builders.js";
import { appendCompletedRun, type Suite } from "./suite.js";

export function listCases(suite: Suite): void {
  describe("Store.list", () => {
    it("lists every run with its status, newest record last, without locking", async () => {
      const fresh = await suite.makeStore();
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
      if (suite.exclusive) {
        assert.equal(running?.status, "running", "a live writer holds it");
        assert.equal(running?.holder?.pid, process.pid);
      }
      assert.equal(running?.meta?.prompt, "still going");
      assert.equal(running?.lastSeq, 2, "its last record is the assistant turn");
      assert.ok(!Number.isNaN(Date.parse(running?.updated ?? "")), "updated is a timestamp");
      await live.close();
    });

    it("lists a run of a newer version as corrupt, naming its version", async () => {
      await suite.harness.plantRaw(suite.store, "version-4-list", [encodeRecord(metaRecord("version-4-list", { version: 6 }))]);
      const listed = (await suite.store.list()).find((summary) => summary.runId === "version-4-list");
      assert.equal(listed?.status, "corrupt");
      assert.match(listed?.problem ?? "", /version 5/);
    });
  });
}
