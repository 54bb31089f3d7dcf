// covers: src/cli/run/live-status.ts
// process: shared
// The CLI shows its work on a terminal (issue 11, part 2): spinner, streamed text, tokens per
// turn and a summary, under a real pseudo-terminal from util-linux script(1); and none of it
// under a pipe, NO_COLOR or TERM=dumb.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { CLI, runCli } from "./helpers/cli-harness.js";

const dir = mkdtempSync(join(tmpdir(), "fisk-ai-live-"));
after(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(
  join(dir, "agent.yaml"),
  `provider: script
model: s
script: ./turns.yaml
tools:
  - name: note
    description: Write a note
    command: [sh, -c, 'sleep 0.3; echo saved']
  - name: broken
    description: Fails
    command: [sh, -c, 'exit 4']
`,
);
writeFileSync(
  join(dir, "turns.yaml"),
  `turns:
  - text: Writing it down.
    tool_calls: [{ name: note, input: {} }]
  - tool_calls: [{ name: broken, input: {} }]
  - text: All noted here.
`,
);
const ANSWER = "All noted here.";
const hasScript = spawnSync("script", ["--version"]).status === 0;

function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: dir, XDG_STATE_HOME: join(dir, "state"), TERM: "xterm-256color", ...extra };
}

/** Runs the CLI on a pseudo-terminal: stdout and stderr both reach it, merged. */
async function onTerminal(args: string[], environment: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
  const child = spawn("script", ["-qfec", [process.execPath, CLI, ...args].map(quote).join(" "), "/dev/null"], {
    cwd: dir,
    env: environment,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const [code] = (await once(child, "exit")) as [number | null];
  return { code, output: output.replaceAll("\r", "") };
}

const occurrences = (text: string, part: string) => text.split(part).length - 1;

describe("a CLI that shows its work", { skip: hasScript ? false : "util-linux script(1) is not installed" }, () => {
  it("on a terminal: a spinner with elapsed time for model calls and tools, streamed text, tokens per turn, failed tools marked, a summary, the answer once", async () => {
    const { code, output } = await onTerminal(["run", "--checkpoint", "--name", "live", "take a note"], env());
    assert.equal(code, 0, output);
    assert.match(output, /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]\x1b\[39m model call 1 \x1b\[2m\d+\.\ds/, "a spinner during the model call, with elapsed time");
    assert.match(output, /running note \x1b\[2m0\.[1-9]s/, "the spinner counts the tool's time");
    assert.match(output, /Writing it down\./);
    assert.equal(occurrences(output, "tokens in,"), 3, "one token line per turn");
    assert.match(output, /\x1b\[31m← broken failed: exit status 4/, "a failed tool in red, and marked failed");
    assert.match(output, /completed: 3 model calls, 2 tools, \d+ tokens, \d+\.\ds, session live/);
    assert.equal(occurrences(output, ANSWER), 1, "the streamed answer is not printed again on the same terminal");
  });

  for (const [name, extra] of [
    ["NO_COLOR", { NO_COLOR: "1" }],
    ["TERM=dumb", { TERM: "dumb" }],
    ["CI", { CI: "true" }],
  ] as const) {
    it(`on a terminal under ${name}: the plain narration, no escape codes, no spinner, no summary`, async () => {
      const { code, output } = await onTerminal(["run", "take a note"], env(extra));
      assert.equal(code, 0, output);
      if (name !== "CI") assert.doesNotMatch(output, /\x1b/);
      assert.doesNotMatch(output, /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]|tokens in|model calls/);
      assert.match(output, /← broken failed: exit status 4/);
      assert.equal(occurrences(output, ANSWER), 1);
    });
  }

  it("under a pipe: nothing but the narration on stderr and the answer on stdout; FORCE_COLOR colors it", async () => {
    const piped = await runCli(["run", "take a note"], { cwd: dir, env: env() });
    assert.equal(piped.code, 0, piped.stderr);
    assert.equal(piped.stdout, `${ANSWER}\n`);
    assert.doesNotMatch(piped.stderr, /\x1b|tokens in|model calls/);
    const forced = await runCli(["run", "take a note"], { cwd: dir, env: env({ FORCE_COLOR: "1" }) });
    assert.equal(forced.stdout, `${ANSWER}\n`);
    assert.match(forced.stderr, /\x1b\[2m→ note \{\}\x1b\[22m/, "dim narration");
    assert.match(forced.stderr, /\x1b\[31m← broken failed/, "a failed tool in red");
    assert.doesNotMatch(forced.stderr, /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]|tokens in/, "no spinner off a terminal");
  });
});
