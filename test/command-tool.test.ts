// covers: src/tools/command-tool.ts
// process: shared
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { expandArgv, type CommandToolDefinition } from "../src/tools/command-tool.js";
import type { ToolContext } from "../src/tools/tool.js";
import { isRunning } from "./helpers/processes.js";
import { testCommandTool } from "./helpers/command-tools.js";
import { eventually } from "./helpers/eventually.js";

const scratch = mkdtempSync(join(tmpdir(), "fisk-ai-command-tool-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** A command tool, whose output is always text. */
function tool(command: string[], overrides: Partial<CommandToolDefinition> = {}) {
  const made = testCommandTool(command, overrides);
  return {
    ...made,
    run: async (input: Record<string, unknown>, runContext: ToolContext) => {
      const output = await made.run(input, runContext);
      assert.equal(typeof output.content, "string");
      return output as { content: string; is_error?: boolean };
    },
  };
}

const context = { signal: new AbortController().signal };

describe("command tools", () => {
  it("replaces {field} with the input's string value, and other values with their JSON", () => {
    assert.deepEqual(expandArgv(["echo", "{text}", "n={count}", "{obj}"], { text: "hi there", count: 3, obj: { a: 1 } }), [
      "echo",
      "hi there",
      "n=3",
      '{"a":1}',
    ]);
    assert.deepEqual(expandArgv(["echo", "{text}"], {}), { missing: "text" });
  });

  it("runs without a shell, so input is never shell syntax", async () => {
    const marker = join(scratch, "injected");
    const output = await tool(["echo", "{text}"]).run({ text: `$(touch ${marker}); echo pwned` }, context);
    assert.equal(output.content, `$(touch ${marker}); echo pwned\n`);
    assert.equal(existsSync(marker), false);
  });

  it("reports a non-zero exit as is_error with the exit status and the tail of stderr", async () => {
    const output = await tool(["sh", "-c", "echo partial; echo boom >&2; exit 3"]).run({}, context);
    assert.equal(output.is_error, true);
    assert.match(output.content, /^exit status 3\npartial\n\nstderr: boom$/);
  });

  it("keeps only the last part of a long stderr", async () => {
    const output = await tool(["sh", "-c", "head -c 10000 /dev/zero | tr '\\0' a >&2; echo END >&2; exit 1"]).run({}, context);
    assert.match(output.content, /END$/);
    assert.ok(output.content.length < 2200, `stderr tail is bounded (${output.content.length})`);
  });

  it("caps the output and says how much it dropped", async () => {
    const output = await tool(["sh", "-c", "head -c 5000 /dev/zero | tr '\\0' x"], { outputLimitBytes: 100 }).run({}, context);
    assert.equal(output.is_error, undefined);
    assert.equal(output.content, `${"x".repeat(100)}\n[output truncated: 4900 more bytes]`);
  });

  it("kills a command that runs past its timeout, and what it started", async () => {
    const pidFile = join(scratch, "grandchild.pid");
    const started = Date.now();
    const output = await tool(["sh", "-c", `sleep 30 & echo $! > ${pidFile}; wait`], { timeoutMs: 300 }).run({}, context);
    assert.equal(output.is_error, true);
    assert.match(output.content, /^t timed out after 0\.3s/);
    assert.ok(Date.now() - started < 10_000);
    const grandchild = Number(readFileSync(pidFile, "utf8"));
    // Killed, it still needs the CPU to die: a loaded machine may take a while to schedule it.
    await eventually(() => !isRunning(grandchild), "the whole process group to be gone");
  });

  it("returns when the command exits, ending what it left running in the background", async () => {
    const pidFile = join(scratch, "background.pid");
    const started = Date.now();
    const output = await tool(["sh", "-c", `sleep 30 & echo $! > ${pidFile}; echo hi`], { timeoutMs: 10_000 }).run({}, context);
    assert.deepEqual(output, { content: "hi\n" });
    assert.ok(Date.now() - started < 20_000, "it did not wait for the 30 s background sleep");
    const background = Number(readFileSync(pidFile, "utf8"));
    await eventually(() => !isRunning(background), "the background sleep to be ended");
  });

  it("does not start when the run is already shutting down", async () => {
    const controller = new AbortController();
    controller.abort();
    const marker = join(scratch, "never");
    const output = await tool(["touch", marker]).run({}, { signal: controller.signal });
    assert.equal(output.is_error, true);
    assert.equal(existsSync(marker), false);
  });

  it("stops when the run aborts", async () => {
    const controller = new AbortController();
    const running = tool(["sleep", "30"]).run({}, { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    const output = await running;
    assert.equal(output.is_error, true);
    assert.match(output.content, /stopped: the run is shutting down/);
  });

  it("reports a program that does not exist, and a missing input field", async () => {
    assert.deepEqual(await tool(["no-such-program-fisk"]).run({}, context), {
      content: "command not found: no-such-program-fisk",
      is_error: true,
    });
    assert.deepEqual(await tool(["echo", "{text}"]).run({}, context), { content: 'missing input field "text" for tool t', is_error: true });
  });

  it("says so when a command prints nothing", async () => {
    assert.deepEqual(await tool(["true"]).run({}, context), { content: "(no output)" });
  });
});
