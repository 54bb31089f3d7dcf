// covers: src/runstate/records/journal-codec.ts, src/runstate/store/store-contract.ts
// covers: src/backends/file/journal-lines.ts, src/backends/file/journal-ends.ts
// A journal line has a limit: an append of a longer record is refused, naming it, and the
// journal is left as it was; readers take lines up to a higher limit (a journal written
// before keeps working) and name a line past it as corrupt. Issue 54: a 50 MB line took
// `session import` to 266 MB.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { FileStore, isRunStateError } from "../src/index.js";
import { decodeRecordLine, encodeRecord, MAX_LINE_BYTES, MAX_READ_LINE_BYTES } from "../src/journal.js";
import { assistantEntry, completedRun, metaPayload, toolResultEntry } from "../src/conformance/record-builders.js";
import { loadAgentConfig } from "../src/config/agent-config.js";
import { runCli } from "./helpers/cli-harness.js";
import { measured } from "./helpers/measured-cli.js";
import { journalWithLongLine } from "./helpers/large-journals.js";

const MB = 1024 * 1024;

const root = realpathSync(mkdtempSync(join(tmpdir(), "fisk-ai-line-limit-")));
after(() => rmSync(root, { recursive: true, force: true }));

/** The result of toolu_2 (completedRun's seq 3), its line about `bytes` long. */
function resultLine(seq: number, bytes: number): string {
  return encodeRecord({ seq, ...toolResultEntry("toolu_2", "x".repeat(bytes)) });
}

describe("the journal's line limit", () => {
  it("refuses an append past the limit, naming the record and the limit, and keeps the journal as it was", async () => {
    const store = new FileStore({ dir: join(root, "append") });
    const journal = await store.create("big", metaPayload("big"));
    await journal.append(2, assistantEntry(0, "Let me look.", ["toolu_1"]));
    const before = Buffer.from(await store.readJournal("big"));
    await assert.rejects(journal.append(3, toolResultEntry("toolu_1", "x".repeat(MAX_LINE_BYTES))), (error) => {
      assert.ok(isRunStateError(error, "ERR_INVALID_RECORD"), String(error));
      assert.match(error.message, /^refusing to append seq 3: its line is \d+ bytes, past the limit of 16 MiB a journal line may hold$/);
      return true;
    });
    await journal.append(3, toolResultEntry("toolu_1", "small"));
    await journal.close();
    const after = Buffer.from(await store.readJournal("big"));
    assert.deepEqual(after.subarray(0, before.length), before);
    const lines = after.toString("utf8").split("\n").slice(0, -1);
    assert.equal(lines.length, 3, "meta, assistant and the small result: the refused one was never written");
    assert.match(lines[2] as string, /"content":"small"/);
  });

  it("reads a line past the append limit but within the read limit, and names a line past that as corrupt", () => {
    const within = resultLine(3, MAX_LINE_BYTES + 1024);
    assert.equal(decodeRecordLine(Buffer.from(within.trimEnd()), 3).seq, 3);
    const past = Buffer.from(resultLine(3, MAX_READ_LINE_BYTES).trimEnd());
    assert.throws(
      () => decodeRecordLine(past, 3),
      (error) =>
        isRunStateError(error, "ERR_CORRUPT") && /^line 3 is \d+ bytes, past the limit of 32 MiB a journal line may hold when read$/.test(error.message),
    );
  });

  it("through the CLI: importing a journal with a 40 MB line is refused as corrupt, naming the line, and nothing is imported", async () => {
    const dir = mkdtempSync(join(root, "import-"));
    const records = completedRun("hostile");
    const lines = records.map(encodeRecord);
    lines[2] = resultLine(3, 40 * 1024 * 1024);
    writeFileSync(join(dir, "hostile.jsonl"), lines.join(""));
    const env = { PATH: process.env.PATH, HOME: dir, XDG_STATE_HOME: join(dir, "state"), NO_COLOR: "1" };
    const result = await runCli(["session", "import", "hostile.jsonl"], { cwd: dir, env });
    assert.equal(result.code, 8, result.stderr);
    assert.match(result.stderr, /line 3 is longer than 32 MiB, the limit a journal line may hold when read/);
    const listed = await runCli(["session", "ls"], { cwd: dir, env });
    assert.doesNotMatch(listed.stdout, /hostile/);
    assert.ok(readFileSync(join(dir, "hostile.jsonl")).length > 40 * 1024 * 1024);
  });

  it("through the CLI: show and ls of a journal with a 400 MB line name it corrupt without reading it whole", async () => {
    const dir = mkdtempSync(join(root, "show-"));
    const store = join(dir, "runs");
    mkdirSync(store, { mode: 0o700 });
    const LINE = 400 * MB;
    journalWithLongLine(store, "middle", 3, LINE);
    journalWithLongLine(store, "last", completedRun("last").length, LINE);
    const limit = /line (\d+) is longer than 32 MiB, the limit a journal line may hold when read/;
    for (const [args, line] of [
      [["session", "show", "middle"], "3"],
      [["session", "show", "middle", "--json"], "3"],
      [["session", "show", "last", "--transcript"], String(completedRun("last").length)],
    ] as const) {
      const result = await measured([...args, "--state-dir", store], dir);
      assert.equal(result.code, 8, `${args.join(" ")}: ${result.stderr}`);
      assert.equal(limit.exec(result.stderr)?.[1], line, `${args.join(" ")}: ${result.stderr}`);
      // Holding the line would take 400 MB at least; a reader stops at the read limit.
      assert.ok(result.peakRss < 300 * MB, `${args.join(" ")}: peak RSS ${Math.round(result.peakRss / MB)} MB`);
    }
    const listed = await measured(["session", "ls", "--state-dir", store], dir);
    assert.equal(listed.code, 0, listed.stderr);
    assert.ok(listed.peakRss < 300 * MB, `session ls: peak RSS ${Math.round(listed.peakRss / MB)} MB`);
  });

  it("an agent.yaml output_limit past what a line holds is a config error naming it", () => {
    const dir = mkdtempSync(join(root, "config-"));
    const tool = "  - { name: t, description: d, command: [date], output_limit: 5000000 }";
    writeFileSync(join(dir, "agent.yaml"), ["provider: script", "script: ./s.yaml", "tools:", tool].join("\n"));
    assert.throws(
      () => loadAgentConfig(join(dir, "agent.yaml")),
      /tools\[0\]\.output_limit: expected at most 4194304 bytes \(4 MiB\): a result is journaled in one line of at most 16 MiB$/,
    );
  });
});
