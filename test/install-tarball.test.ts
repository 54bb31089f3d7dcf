// covers: src/cli/main.ts, src/package/package-files.ts
// tier: full
// start: first
// Installing like an npm tool, as a new user would from a clone: `npm pack`, then the
// tarball installed globally under a prefix of its own and run through npx, on a machine as
// new as a user's: an empty HOME (so an empty npm cache and no npmrc: no `nodedir`), no npm
// settings from the environment, and a PATH of node, npm and a few shell tools only: no
// compiler, make or python. The dependencies come from the npm registry. The quick start then
// runs offline from the installed command: init's agent and the shipped notes example.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { after, describe, it } from "node:test";
import { BUILD_TOOLS, newUserMachine, onPath } from "./helpers/new-user-machine.js";

const REPO = new URL("../../", import.meta.url).pathname;
const ROOT = mkdtempSync(join(tmpdir(), "fisk-tarball-"));
after(() => rmSync(ROOT, { recursive: true, force: true }));
/** The installed command's state home: its sessions go here, not into the sessions of whoever runs the tests. */
const STATE_HOME = join(ROOT, "state");
const MACHINE = newUserMachine(ROOT);
const HOME = MACHINE.home;
const BIN = MACHINE.bin;
const ENV: NodeJS.ProcessEnv = { ...MACHINE.env, XDG_STATE_HOME: STATE_HOME };
// npm writes an install's many files through libuv's pool, whose four threads only contend
// on two cores: one takes less CPU (docs/internals/performance.md). The commands npx -c runs
// inherit it; fisk-ai's CPU is the same with either.
const NPM_ENV: NodeJS.ProcessEnv = { ...ENV, UV_THREADPOOL_SIZE: "1" };
// npx takes the dependencies from the cache the global install filled.
const NPM_FLAGS = ["--prefer-offline", "--no-audit", "--no-fund"];
/** A line between the outputs of commands run in one shell. */
const SEPARATOR = "--fisk-ai-next-command--";
const VERSION = (JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string }).version;

