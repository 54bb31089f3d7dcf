// Counts read as English: one of a thing is singular, wherever the CLI prints a count.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { counted } from "../src/cli/counted.js";
import { describeToolResult } from "../src/cli/render-blocks.js";
import { runCli } from "./helpers/cli-harness.js";

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
    const run = await runCli(["run", "--config", NOTES, "--checkpoint", "Remember to buy milk"], { cwd: dir, env });
    assert.equal(run.code, 0, run.stderr);
    const du = await runCli(["session", "du"], { cwd: dir, env });
    assert.match(du.stdout, /total \(1 session, \d+ bytes\)/);
    const prune = await runCli(["session", "prune", "--keep-last", "0", "--dry-run"], { cwd: dir, env });
    assert.match(prune.stdout, /^would remove 1 session, \d+ bytes/m);
  });
});
