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

    it("gives in pieces (readJournalPieces, optional) the bytes readJournal gives, and refuses what it refuses", async (t) => {
      const store = suite.store;
      if (store.readJournalPieces === undefined) return t.skip("the backend has no readJournalPieces (it is optional: readers take readJournal's bytes)");
      const journal = await store.create("read-pieces", metaPayload("read-pieces"));
      await appendCompletedRun(journal);
      await journal.close();
      const pieces: Buffer[] = [];
      for await (const piece of store.readJournalPieces("read-pieces")) pieces.push(Buffer.from(piece));
      assert.deepEqual(Buffer.concat(pieces), Buffer.from(await store.readJournal("read-pieces")));
      const drain = async (runId: string) => {
        for await (const _ of store.readJournalPieces?.(runId) ?? []);
      };
      await rejectsWith(drain("read-missing"), "ERR_NOT_FOUND");
      for (const id of HOSTILE_IDS) await rejectsWith(drain(id), "ERR_INVALID_ID");
    });

    it("refuses hostile ids before touching storage", async () => {
      for (const id of HOSTILE_IDS) await rejectsWith(suite.store.readJournal(id), "ERR_INVALID_ID");
    });
  });
}
