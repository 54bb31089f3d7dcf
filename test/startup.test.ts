// Start-up cost is paid in modules loaded: `fisk-ai --help` loads none of the packages
// (zod, the model SDKs, YAML, NATS) and none of the runtime, only the few CLI modules it prints from.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
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

test("--help and --version load no package and only the CLI modules that print them", () => {
  for (const flag of ["--help", "--version"]) {
    const loaded = modulesLoadedBy([flag]);
    assert.deepEqual(loaded.packages, [], `${flag} loads packages`);
    assert.deepEqual(
      loaded.dist.sort(),
      ["agent/agent-errors.js", "cli/cli-errors.js", "cli/exit-codes.js", "cli/main.js", "runstate/errors.js"],
      `${flag} loads these modules`,
    );
  }
});
