// Every command whose reader goes away (`fisk-ai session ls | head -1`) ends quietly:
// no EPIPE stack trace, exit 0. The read end of stdout is closed before the CLI writes.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { CLI, runCli } from "./helpers/cli-harness.js";

const ROOT = mkdtempSync(join(tmpdir(), "fisk-ai-cli-pipes-"));
after(() => rmSync(ROOT, { recursive: true, force: true }));
const ENV: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: ROOT, XDG_STATE_HOME: join(ROOT, "xdg"), NO_COLOR: "1" };
const STATE = ["--state-dir", join(ROOT, "state")];

async function withClosedStdout(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env: ENV, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout.destroy();
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, "close")) as [number | null];
  return { code, stderr };
}

describe("a closed stdout", () => {
  before(async () => {
    writeFileSync(join(ROOT, "agent.yaml"), "provider: script\nscript: answer.yaml\n");
    writeFileSync(join(ROOT, "answer.yaml"), `turns:\n  - text: "${"an answer long enough to fill a line ".repeat(4)}"\n`);
    for (const name of ["one", "two"]) {
      const made = await runCli(["run", "--checkpoint", "--name", name, ...STATE, "hello"], { cwd: ROOT, env: ENV });
      assert.equal(made.code, 0, made.stderr);
    }
  });

  const commands: string[][] = [
    ["--help"],
    ["--version"],
    ["run", "--help"],
    ["run", ...STATE, "hello"],
    ["session", "--help"],
    ["session", "ls", "--help"],
    ["session", "ls", ...STATE],
    ["session", "ls", "--json", ...STATE],
    ["session", "show", "one", ...STATE],
    ["session", "show", "one", "--transcript", ...STATE],
    ["session", "export", "one", ...STATE],
    ["session", "verify", "one", "two", ...STATE],
    ["session", "fork", "one", "--name", "three", ...STATE],
  ];
  for (const args of commands) {
    it(`fisk-ai ${args.filter((arg) => !arg.startsWith("/")).join(" ")} exits 0 without a word`, async () => {
      assert.deepEqual(await withClosedStdout(args), { code: 0, stderr: "" });
    });
  }
});

describe("a reader that goes away mid-run", () => {
  it("fisk-ai run 2>&1 | true: narration and answer into a closed pipe exit 0", async () => {
    // The narration goes out between model calls and tools, so some write lands after the reader is gone.
    const line = `"${process.execPath}" "${CLI}" run ${STATE.join(" ")} --checkpoint "hello" 2>&1 | true; exit \${PIPESTATUS[0]}`;
    const child = spawn("bash", ["-c", line], { cwd: ROOT, env: ENV, stdio: "ignore" });
    const [code] = (await once(child, "close")) as [number | null];
    assert.equal(code, 0);
  });
});

describe("session <command> --help", () => {
  for (const command of ["ls", "show", "rm", "verify", "export", "import", "fork", "init-stream"]) {
    it(`session ${command} --help prints that command's usage`, async () => {
      const result = await runCli(["session", command, "--help"], { cwd: ROOT, env: ENV });
      assert.equal(result.code, 0);
      assert.match(result.stdout, new RegExp(`^Usage: fisk-ai session ${command} `));
      assert.doesNotMatch(result.stdout, /Commands:/);
    });
  }
});
