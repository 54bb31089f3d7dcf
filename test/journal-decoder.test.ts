// covers: src/runstate/errors.ts, src/runstate/records/journal-codec.ts
// tier: quick
// process: shared
// The streaming journal decoder: fed a journal in chunks of any size, split anywhere (inside
// a line, inside a UTF-8 character, at a newline), it gives what decoding the whole gives.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decodeJournal, encodeRecord, JournalDecoder } from "../src/runstate/records/journal-codec.js";
import { isRunStateError } from "../src/index.js";
import { completedRun, toolResultEntry } from "./helpers/record-builders.js";

function inChunks(bytes: Buffer, size: number): JournalDecoder {
  const decoder = new JournalDecoder();
  for (let start = 0; start < bytes.length; start += size) decoder.push(bytes.subarray(start, start + size));
  return decoder;
}

describe("JournalDecoder", () => {
  const records = completedRun("chunks");
  // A multi-byte character in a result, so some splits fall inside it.
  records[2] = { seq: 3, ...toolResultEntry("toolu_2", "héllo ✓ wörld") } as (typeof records)[number];
  const whole = Buffer.from(records.map(encodeRecord).join("") + '{"seq":7,"proto');

  it("decodes a journal pushed in chunks of every size from 1 byte to the whole as decodeJournal does, torn tail left out", () => {
    const expected = decodeJournal(whole);
    assert.equal(expected.records.length, records.length);
    for (let size = 1; size <= whole.length; size += size < 64 ? 1 : 97) {
      assert.deepEqual(inChunks(whole, size).decoded(), expected, `chunks of ${size} bytes`);
    }
  });

  it("names the line of a corrupt record, whatever the chunks", () => {
    const lines = records.map(encodeRecord);
    lines[3] = "{not json\n";
    for (const size of [1, 5, 4096]) {
      assert.throws(
        () => inChunks(Buffer.from(lines.join("")), size),
        (error: unknown) => isRunStateError(error) && error.code === "ERR_CORRUPT" && error.line === 4,
      );
    }
  });
});