function run(program: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = ENV): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(program, args, { cwd, encoding: "utf8", env: { ...env, NO_COLOR: "1" } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function succeeded(result: { code: number | null; stdout: string; stderr: string }, what: string): string {
  assert.equal(result.code, 0, `${what}: ${result.stderr}`);
  return result.stdout;
}

/** The quick start's commands, each run in turn in a fresh directory by the installed command. */
const QUICK_START = [["--version"], ["init"], ["run", "--config", "agent.yaml", "--checkpoint", "Say hello"]];

/** Each quick start command's stdout, in order: the version, init's note, the agent's answer. */
function checkQuickStart(outputs: string[]): void {
  assert.equal(outputs.length, QUICK_START.length, outputs.join("---\n"));
  assert.equal(outputs[0], `${VERSION}\n`);
  assert.match(outputs[1] as string, /^wrote agent\.yaml and agent\.script\.yaml;/);
  assert.equal(outputs[2], "Hello! I looked at today's date with the today tool.\n");
}

/** The journals the installed commands wrote under STATE_HOME, the sessions' first prompts. */
function sessionsWritten(): string[] {
  const runs = join(STATE_HOME, "fisk-ai", "runs");
  const journals = readdirSync(runs).filter((name) => name.endsWith(".json"));
  return journals.map((name) => JSON.parse(readFileSync(join(runs, name), "utf8").split("\n")[0] as string).meta.prompt as string).sort();
}

function freshDir(name: string): string {
  const dir = join(ROOT, name);
  mkdirSync(dir);
  return dir;
}

describe("installing from the tarball", { timeout: 600_000 }, () => {
  it("runs on a new user's machine: no build tool on the PATH, no nodedir, an empty npm cache", () => {
    assert.deepEqual(
      BUILD_TOOLS.filter((tool) => onPath(tool, BIN) !== undefined),
      [],
    );
    assert.deepEqual(readdirSync(HOME), []);
    assert.equal(succeeded(run("npm", ["config", "get", "nodedir"], ROOT), "npm config get nodedir"), "undefined\n");
    assert.equal(succeeded(run("npm", ["config", "get", "cache"], ROOT), "npm config get cache"), `${join(HOME, ".npm")}\n`);
  });

  let tarball = "";

  it("npm pack makes the tarball of dist, schemas and examples", () => {
    succeeded(run("npm", ["pack", "--ignore-scripts", "--pack-destination", ROOT], REPO, NPM_ENV), "npm pack");
    const packed = readdirSync(ROOT).filter((name) => /^fisk-ai-.*\.tgz$/.test(name));
    assert.deepEqual(packed, [`fisk-ai-${VERSION}.tgz`]);
    tarball = join(ROOT, packed[0] as string);
  });

  it("npm install -g --prefix DIR ./fisk-ai-*.tgz gives a fisk-ai command that runs init's agent and the notes example offline", () => {
    const prefix = join(ROOT, "prefix");
    succeeded(run("npm", ["install", "-g", "--prefix", prefix, ...NPM_FLAGS, tarball], ROOT, NPM_ENV), "npm install -g");
    const fisk = join(prefix, "bin", "fisk-ai");
    const global = freshDir("global");
    checkQuickStart(QUICK_START.map((args) => succeeded(run(fisk, args, global), args.join(" "))));
    const notes = join(prefix, "lib", "node_modules", "fisk-ai", "examples", "notes", "agent.yaml");
    const answer = succeeded(run(fisk, ["run", "--config", notes, "--checkpoint", "Remember to buy milk"], global), "the notes example");
    assert.equal(answer, "Noted. Your notes file says: buy milk.\n");
    assert.deepEqual(sessionsWritten(), ["Remember to buy milk", "Say hello"]);

    // Without a key, the hint's offline command is typed as it stands, from another directory.
    const elsewhere = join(ROOT, "elsewhere");
    mkdirSync(elsewhere);
    writeFileSync(join(elsewhere, "agent.yaml"), "provider: anthropic\nmodel: claude-sonnet-4-5\n");
    const env: NodeJS.ProcessEnv = { ...ENV, PATH: `${join(prefix, "bin")}${delimiter}${BIN}` };
    delete env.ANTHROPIC_API_KEY;
    const keyless = run(fisk, ["run", "hello"], elsewhere, env);
    assert.equal(keyless.code, 2, keyless.stderr);
    const hinted = /run offline with a script: (.*) \(docs\/script-provider\.md\)$/m.exec(keyless.stderr)?.[1];
    assert.equal(hinted, `fisk-ai run --config ${notes} "Remember to buy milk"`, keyless.stderr);
    assert.equal(succeeded(run("sh", ["-c", hinted], elsewhere, env), "the hint's command"), "Noted. Your notes file says: buy milk.\n");
  });

  // One npx call runs the three commands (npx -c: the package's command first on the PATH), where
  // each npx call resolved the tarball's install anew, some 4 s apiece.
  it("npx --package ./fisk-ai-*.tgz runs the same quick start", () => {
    const commands = ["command -v fisk-ai", ...QUICK_START.map((args) => ["fisk-ai", ...args.map((arg) => JSON.stringify(arg))].join(" "))];
    const call = commands.join(` && echo ${SEPARATOR} && `);
    const output = succeeded(run("npx", ["--yes", ...NPM_FLAGS, "--package", tarball, "-c", call], freshDir("npx"), NPM_ENV), `npx -c '${call}'`);
    const [installed = "", ...outputs] = output.split(`${SEPARATOR}\n`);
    const npxDir = /^(.*\/_npx\/[^/]+)\/node_modules\/\.bin\/fisk-ai\n$/.exec(installed)?.[1];
    assert.ok(npxDir?.startsWith(join(HOME, ".npm")), `the fisk-ai npx installed in the new user's cache, not ${installed}`);
    checkQuickStart(outputs);
  });
});
