// covers: src/tools/group-reaper.ts
// process: shared
// A kill -9 of fisk-ai mid-tool must not leave the tool running: its resume runs the call
// again, and two copies of one side effect at once is worse than one repeat.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { startCli } from "./helpers/cli-harness.js";
import { isRunning } from "./helpers/processes.js";
import { eventually } from "./helpers/eventually.js";

const dir = mkdtempSync(join(tmpdir(), "fisk-ai-leftovers-"));
after(() => rmSync(dir, { recursive: true, force: true }));

describe("a kill -9 of fisk-ai", () => {
  it("stops the command tool it was running, and what the tool started", async () => {
    const pids = join(dir, "pids");
    writeFileSync(
      join(dir, "agent.yaml"),
      [
        "provider: script",
        "script: ./s.yaml",
        "tools:",
        // The tool starts a child of its own, then waits: both must go.
        `  - { name: hang, description: Wait, command: [sh, -c, 'sleep 300 & echo "$$ $!" > ${pids}; wait'] }`,
      ].join("\n"),
    );
    writeFileSync(join(dir, "s.yaml"), "turns:\n  - tool_calls: [{ name: hang }]\n  - text: done\n");
    const run = startCli(["run", "--checkpoint", "--name", "k1", "wait"], {
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: dir, XDG_STATE_HOME: join(dir, "state") },
    });
    await eventually(() => readFileSync(pids, { encoding: "utf8", flag: "a+" }).endsWith("\n"), "the tool to start");
    const [shell, sleeper] = readFileSync(pids, "utf8").trim().split(" ").map(Number) as [number, number];
    assert.ok(isRunning(shell) && isRunning(sleeper));
    run.child.kill("SIGKILL");
    await run.done;
    await eventually(() => !isRunning(shell) && !isRunning(sleeper), "the tool and its child to be stopped");
  });
});
