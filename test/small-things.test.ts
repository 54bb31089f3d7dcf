// covers: src/transcript/counted.ts, src/transcript/render-blocks.ts
// process: shared
// Small things a user notices: counts singular for one, titles found in any case.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { counted } from "../src/transcript/counted.js";
import { describeToolResult } from "../src/transcript/render-blocks.js";
import { commandsInProcess } from "./helpers/in-process-cli.js";

/** The file's first call spawned, the later ones in this process (test/helpers/in-process-cli.ts). */
const cli = commandsInProcess(["session", "run", "init", "memory"]);

const NOTES = new URL("../../examples/notes/agent.yaml", import.meta.url).pathname;

describe("counts", () => {
  it("are singular for one and plural otherwise", () => {
    assert.deepEqual([counted(0, "tool"), counted(1, "tool"), counted(2, "tool"), counted(1, "more line")], ["0 tools", "1 tool", "2 tools", "1 more line"]);
  });

  it("of a tool result's further lines say (+1 more line)", () => {
    assert.equal(describeToolResult({ type: "tool_result", tool_use_id: "t", content: "a\nb" }), "a (+1 more line)");
    assert.equal(describeToolResult({ type: "tool_result", tool_use_id: "t", content: "a\nb\nc" }), "a (+2 more lines)");
  });

  it("of one session in session du and prune say 1 session", async (t) => {
    const dir = mkdtempSync(join(tmpdir(), "fisk-plural-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const env = { PATH: process.env.PATH, HOME: dir, NO_COLOR: "1" };
    const run = await cli(["run", "--config", NOTES, "--checkpoint", "Remember to buy milk"], { cwd: dir, env });
    assert.equal(run.code, 0, run.stderr);
    const du = await cli(["session", "du"], { cwd: dir, env });
    assert.match(du.stdout, /total \(1 session, \d+ bytes\)/);
    const prune = await cli(["session", "prune", "--keep-last", "0", "--dry-run"], { cwd: dir, env });
    assert.match(prune.stdout, /^would remove 1 session, \d+ bytes/m);
  });
});

describe("a session named by its title", () => {
  it("is found in any case, the whole title before a part of one, and an ambiguous part is refused", async (t) => {
    const dir = mkdtempSync(join(tmpdir(), "fisk-title-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const env = { PATH: process.env.PATH, HOME: dir, NO_COLOR: "1" };
    for (const title of ["Milk Notes", "Milk notes archive"]) {
      const run = await cli(["run", "--config", NOTES, "--checkpoint", "--title", title, "Remember to buy milk"], { cwd: dir, env });
      assert.equal(run.code, 0, run.stderr);
    }
    const shown = await cli(["session", "show", "milk notes", "--json"], { cwd: dir, env });
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /"Milk Notes"/);
    assert.doesNotMatch(shown.stdout, /Milk notes archive/);
    const ambiguous = await cli(["session", "show", "MILK", "--json"], { cwd: dir, env });
    assert.notEqual(ambiguous.code, 0);
    assert.match(ambiguous.stderr, /Milk Notes/);
    assert.match(ambiguous.stderr, /Milk notes archive/);
  });
});
