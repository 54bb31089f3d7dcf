// covers: src/cli/cli-errors.ts, src/cli/exit-codes.ts
// process: shared
// Messages that say what to do next (issue 11, part 5): each one walked by spawning the CLI.
import assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { startCli, startScript, type CliResult } from "./helpers/cli-harness.js";
import { commandsInProcess } from "./helpers/in-process-cli.js";

/** The file's first call spawned, the later ones in this process (test/helpers/in-process-cli.ts). */
const cli = commandsInProcess(["session", "run"]);

const REPO = new URL("../../", import.meta.url).pathname;
const root = mkdtempSync(join(tmpdir(), "fisk-ai-cli-messages-"));
after(() => rmSync(root, { recursive: true, force: true }));

function project(name: string, files: Record<string, string>): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = join(root, name);
  mkdirSync(dir);
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return { dir, env: { PATH: process.env.PATH, HOME: dir, XDG_STATE_HOME: join(dir, "state"), NO_COLOR: "1" } };
}

/** One line on stderr, and nothing that looks like a stack trace. */
function assertOneLine(result: CliResult, code: number, pattern: RegExp): void {
  assert.equal(result.code, code, result.stderr);
  assert.match(result.stderr, /^fisk-ai: [^\n]*\n$/, "one line");
  assert.match(result.stderr, pattern);
}

const TOOL_SCRIPT = `turns:
  - tool_calls: [{ name: work, input: {} }]
  - tool_calls: [{ name: work, input: {} }]
  - text: done
`;

function config(extra: string, tool = "[sh, -c, 'echo working']"): string {
  return `provider: script
model: s
script: ./turns.yaml
tools:
  - name: work
    description: Do some work
    command: ${tool}
${extra}`;
}

