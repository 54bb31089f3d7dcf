// The viewer's first screen costs what it shows (issue 37): the pager reads the records
// that fill the screen and stops, and reads on only when the reader moves past them.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MemoryStore, type JournalRecord, type Store } from "../src/index.js";
import { encodeRecord } from "../src/journal.js";
import { TranscriptPager } from "../src/cli/viewer/transcript-pager.js";
import { assistantEntry, journalOf, terminalEntry, toolResultEntry } from "./helpers/record-builders.js";

/** 400 turns, each a call and its one-line result folded to one row: two rows, with a turn's blank, three. */
function longRecords(runId: string): JournalRecord[] {
  const entries = [];
  for (let turn = 0; turn < 400; turn++) {
    entries.push(assistantEntry(turn, `Turn ${turn}.`, [`toolu_${turn}`]));
    entries.push(toolResultEntry(`toolu_${turn}`, `result ${turn}\nsecond line`));
  }
  return journalOf(runId, ...entries, terminalEntry("completed"));
}

/** A store of `records` that counts the records its readRecords hands out; the pager reads with nothing else before `end`. */
async function countingStore(records: JournalRecord[]): Promise<{ store: Store; read: () => number }> {
  const inner = new MemoryStore();
  await inner.importJournal("long", Buffer.from(records.map(encodeRecord).join("")));
  let read = 0;
  const store = new Proxy(inner, {
    get(target, name) {
      if (name !== "readRecords") return Reflect.get(target, name, target);
      return async function* (runId: string, fromSeq?: number) {
        for await (const record of target.readRecords(runId, fromSeq)) {
          read++;
          yield record;
        }
      };
    },
  });
  return { store, read: () => read };
}

describe("the viewer's first screen", () => {
  it("reads only the records that fill the screen, and reads on as the reader moves down", async () => {
    const records = longRecords("long");
    const { store, read } = await countingStore(records);
    const pager = new TranscriptPager(store, "long", records.length, { width: 80, height: 30 });
    await pager.start();
    // The meta is no row; each turn is at most 3 rows: 30 rows need at most 2 + 2 x 10 + 2 records.
    assert.ok(read() <= 24, `read ${read()} records for a screen of 30 rows`);
    assert.equal(pager.rows().filter((row) => row.text === "…").length, 0, "the screen is full");
    assert.match(pager.position(), /^record 1 of 802 \(0%\)$/);
    const first = read();
    await pager.down(29);
    assert.ok(read() > first, "moving down reads on");
    assert.doesNotMatch(pager.position(), /^record 1 of/, "the screen moved past the records first read");
    assert.equal(pager.rows().filter((row) => row.text === "…").length, 0, "and is full");
  });
});
