// Start-up cost is paid in modules loaded: `fisk-ai --help` loads none of the packages
// (zod, the model SDKs, YAML, NATS) and none of the runtime, only the few CLI modules it prints from;
// `session ls` loads zod only when it has journals to read rather than a warm summary cache.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "node:test";
import { FileStore } from "../src/index.js";
import { SUMMARY_CACHE_NAME } from "../src/runstate/file/summary-cache.js";
import { CLI } from "./helpers/cli-harness.js";
import { metaPayload } from "./helpers/record-builders.js";

const DIST = new URL("../../dist/", import.meta.url).href;

/**
 * Runs the CLI with `args` and returns the modules it loaded from dist and from node_modules:
 * every script V8 compiled, as its coverage output lists them, so a module loaded by
 * require() counts as much as one imported.
 */
function modulesLoadedBy(args: string[]): { dist: string[]; packages: string[] } {
  const dir = mkdtempSync(join(tmpdir(), "fisk-startup-"));
  try {
    const coverage = join(dir, "coverage");
    const run = spawnSync(process.execPath, [CLI, ...args], { cwd: dir, env: { ...process.env, NODE_V8_COVERAGE: coverage }, encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    const urls = readdirSync(coverage).flatMap((name) =>
      (JSON.parse(readFileSync(join(coverage, name), "utf8")) as { result: { url: string }[] }).result.map(({ url }) => url),
    );
    return {
      dist: [...new Set(urls.filter((url) => url.startsWith(DIST)).map((url) => url.slice(DIST.length)))],
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

test("session ls loads no package (no zod, no flock addon) on an empty directory or from a warm cache, and zod only to read journals", async () => {
  const dir = mkdtempSync(join(tmpdir(), "fisk-startup-ls-"));
  try {
    const empty = join(dir, "empty");
    mkdirSync(empty);
    assert.deepEqual(modulesLoadedBy(["session", "ls", "--state-dir", empty]).packages, [], "an empty directory");
    const runs = join(dir, "runs");
    const store = new FileStore({ dir: runs });
    for (const runId of ["s-1", "s-2"]) await (await store.create(runId, metaPayload(runId))).close();
    rmSync(join(runs, SUMMARY_CACHE_NAME), { force: true });
    assert.deepEqual(modulesLoadedBy(["session", "ls", "--state-dir", runs]).packages, ["zod"], "no cache yet: the journals are read and checked");
    assert.deepEqual(modulesLoadedBy(["session", "ls", "--json", "--state-dir", runs]).packages, [], "from the cache the first listing wrote");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
