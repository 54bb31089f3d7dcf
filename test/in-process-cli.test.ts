// covers: src/cli/main.ts, src/cli/program.ts, src/cli/context/command-io.ts
// The in-process CLI of the tests (test/helpers/in-process-cli.ts) stands in for a spawned
// one only as long as it says and exits exactly as the spawned one does: compared here
// command by command, on success and on each kind of failure.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { runCli } from "./helpers/cli-harness.js";
import { commandsInProcess, runCliInProcess } from "./helpers/in-process-cli.js";

const ROOT = mkdtempSync(join(tmpdir(), "fisk-ai-in-process-"));
after(() => rmSync(ROOT, { recursive: true, force: true }));
writeFileSync(join(ROOT, "script.yaml"), "turns:\n  - text: Noted.\n");
writeFileSync(join(ROOT, "agent.yaml"), "provider: script\nmodel: script-test\nscript: ./script.yaml\nsession: { state_dir: ./state }\n");
const SIGNALS = ["SIGINT", "SIGTERM"] as const;
const ENV: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: ROOT, XDG_STATE_HOME: join(ROOT, "xdg"), NO_COLOR: "1", TZ: "UTC" };

describe("the in-process CLI of the tests", () => {
  it("prints and exits as the spawned CLI does, and leaves the test's directory, environment and signal handlers as they were", async () => {
    const made = await runCli(["run", "--checkpoint", "--name", "noted", "Note it"], { cwd: ROOT, env: ENV });
    assert.equal(made.code, 0, made.stderr);
    const [cwd, env, handlers] = [process.cwd(), { ...process.env }, SIGNALS.map((signal) => process.listenerCount(signal))];
    const commands = [
      ["session", "ls"],
      ["session", "show", "noted", "--json"],
      ["session", "show", "noted", "--transcript"],
      ["session", "verify", "noted"],
      ["session", "show", "missing"],
      ["session", "rm", "noted", "--state-dir", join(ROOT, "nowhere")],
      ["session", "frob"],
      ["session", "fork", "noted", "--name", "forked"],
      ["run", "--checkpoint", "--name", "again", "Note it"],
      ["run", "--checkpoint", "--name", "streamed", "--output-format", "stream-json", "--cwd", tmpdir(), "Note it"],
      ["run", "--resume", "noted"],
      ["run", "--checkpoint", "--approvals", "later", "Note it"],
      ["run", "--config", "missing.yaml", "Note it"],
    ];
    for (const args of commands) {
      const spawned = await runCli(args, { cwd: ROOT, env: ENV });
      // A session made by the spawned one is removed, so the in-process one makes it again.
      const made = args[1] === "fork" ? "forked" : args[0] === "run" ? args[args.indexOf("--name") + 1] : undefined;
      if (made !== undefined) await runCli(["session", "rm", made], { cwd: ROOT, env: ENV });
      const inProcess = await runCliInProcess(args, { cwd: ROOT, env: ENV });
      assert.deepEqual({ ...inProcess, signal: null }, { ...spawned, signal: null }, args.join(" "));
    }
    assert.equal(process.cwd(), cwd);
    assert.deepEqual({ ...process.env }, env);
    assert.deepEqual(
      SIGNALS.map((signal) => process.listenerCount(signal)),
      handlers,
    );
  });
});

describe("a file's calls through commandsInProcess", () => {
  it("spawn the first call the file may run here, run the later ones in this process, and always spawn a command not given and a call that is to crash", async () => {
    // Each run's tool writes its parent's pid: the CLI's process, or this one.
    const dir = join(ROOT, "first-spawned");
    mkdirSync(dir);
    writeFileSync(join(dir, "script.yaml"), "turns:\n  - tool_calls: [{ name: parent, input: {} }]\n  - text: Done.\n");
    writeFileSync(
      join(dir, "agent.yaml"),
      "provider: script\nscript: ./script.yaml\nsession: { state_dir: ./state }\ntools:\n  - { name: parent, description: Parent, command: [sh, -c, 'echo $PPID >> parents'] }\n",
    );
    const cli = commandsInProcess(["run"]);
    const parents = async (args: string[], env: NodeJS.ProcessEnv = ENV, through = cli): Promise<string> => {
      const result = await through(args, { cwd: dir, env });
      assert.ok(result.code === 0 || result.signal === "SIGKILL", `${args.join(" ")}: ${result.stderr}`);
      const lines = readFileSync(join(dir, "parents"), "utf8").trim().split("\n");
      return lines.at(-1) === String(process.pid) ? "here" : "spawned";
    };
    assert.equal(await parents(["run", "first"]), "spawned");
    assert.equal(await parents(["run", "second"]), "here");
    assert.equal(await parents(["run", "third"]), "here");
    assert.equal(await parents(["run", "--checkpoint", "--name", "crashed", "cut"], { ...ENV, FISK_AI_TEST_CRASH_AT: "after-tool:1" }), "spawned");
    // run is not among the commands given: spawned, every time.
    const sessionsOnly = commandsInProcess(["session"]);
    assert.equal(await parents(["run", "fourth"], ENV, sessionsOnly), "spawned");
    assert.equal(await parents(["run", "fifth"], ENV, sessionsOnly), "spawned");
  });
});
