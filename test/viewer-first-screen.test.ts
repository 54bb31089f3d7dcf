// covers: src/cli/viewer/screen-text.ts, src/cli/viewer/transcript-pager.ts, src/backends/file/file-store.ts, src/cli/text/transcript-entry.ts
// covers: src/backends/memory/memory-store.ts, src/runstate/records/journal-codec.ts
// process: shared
// The viewer's first screen costs what it shows (issue 37): the pager reads the records
// that fill the screen and stops, and reads on only when the reader moves past them.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { MemoryStore, type JournalRecord, type Store } from "../src/index.js";
import { encodeRecord } from "../src/journal.js";
import { fileStoreWithSeams } from "../src/backends/file/file-store.js";
import { TranscriptPager } from "../src/cli/viewer/transcript-pager.js";
import { ONE_COLUMN, wrapText } from "../src/cli/viewer/screen-text.js";
import { countingFileSystem } from "./helpers/counting-file-system.js";
import { assistantEntry, journalOf, terminalEntry, titleEntry, toolResultEntry } from "./helpers/record-builders.js";

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
async function countingStore(records: JournalRecord[], runId = "long"): Promise<{ store: Store; read: () => number }> {
  const inner = new MemoryStore();
  await inner.importJournal(runId, Buffer.from(records.map(encodeRecord).join("")));
  let read = 0;
  const store = new Proxy(inner, {
    get(target, name) {
      if (name !== "readRecords") {
        // Bound to the store itself: its methods read private fields, which a proxy does not have.
        const value: unknown = Reflect.get(target, name, target);
        return typeof value === "function" ? value.bind(target) : value;
      }
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

/** `turns` turns, each a call and a result of `resultLines` lines of 100 characters; `needle` in the last line of the results of `needleTurns`. */
function largeResults(runId: string, turns: number, resultLines: number, needleTurns: number[] = []): JournalRecord[] {
  const entries = [];
  for (let turn = 0; turn < turns; turn++) {
    const lines = Array.from({ length: resultLines }, (_, line) => `${turn}:${line} `.padEnd(100, "x"));
    if (needleTurns.includes(turn)) lines[resultLines - 1] = "the Needle at the end";
    entries.push(assistantEntry(turn, `Turn ${turn}.`, [`toolu_${turn}`]));
    entries.push(toolResultEntry(`toolu_${turn}`, lines.join("\n")));
  }
  return journalOf(runId, ...entries, terminalEntry("completed"));
}

describe("what the viewer holds", () => {
  it("keeps a folded result as its first line's head, reads it whole when opened, and lets it go when closed", async () => {
    // 40 results of 1,000 lines (100 KB each): 4 MB of results.
    const records = largeResults("large", 40, 1000);
    const { store } = await countingStore(records, "large");
    const pager = new TranscriptPager(store, "large", records.length, { width: 80, height: 30 });
    await pager.start();
    await pager.down(200);
    assert.doesNotMatch(pager.position(), /^record 1 of/, "it moved through the results");
    const held = pager.heldChars();
    assert.ok(held < 20_000, `the window holds ${held} characters of 4 MB of results`);
    assert.match(pager.rows().find((row) => row.text.startsWith("▸ ← note:"))?.text ?? "", /\(\+999 lines\)$/, "a folded result still counts its lines");
    await pager.toggle();
    assert.ok(pager.heldChars() > 100_000, "the open result is held whole");
    assert.ok(
      pager.rows().some((row) => /^ {2}\d+:1 x+$/.test(row.text)),
      "its second line is on screen",
    );
    await pager.toggle();
    assert.ok(pager.heldChars() <= held, "closed, it is let go");
  });

  it("takes the status from the journal's tail, not a read of every record", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fisk-viewer-summary-"));
    try {
      const records = largeResults("titled", 30, 1000);
      const last = records.at(-1) as JournalRecord;
      // A title after the terminal record leaves the run as it stopped.
      records.push({ seq: last.seq + 1, ...titleEntry("A long one") } as JournalRecord);
      const journal = records.map(encodeRecord).join("");
      writeFileSync(join(dir, "titled.json"), journal, { mode: 0o600 });
      const fs = countingFileSystem();
      const store = fileStoreWithSeams({ dir, fileSystem: fs });
      const summary = await store.summarize("titled", { digest: false });
      assert.equal(summary.status, "completed");
      assert.equal(summary.lastSeq, last.seq + 1);
      assert.equal(summary.digest, undefined);
      assert.ok(fs.bytesRead < 20_000, `read ${fs.bytesRead} bytes of ${journal.length}`);
      fs.reset();
      const whole = await store.summarize("titled");
      assert.equal(whole.status, "completed");
      assert.ok(fs.bytesRead >= journal.length, "with its digest, every record is read");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the viewer's search", () => {
  it("finds a term past a folded result's head, marks it on screen, and counts its matches: n of m", async () => {
    const records = largeResults("search", 20, 200, [3, 9, 15]);
    const { store } = await countingStore(records, "search");
    const pager = new TranscriptPager(store, "search", records.length, { width: 80, height: 30 });
    await pager.start();
    const counted = new Promise<void>((resolve) => (pager.onChange = resolve));
    await pager.search("needle");
    const marked = pager.rows().filter((row) => row.marks !== undefined);
    assert.equal(marked.length, 1, "the match is on screen, marked");
    assert.deepEqual(marked[0]?.marks, [[6, 12]], "marked where it is, in any case");
    assert.equal(marked[0]?.text.slice(6, 12), "Needle");
    await counted;
    assert.equal(pager.searchStatus(), "/needle 1 of 3");
    await pager.repeatSearch(false);
    assert.equal(pager.searchStatus(), "/needle 2 of 3");
    await pager.repeatSearch(false);
    await pager.repeatSearch(false);
    assert.equal(pager.searchStatus(), "/needle not found");
    await pager.repeatSearch(true);
    assert.equal(pager.searchStatus(), "/needle 2 of 3", "N goes back from the third");
  });
});

describe("the width of screen text", () => {
  it("counts a character of the one-column class as string-width does, and wraps wide text by its columns", async () => {
    const { default: stringWidth } = await import("string-width");
    const wrong: string[] = [];
    for (let code = 0; code <= 0xffff; code++) {
      const char = String.fromCharCode(code);
      if (ONE_COLUMN.test(char) && stringWidth(char) !== 1) wrong.push(code.toString(16));
    }
    assert.deepEqual(wrong, []);
    // Outside the class, string-width decides: ideographs take two columns, a combining mark none.
    assert.deepEqual(wrapText("日本語のテキスト", 6), ["日本語", "のテキ", "スト"]);
    assert.deepEqual(wrapText("e\u0301e\u0301e\u0301", 2), ["e\u0301e\u0301", "e\u0301"]);
    assert.deepEqual(wrapText("a · b … c → d ─", 8), ["a · b … ", "c → d ─"]);
  });
});
