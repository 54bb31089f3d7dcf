// Store.create: a new run, its meta as seq 1, held by the journal it returns.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { HOSTILE_IDS } from "../hostile-ids.js";
import { CHILD_RECORD_VERSION, type MetaPayload } from "../../runstate/records/records.js";
import { metaPayload, metaRecord } from "../record-builders.js";
import { rejectsWith, type Suite } from "./suite.js";

export function createCases(suite: Suite): void {
  describe("Store.create", () => {
    it("writes meta as seq 1 and returns the locked journal", async () => {
      const journal = await suite.store.create("create-1", metaPayload("create-1"));
      assert.equal(journal.runId, "create-1");
      assert.equal(journal.lastSeq, 1);
      assert.deepEqual(await journal.records(), [metaRecord("create-1")]);
      if (suite.exclusive) await rejectsWith(suite.store.open("create-1"), "ERR_LOCKED");
      await journal.close();
      assert.equal((await suite.store.load("create-1")).lastSeq, 1);
    });

    it("refuses an id that exists, open or closed", async () => {
      const journal = await suite.store.create("create-2", metaPayload("create-2"));
      await journal.close();
      await rejectsWith(suite.store.create("create-2", metaPayload("create-2")), "ERR_EXISTS", /already exists/);
      assert.equal((await suite.store.load("create-2")).lastSeq, 1, "the existing run is untouched");
    });

    it("refuses a meta whose run_id is another id, and an invalid meta", async () => {
      await rejectsWith(suite.store.create("create-3", metaPayload("other")), "ERR_INVALID_RECORD");
      await rejectsWith(suite.store.create("create-3", { ...metaPayload("create-3"), created: "today" }), "ERR_INVALID_RECORD", /created/);
      await rejectsWith(suite.store.load("create-3"), "ERR_NOT_FOUND");
    });

    it("keeps a child session's parent link (version 5) in its meta, its load and its summary", async () => {
      const parent = { run_id: "create-parent", call_id: "toolu_01", depth: 1 };
      const meta = metaPayload("create-child", { version: CHILD_RECORD_VERSION, parent });
      const journal = await suite.store.create("create-child", meta);
      await journal.close();
      assert.deepEqual((await suite.store.load("create-child")).meta.parent, parent);
      const listed = (await suite.store.list()).find((summary) => summary.runId === "create-child");
      assert.deepEqual(listed?.meta?.parent, parent);
    });

    it("refuses a parent link that is not one: a bad session id, an empty call id, a depth below 1, a field it does not know", async () => {
      const link = { run_id: "create-parent", call_id: "toolu_01", depth: 1 };
      const bad = [
        { ...link, run_id: "../up" },
        { ...link, call_id: "" },
        { ...link, depth: 0 },
        { ...link, extra: true },
      ];
      for (const parent of bad) {
        const meta = metaPayload("create-5", { version: CHILD_RECORD_VERSION, parent: parent as NonNullable<MetaPayload["parent"]> });
        await rejectsWith(suite.store.create("create-5", meta), "ERR_INVALID_RECORD", /parent/);
      }
      await rejectsWith(suite.store.load("create-5"), "ERR_NOT_FOUND");
    });

    it("refuses a meta of a newer version, naming both", async () => {
      await rejectsWith(suite.store.create("create-4", metaPayload("create-4", { version: 6 })), "ERR_VERSION", /6.*5/);
    });

    it("refuses hostile ids before touching storage", async () => {
      for (const id of HOSTILE_IDS) await rejectsWith(suite.store.create(id, metaPayload("x")), "ERR_INVALID_ID");
    });
  });
}
