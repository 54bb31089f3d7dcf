// Store.readRecords: a run's records streamed in seq order, from any seq, without locking.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { encodeRecord } from "../../runstate/records/journal-codec.js";
import type { JournalRecord } from "../../runstate/records/records.js";
import { HOSTILE_IDS } from "../hostile-ids.js";
import { assistantEntry, completedRun, metaPayload, metaRecord, terminalEntry, userEntry } from "../record-builders.js";
import { appendCompletedRun, rejectsWith, type Suite } from "./suite.js";

async function collect(records: AsyncIterable<JournalRecord>): Promise<JournalRecord[]> {
  const read: JournalRecord[] = [];
  for await (const record of records) read.push(record);
  return read;
}

export function readRecordsCases(suite: Suite): void {
  describe("Store.readRecords", () => {
    it("gives every record in seq order, from seq 1 or from a later seq, and none past the end", async () => {
      const journal = await suite.store.create("stream-1", metaPayload("stream-1"));
      await appendCompletedRun(journal);
      await journal.close();
      const records = completedRun("stream-1");
      assert.deepEqual(await collect(suite.store.readRecords("stream-1")), records);
      assert.deepEqual(await collect(suite.store.readRecords("stream-1", 3)), records.slice(2));
      assert.deepEqual(await collect(suite.store.readRecords("stream-1", records.length + 1)), []);
    });

    it("reads an imported run as its journal holds it, from seq 1 and from a later seq", async () => {
      const records = completedRun("stream-imported");
      await suite.store.importJournal("stream-imported", Buffer.from(records.map(encodeRecord).join("")));
      assert.deepEqual(await collect(suite.store.readRecords("stream-imported")), records);
      assert.deepEqual(await collect(suite.store.readRecords("stream-imported", 2)), records.slice(1));
    });

    it("reads a run a writer holds, and the records it appends later from the seq after", async () => {
      const journal = await suite.store.create("stream-live", metaPayload("stream-live"));
      await journal.append(2, assistantEntry(0, "first"));
      const before = await collect(suite.store.readRecords("stream-live"));
      assert.deepEqual(
        before.map((record) => record.seq),
        [1, 2],
      );
      await journal.append(3, userEntry("more"));
      await journal.append(4, terminalEntry("completed"));
      const after = await collect(suite.store.readRecords("stream-live", 3));
      assert.deepEqual(after, (await journal.records()).slice(2));
      await journal.close();
    });

    it("lets a reader stop early and leaves the run free to open", async () => {
      const journal = await suite.store.create("stream-stop", metaPayload("stream-stop"));
      await appendCompletedRun(journal);
      await journal.close();
      for await (const record of suite.store.readRecords("stream-stop")) {
        assert.equal(record.seq, 1);
        break;
      }
      await (await suite.store.open("stream-stop")).close();
    });

    it("gives the records before a corrupt line, then refuses it with ERR_CORRUPT naming its line", async () => {
      const lines = completedRun("stream-corrupt").map(encodeRecord);
      lines[2] = "{not json\n";
      await suite.harness.plantRaw(suite.store, "stream-corrupt", lines);
      const read: number[] = [];
      await rejectsWith(
        (async () => {
          for await (const record of suite.store.readRecords("stream-corrupt")) read.push(record.seq);
        })(),
        "ERR_CORRUPT",
        /^session stream-corrupt: line 3 is not valid JSON$/,
        { runId: "stream-corrupt" },
      );
      assert.deepEqual(read, [1, 2]);
    });

    it("refuses a newer record version with ERR_VERSION", async () => {
      await suite.harness.plantRaw(suite.store, "stream-newer", [encodeRecord(metaRecord("stream-newer", { version: 6 }))]);
      await rejectsWith(collect(suite.store.readRecords("stream-newer")), "ERR_VERSION", /version 6.*version 5/);
    });

    it("refuses an unknown run with ERR_NOT_FOUND, and hostile ids before touching storage", async () => {
      await rejectsWith(collect(suite.store.readRecords("stream-missing")), "ERR_NOT_FOUND", undefined, { runId: "stream-missing" });
      for (const id of HOSTILE_IDS) await rejectsWith(collect(suite.store.readRecords(id)), "ERR_INVALID_ID");
    });
  });
}
