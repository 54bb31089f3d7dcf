// covers: src/tools/group-reaper.ts
// process: shared
// A process killed at any moment after it spawned a watched child leaves nothing running:
// the child runs nothing of its own until the reaper holds its group.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { isRunning } from "./helpers/processes.js";
import { eventually } from "./helpers/eventually.js";

const dir = mkdtempSync(join(tmpdir(), "fisk-ai-reaper-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const reaper = new URL("../src/tools/group-reaper.js", import.meta.url).href;

/** Runs a node program that spawns a watched `sh` writing `marker`, then kills itself where `killWhen` says. */
function spawnThenDie(name: string, killWhen: string): { childPid: number; marker: string } {
  const marker = join(dir, `${name}.marker`);
  const pidFile = join(dir, `${name}.pid`);
  const program = join(dir, `${name}.mjs`);
  writeFileSync(
    program,
    [
      `import { writeFileSync, existsSync, readFileSync } from "node:fs";`,
      `import { spawnWatched } from ${JSON.stringify(reaper)};`,
      `const child = spawnWatched("sh", ["-c", ${JSON.stringify(`echo $$ > ${marker}; sleep 300`)}], { stdio: ["ignore", "ignore", "ignore"] });`,
      `writeFileSync(${JSON.stringify(pidFile)}, String(child.pid));`,
      killWhen,
    ].join("\n"),
  );
  const result = spawnSync(process.execPath, [program], { encoding: "utf8" });
  assert.equal(result.signal, "SIGKILL", result.stderr);
  return { childPid: Number(readFileSync(pidFile, "utf8")), marker };
}

describe("a watched child", () => {
  it("runs nothing when its parent dies the moment spawn returns", async () => {
    const { childPid, marker } = spawnThenDie("at-once", `process.kill(process.pid, "SIGKILL");`);
    await eventually(() => !isRunning(childPid), "the gated child to exit");
    assert.equal(existsSync(marker), false, "the child ran its command before the reaper held its group");
  });

  it("is stopped, with what it started, when its parent dies while it runs", async () => {
    // The shell creates the marker before echo writes to it: the parent dies once the line is whole.
    const running = JSON.stringify(join(dir, "running.marker"));
    const { childPid, marker } = spawnThenDie(
      "running",
      `const wait = () => existsSync(${running}) && readFileSync(${running}, "utf8").endsWith("\\n") ? process.kill(process.pid, "SIGKILL") : setTimeout(wait, 10); wait();`,
    );
    assert.equal(Number(readFileSync(marker, "utf8")), childPid, "the command runs as the spawned process itself");
    await eventually(() => !isRunning(childPid), "the child to be stopped by the reaper");
  });
});