describe("messages that say what to do next", () => {
  it("a lock that cannot load (no koffi for this platform) names the platform and what to do", async () => {
    // A copy of the package installed without its optional dependencies, as where koffi has no prebuilt binary.
    const pkg = join(root, "no-koffi");
    mkdirSync(join(pkg, "node_modules"), { recursive: true });
    cpSync(join(REPO, "dist"), join(pkg, "dist"), { recursive: true });
    cpSync(join(REPO, "package.json"), join(pkg, "package.json"));
    for (const entry of readdirSync(join(REPO, "node_modules"))) {
      if (entry !== "koffi" && entry !== "@koromix" && entry !== ".bin") symlinkSync(join(REPO, "node_modules", entry), join(pkg, "node_modules", entry));
    }
    const { dir, env } = project("addon", { "agent.yaml": config(""), "turns.yaml": TOOL_SCRIPT });
    const result = await startScript(join(pkg, "dist", "cli", "main.js"), ["run", "--checkpoint", "go"], { cwd: dir, env }).done;
    assertOneLine(
      result,
      1,
      new RegExp(
        `the run lock \\(flock through the koffi package\\) cannot load on ${process.platform}-${process.arch}, Node.js ${process.versions.node}: reinstall fisk-ai in ${pkg} with its optional dependencies \\(npm install --include=optional\\), or keep sessions on NATS`,
      ),
    );
  });

  it("a second Ctrl-C says the session was left open and how to resume it, and that command resumes it", async () => {
    const { dir, env } = project("second-ctrl-c", {
      "agent.yaml": config("", "[sleep, '30']"),
      "turns.yaml": TOOL_SCRIPT,
    });
    const run = startCli(["run", "--checkpoint", "--name", "twice", "go"], { cwd: dir, env });
    await run.stderrIncludes("→ work");
    run.child.kill("SIGINT");
    await run.stderrIncludes("suspending at the next step");
    run.child.kill("SIGINT");
    const result = await run.done;
    assert.equal(result.code, 130, result.stderr);
    const hint = /fisk-ai: interrupted; session twice was left open as a crash leaves it, resume it with: (.*)\n/.exec(result.stderr);
    assert.ok(hint, result.stderr);
    assert.match(hint[1] as string, /run --resume twice$/);
    writeFileSync(join(dir, "agent.yaml"), config(""));
    const resumed = await cli(["run", "--resume", "twice", "--force"], { cwd: dir, env });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(resumed.stdout, "done\n");
  });

  it("the iteration cap and the token budget name the config key that raises them, and how to go on", async () => {
    const { dir, env } = project("limits", { "agent.yaml": config("budget: { max_iterations: 1 }\n"), "turns.yaml": TOOL_SCRIPT });
    const capped = await cli(["run", "--checkpoint", "--name", "capped", "go"], { cwd: dir, env });
    assert.equal(capped.code, 5, capped.stderr);
    assert.match(
      capped.stderr,
      /fisk-ai: iteration cap reached: 1 model calls \(session capped\): raise budget\.max_iterations in agent\.yaml, then resume with: .*run --resume capped --force\n$/,
    );
    writeFileSync(join(dir, "agent.yaml"), config("budget: { max_iterations: 5 }\n"));
    const raised = await cli(["run", "--resume", "capped", "--force"], { cwd: dir, env });
    assert.equal(raised.code, 0, raised.stderr);
    assert.equal(raised.stdout, "done\n");

    writeFileSync(join(dir, "agent.yaml"), config("budget: { max_tokens: 10 }\n"));
    const spent = await cli(["run", "go"], { cwd: dir, env });
    assert.equal(spent.code, 4, spent.stderr);
    assert.match(spent.stderr, /fisk-ai: token budget reached: \d+ of 10 tokens used: raise budget\.max_tokens in agent\.yaml\n$/);
  });

  it("a resume refused at a limit names the config key that raises it and --force", async () => {
    const { dir, env } = project("refused-limits", { "agent.yaml": config("budget: { max_iterations: 1 }\n"), "turns.yaml": TOOL_SCRIPT });
    assert.equal((await cli(["run", "--checkpoint", "--name", "capped", "go"], { cwd: dir, env })).code, 5);
    assertOneLine(
      await cli(["run", "--resume", "capped"], { cwd: dir, env }),
      2,
      /^fisk-ai: cannot resume session capped: it has made 1 of its 1 model calls for its latest prompt; raise budget\.max_iterations, then resume with --force, or give a follow-up\n$/,
    );

    writeFileSync(join(dir, "agent.yaml"), config("budget: { max_tokens: 10 }\n"));
    assert.equal((await cli(["run", "--checkpoint", "--name", "spent", "go"], { cwd: dir, env })).code, 4);
    assertOneLine(
      await cli(["run", "--resume", "spent"], { cwd: dir, env }),
      2,
      /^fisk-ai: cannot resume session spent: token budget reached: \d+ of 10 tokens used; raise budget\.max_tokens, then resume with --force\n$/,
    );
  });

  it("a failed tool is marked failed in plain output", async () => {
    const { dir, env } = project("failed-tool", { "agent.yaml": config("", "[sh, -c, 'echo broken >&2; exit 3']"), "turns.yaml": TOOL_SCRIPT });
    const result = await cli(["run", "go"], { cwd: dir, env });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /^← work failed: exit status 3/m);
    assert.doesNotMatch(result.stderr, /\x1b\[/, "no escape codes under NO_COLOR and a pipe");
  });

  it("--provider script without a script names how to give one", async () => {
    const { dir, env } = project("no-script", {});
    assertOneLine(
      await cli(["run", "--provider", "script", "go"], { cwd: dir, env }),
      2,
      /script provider plays the model's side from a script file: name it in agent\.yaml \(script: .*\) and give that file with --config/,
    );
  });

  it("a missing script file is one line naming the file", async () => {
    const { dir, env } = project("missing-script", { "agent.yaml": "provider: script\nmodel: s\nscript: ./gone.yaml\n" });
    assertOneLine(await cli(["run", "go"], { cwd: dir, env }), 2, new RegExp(`cannot read script ${join(dir, "gone.yaml")}: no such file`));
  });

  it("a number where a string is expected suggests quoting it", async () => {
    const { dir, env } = project("number", { "agent.yaml": "provider: script\nmodel: 4.1\nscript: ./turns.yaml\n", "turns.yaml": TOOL_SCRIPT });
    assertOneLine(
      await cli(["run", "go"], { cwd: dir, env }),
      2,
      /agent\.yaml: model: expected a string, and YAML read 4\.1 as a number: quote it \(model: "4\.1"\)/,
    );
  });

  it("a mistyped config key suggests the nearest valid one, also inside a list", async () => {
    const top = project("typo", { "agent.yaml": "provider: script\nmodle: s\nscript: ./turns.yaml\n" });
    assertOneLine(await cli(["run", "go"], { cwd: top.dir, env: top.env }), 2, /agent\.yaml: unknown key "modle": did you mean "model"\?/);
    const nested = project("typo-nested", { "agent.yaml": config("").replace("description:", "descripton:"), "turns.yaml": TOOL_SCRIPT });
    assertOneLine(await cli(["run", "go"], { cwd: nested.dir, env: nested.env }), 2, /tools\[0\]: unknown key "descripton": did you mean "description"\?/);
    const unlike = project("typo-far", { "agent.yaml": "provider: script\nzzzzzz: s\n" });
    assertOneLine(await cli(["run", "go"], { cwd: unlike.dir, env: unlike.env }), 2, /unknown key "zzzzzz": check its spelling against docs\/agent-yaml\.md$/m);
  });
});
