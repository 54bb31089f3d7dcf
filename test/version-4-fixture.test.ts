// covers: src/runstate/records/journal-codec.ts, src/runstate/records/records.ts, src/runstate/views/fold.ts
// tier: quick
// process: shared
// The version rule on a fixture (test/fixtures/v4): journals holding version 4's kinds, one
// of record version 2 and one of 3. This fisk-ai reads them; a reader that does not know a
// kind refuses the journal, never misreading it. The readers before version 4 did so too,
// seen on these very files and kept in docs/backends.md (Records): fisk-ai before version 4
// answers `session show` and `--resume` with exit 8, "line 6 is not a valid record: unknown
// protocol ...compaction"; the Go implementation's Fold returns ErrCorrupt "unknown record
// protocol ... at seq N" (internal/runstate/state.go), and refuses version 2 journals anyway.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { fold, type JournalRecord } from "../src/index.js";
import { kindOfProtocol, RECORD_KIND_SINCE } from "../src/journal.js";
import { decodeJournal } from "../src/runstate/records/journal-codec.js";

const FIXTURES = new URL("../../test/fixtures/v4/runs/", import.meta.url);

function recordsOf(id: string): JournalRecord[] {
  return decodeJournal(readFileSync(new URL(`${id}.json`, FIXTURES))).records;
}

describe("version 4 fixtures", () => {
  it("hold version 4's kinds in journals of record versions 2 and 3", () => {
    for (const [id, version] of [
      ["compacted", 2],
      ["parked", 3],
    ] as const) {
      const records = recordsOf(id);
      assert.equal(fold(records.slice(0, 1)).meta.version, version);
      assert.ok(
        records.some((record) => RECORD_KIND_SINCE[kindOfProtocol(record.protocol) ?? "meta"] === 4),
        `${id} holds a version 4 kind`,
      );
    }
  });

  it("are read by this fisk-ai: the compaction in effect, the call waiting", () => {
    const compacted = fold(recordsOf("compacted"));
    assert.equal(compacted.compactions.length, 1);
    assert.match(JSON.stringify(compacted.messages[0]), /the conversation through seq 4/);
    const parked = fold(recordsOf("parked"));
    assert.equal(parked.terminal?.reason, "awaiting_approval");
    assert.deepEqual([...(parked.pending?.approvals.keys() ?? [])], ["toolu_1"]);
  });

  it("are refused as newer by a reader that does not know their kinds", () => {
    for (const id of ["compacted", "parked"]) {
      const lines = readFileSync(new URL(`${id}.json`, FIXTURES), "utf8");
      // What a version 4 kind is to a reader without it: any kind this one does not know.
      const unknown = Buffer.from(lines.replaceAll(/\.session\.(compaction|approval_request)"/g, '.session.$1_of_tomorrow"'));
      assert.throws(
        () => decodeJournal(unknown),
        (error: Error & { code?: string }) => error.code === "ERR_VERSION" && /which a newer fisk-ai wrote/.test(error.message),
      );
    }
  });
});
