// Store.importJournal: a whole journal as a new run, visible whole or not at all.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fold } from "../../runstate/views/fold.js";
import { encodeRecord } from "../../runstate/records/journal-codec.js";
import { HOSTILE_IDS } from "../hostile-ids.js";
import { completedRun, metaPayload, metaRecord } from "../record-builders.js";
import { appendCompletedRun, rejectsWith, type Suite } from "./suite.js";

export function importJournalCases(suite: Suite): void {
  describe("Store.importJournal", () => {
    it("imports the bytes another store's readJournal gave as a new run, byte for byte", async () => {
      const source = await suite.makeStore();
      const journal = await source.create("moving", metaPayload("moving"));
      await appendCompletedRun(journal);
      await journal.close();
      const bytes = await source.readJournal("moving");
      await suite.store.importJournal("moving", bytes);
      assert.deepEqual(Buffer.from(await suite.store.readJournal("moving")), Buffer.from(bytes), "byte for byte");
      assert.deepEqual(await suite.store.load("moving"), fold(completedRun("moving")));
      const reopened = await suite.store.open("moving");
      assert.equal(reopened.lastSeq, 6);
      await reopened.close();
    });

    it("refuses an existing id, another run's journal, a torn or corrupt one, and a newer version", async () => {
      const lines = completedRun("import-1").map(encodeRecord);
      const bytes = (text: string) => Buffer.from(text);
      await suite.store.importJournal("import-1", bytes(lines.join("")));
      await rejectsWith(suite.store.importJournal("import-1", bytes(lines.join(""))), "ERR_EXISTS");
      await rejectsWith(suite.store.importJournal("import-2", bytes(lines.join(""))), "ERR_INVALID_RECORD", /holds session import-1/);
      const own = completedRun("import-3").map(encodeRecord);
      await rejectsWith(suite.store.importJournal("import-3", bytes(own.join("").slice(0, -10))), "ERR_CORRUPT", /incomplete line/);
      await rejectsWith(suite.store.importJournal("import-3", bytes([own[0], "{oops\n", ...own.slice(2)].join(""))), "ERR_CORRUPT", /line 2/);
      await rejectsWith(suite.store.importJournal("import-3", bytes(encodeRecord(metaRecord("import-3", { version: 6 })))), "ERR_VERSION");
      await rejectsWith(suite.store.load("import-3"), "ERR_NOT_FOUND", undefined);
      assert.ok(!(await suite.store.list()).some((summary) => summary.runId === "import-3"), "nothing half-imported is listed");
    });

    it("takes a journal in pieces cut anywhere, byte for byte, and refuses one whose pieces end in a torn line", async () => {
      const bytes = Buffer.from(completedRun("pieces-1").map(encodeRecord).join(""));
      await suite.store.importJournal("pieces-1", cutEvery(bytes, 7));
      assert.deepEqual(Buffer.from(await suite.store.readJournal("pieces-1")), bytes, "byte for byte");
      const torn = Buffer.from(completedRun("pieces-2").map(encodeRecord).join("")).subarray(0, -3);
      await rejectsWith(suite.store.importJournal("pieces-2", cutEvery(torn, 11)), "ERR_CORRUPT", /incomplete line/);
      await rejectsWith(suite.store.load("pieces-2"), "ERR_NOT_FOUND", undefined);
      assert.ok(!(await suite.store.list()).some((summary) => summary.runId === "pieces-2"), "nothing half-imported is listed");
    });

    it("refuses hostile ids before touching storage", async () => {
      for (const id of HOSTILE_IDS) await rejectsWith(suite.store.importJournal(id, Buffer.from("")), "ERR_INVALID_ID");
    });
  });
}

/** `bytes` in pieces of `size`, as a reader of a file or a socket might hand them over. */
async function* cutEvery(bytes: Buffer, size: number): AsyncIterable<Uint8Array> {
  for (let start = 0; start < bytes.length; start += size) yield bytes.subarray(start, start + size);
}
