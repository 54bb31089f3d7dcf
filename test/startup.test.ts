// Start-up cost is paid in modules loaded: `fisk-ai --help` loads no package but the argument
// parser (no zod, model SDKs, YAML or NATS) and none of the runtime, only the few CLI modules it
// prints from; a command loads only the packages it uses.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "node:test";
import { CLI } from "./helpers/cli-harness.js";

const MODULE_LOG = new URL("./helpers/module-log.js", import.meta.url).href;
const DIST = new URL("../../dist/", import.meta.url).href;

/** Runs the CLI with `args` and returns the modules it loaded from dist and from node_modules. */
function modulesLoadedBy(args: string[]): { dist: string[]; packages: string[] } {
  const dir = mkdtempSync(join(tmpdir(), "fisk-startup-"));
  try {
    mkdirSync(join(dir, "empty"));
    const log = join(dir, "modules.log");
    const run = spawnSync(process.execPath, ["--import", MODULE_LOG, CLI, ...args], {
      cwd: dir,
      env: { ...process.env, FISK_MODULE_LOG: log },
      encoding: "utf8",
    });
    assert.equal(run.status, 0, run.stderr);
    const urls = readFileSync(log, "utf8").split("\n").filter((url) => url !== "");
    return {
      dist: urls.filter((url) => url.startsWith(DIST)).map((url) => url.slice(DIST.length)),
      packages: [...new Set(urls.flatMap((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ?? []))],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const HELP_MODULES = ["agent/agent-errors.js", "cli/cli-errors.js", "cli/exit-codes.js", "cli/main.js", "cli/program.js", "runstate/errors.js"];

test("--help and --version load only the argument parser and the CLI modules that print them", () => {
  for (const args of [["--help"], ["--version"], ["-v"], ["run", "--help"], ["session", "--help"], ["session", "show", "--help"], ["memory", "--help"], ["help", "memory"]]) {
    const loaded = modulesLoadedBy(args);
    assert.deepEqual(loaded.packages, ["commander"], `fisk-ai ${args.join(" ")} loads these packages`);
    assert.deepEqual(loaded.dist.sort(), HELP_MODULES, `fisk-ai ${args.join(" ")} loads these modules`);
  }
});

test("a command loads the packages it uses and no other: no model SDK, NATS or YAML to list sessions or notes", () => {
  const cases: [string[], string[]][] = [
    [["completion", "bash"], ["commander"]],
    // The journal's records are checked with zod; the file store locks with fs-ext.
    [["session", "ls", "--state-dir", "empty"], ["commander", "fs-ext", "zod"]],
    // Notes are YAML front matter; their tools' schemas are zod.
    [["memory", "ls"], ["commander", "yaml", "zod"]],
  ];
  for (const [args, packages] of cases) assert.deepEqual(modulesLoadedBy(args).packages.sort(), packages, `fisk-ai ${args.join(" ")}`);
});
