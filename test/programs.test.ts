// covers: test/helpers/programs.ts
// process: shared
// A machine without a program some tests need skips them in one line saying how to get it;
// under FISK_AI_REQUIRE (as CI runs) the same machine fails instead.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import { leftToFullTier } from "./helpers/programs.js";

const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "programs", "needs-zsh.js");

/** Runs the fixture's tests with no zsh on PATH; NODE_TEST_CONTEXT would make it report to this runner instead of printing. */
function runWithoutZsh(extra: NodeJS.ProcessEnv): { status: number | null; stdout: string } {
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const result = spawnSync(process.execPath, ["--test-reporter=tap", FIXTURE], { encoding: "utf8", env: { ...env, PATH: "/nonexistent", ...extra } });
  return { status: result.status, stdout: result.stdout };
}

describe("tests that need a program the machine lacks", () => {
  it("are skipped in one line naming the program and how to get it", () => {
    const { status, stdout } = runWithoutZsh({ FISK_AI_REQUIRE: "" });
    assert.equal(status, 0, stdout);
    assert.match(stdout, /^ok 1 - a group that runs zsh # SKIP needs zsh, which is not on this machine: apt-get install zsh$/m);
    assert.doesNotMatch(stdout, /not ok/);
  });

  it("fail the run when FISK_AI_REQUIRE names the program", () => {
    const { status, stdout } = runWithoutZsh({ FISK_AI_REQUIRE: "nats-server, zsh" });
    assert.equal(status, 1, stdout);
    assert.match(stdout, /^not ok \d+ - zsh is required here \(FISK_AI_REQUIRE\)$/m);
    assert.match(stdout, /FISK_AI_REQUIRE names zsh, but this test needs zsh, which is not on this machine/);
    assert.doesNotMatch(stdout, /# SKIP/);
  });
});

describe("tests that need a headless browser", () => {
  it("run in the full tier and when their file is run by name; the quick and standard tiers skip them, saying where they run", () => {
    assert.equal(leftToFullTier("chromium", { FISK_AI_TEST_TIER: "full" }), undefined);
    assert.equal(leftToFullTier("chromium", {}), undefined);
    for (const tier of ["quick", "standard"])
      assert.equal(leftToFullTier("chromium", { FISK_AI_TEST_TIER: tier }), "chromium's tests run in the full tier: npm run test:full");
    assert.equal(leftToFullTier("tmux", { FISK_AI_TEST_TIER: "standard" }), undefined, "a terminal is not left to the full tier");
  });
});
