// covers: src/session/transfer.ts, src/session/verify-session.ts, src/runstate/views/journal-verify.ts
// covers: src/cli/session/import.ts, src/cli/session/export.ts, src/cli/text/write-output.ts, src/runstate/store/journal-pieces.ts
// session verify, export and import read a journal a piece at a time (issue 54, item 6): a
// line past the read limit is refused naming it, with nothing written, and a large valid
// journal is verified, exported and imported in memory that does not grow with it.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { exportJournal, importJournal, isRunStateError, MemoryStore } from "../src/index.js";
import { encodeRecord } from "../src/journal.js";
import { completedRun } from "../src/conformance/record-builders.js";
import { measured } from "./helpers/measured-cli.js";
import { journalWithLongLine, largeJournal } from "./helpers/large-journals.js";

const MB = 1024 * 1024;
/** Far below what holding a 60 MB journal's bytes and records costs (200 to 330 MB before), above a streaming reader's. */
const BOUND = 150 * MB;

const root = realpathSync(mkdtempSync(join(tmpdir(), "fisk-ai-transfer-")));
after(() => rmSync(root, { recursive: true, force: true }));

describe("session verify, export and import stream the journal", () => {
  it("a journal with a line past the read limit is refused by each, naming the line, and nothing is written", async () => {
    const dir = mkdtempSync(join(root, "long-"));
    const runs = join(dir, "runs");
    mkdirSync(runs, { mode: 0o700 });
    journalWithLongLine(runs, "long", 3, 40 * MB);
    const limit = /line 3 is longer than 32 MiB, the limit a journal line may hold when read/;
    const verified = await measured(["session", "verify", "long", "--state-dir", runs], dir);
    assert.equal(verified.code, 8, verified.stderr);
    assert.match(verified.stdout, /^long: invalid_record: line 3 is longer than 32 MiB/m);
    for (const format of ["jsonl", "html"]) {
      const out = join(dir, `out.${format}`);
      const exported = await measured(["session", "export", "long", "--format", format, "-o", out, "--state-dir", runs], dir);
      assert.equal(exported.code, 8, `${format}: ${exported.stderr}`);
      assert.match(exported.stderr, limit, format);
      assert.ok(exported.peakRss < BOUND, `export ${format}: peak RSS ${Math.round(exported.peakRss / MB)} MB`);
    }
    // The file to import is the same journal, outside the store; under its own id and a new one.
    const file = join(dir, "long.json");
    journalWithLongLine(dir, "long", 3, 40 * MB);
    const other = join(dir, "other");
    for (const name of [[], ["--name", "copy"]]) {
      const imported = await measured(["session", "import", file, ...name, "--state-dir", other], dir);
      assert.equal(imported.code, 8, imported.stderr);
      assert.match(imported.stderr, limit);
      assert.ok(imported.peakRss < BOUND, `import: peak RSS ${Math.round(imported.peakRss / MB)} MB`);
    }
    assert.ok(verified.peakRss < BOUND, `verify: peak RSS ${Math.round(verified.peakRss / MB)} MB`);
    assert.deepEqual(
      readdirSync(dir).filter((name) => name.startsWith("out.")),
      [],
      "no export, not even a temporary file",
    );
    assert.deepEqual(existingNames(other), [], "no session, not even a temporary file");
  });

  it("a 60 MB journal is verified, exported (jsonl and html) and imported with peak RSS under 150 MB", async () => {
    const dir = mkdtempSync(join(root, "large-"));
    const runs = join(dir, "runs");
    mkdirSync(runs, { mode: 0o700 });
    const records = largeJournal(join(runs, "large.json"), "large", 600, 100_000);
    const size = statSync(join(runs, "large.json")).size;
    assert.ok(size > 60_000_000, `the journal is ${size} bytes`);
    const runs2 = join(dir, "runs2");
    const steps: [string, string[]][] = [
      ["verify", ["session", "verify", "large", "--state-dir", runs]],
      ["export", ["session", "export", "large", "-o", join(dir, "large.jsonl"), "--state-dir", runs]],
      ["export html", ["session", "export", "large", "--format", "html", "-o", join(dir, "large.html"), "--state-dir", runs]],
      ["import", ["session", "import", join(dir, "large.jsonl"), "--state-dir", runs2]],
      ["import --name", ["session", "import", join(dir, "large.jsonl"), "--name", "copy", "--state-dir", runs2]],
      ["verify the copy", ["session", "verify", "copy", "--state-dir", runs2]],
    ];
    for (const [what, args] of steps) {
      const result = await measured(args, dir);
      assert.equal(result.code, 0, `${what}: ${result.stderr}`);
      assert.ok(result.peakRss < BOUND, `${what}: peak RSS ${Math.round(result.peakRss / MB)} MB`);
      if (what === "verify") assert.equal(result.stdout, `large: ok, ${records} records\n`);
      if (what === "verify the copy") assert.match(result.stdout, new RegExp(`^copy: ok, ${records + 2} records\\n`));
    }
    assert.ok(readFileSync(join(dir, "large.jsonl")).equals(readFileSync(join(runs, "large.json"))), "the export is the journal, byte for byte");
    // The page holds every result whole: it is about as large as the journal, and was written as it was read.
    const page = readFileSync(join(dir, "large.html"), "utf8");
    assert.ok(page.length > 0.9 * size && page.includes("599 599 599"), `a page of ${page.length} characters`);
    const imported = readFileSync(join(runs2, "large.json"));
    assert.ok(imported.subarray(0, size).equals(readFileSync(join(runs, "large.json"))), "imported as it was, then its import mark");
  });

  it("an import whose file changes between its verification and its writing is refused, and nothing is imported", async () => {
    const store = new MemoryStore();
    const journal = Buffer.from(completedRun("swapped").map(encodeRecord).join(""));
    const lines = completedRun("swapped").map(encodeRecord);
    lines[4] = lines[4]?.replace("The notes say hello.", "The notes say hullo.") as string;
    const swapped = Buffer.from(lines.join(""));
    let readings = 0;
    const source = async function* () {
      yield ++readings === 1 ? journal : swapped;
    };
    await assert.rejects(importJournal(store, source, { from: "swapped.jsonl" }), (error) => {
      assert.ok(isRunStateError(error, "ERR_CORRUPT"), String(error));
      assert.equal(error.message, "swapped.jsonl changed while it was read: it is not what was verified");
      return true;
    });
    assert.equal(readings, 2);
    assert.deepEqual(await store.list(), []);
    // The same bytes both times import, and export gives them back.
    let again = 0;
    assert.equal(
      await importJournal(store, async function* () {
        again++;
        yield journal;
      }),
      "swapped",
    );
    assert.equal(again, 2);
    const exported = await exportJournal(store, "swapped");
    const pieces: Buffer[] = [];
    for await (const piece of exported.pieces()) pieces.push(Buffer.from(piece));
    assert.ok(Buffer.concat(pieces).subarray(0, journal.length).equals(journal));
    assert.equal(exported.length, Buffer.concat(pieces).length);
  });
});

/** The names in `dir`, none when it does not exist. */
function existingNames(dir: string): string[] {
  try {
    return readdirSync(dir).filter((name) => !name.startsWith("."));
  } catch {
    return [];
  }
}
