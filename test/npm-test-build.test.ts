// covers: scripts/test.mjs
// process: shared
// `npm test` (scripts/test.mjs) builds dist/ again only when a file it is built from changed
// since its last build: a changed, added or removed source, the tsconfig, the package files or
// the bundler script; on a fresh clone `npm ci` has just built it. It runs every test file of
// a tier once, in the order and processes their headers ask for (scripts/test-headers.mjs).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";

interface Planned {
  file: string;
  tier?: string;
  process: string;
  start: string;
}
const { staleBuild, BUILD_STAMP, TEST_PROCESS_FLAGS, testJobs, filesOfTier, tierOf, sharedModule, childrenCpuSeconds } = (await import(
  new URL("../../scripts/test.mjs", import.meta.url).href
)) as {
  staleBuild: (root: string) => string | undefined;
  BUILD_STAMP: string;
  TEST_PROCESS_FLAGS: string[];
  testJobs: (tests: Planned[]) => { jobs: string[]; modules: { path: string; files: string[] }[] };
  filesOfTier: (headers: Planned[], tier: string) => Planned[];
  tierOf: (args: string[]) => string;
  sharedModule: (files: string[]) => string;
  childrenCpuSeconds: (stat: string | undefined) => number | undefined;
};

const BEFORE = new Date("2026-01-01T00:00:00Z");
const BUILT = new Date("2026-01-02T00:00:00Z");
const AFTER = new Date("2026-01-03T00:00:00Z");

/** A checkout whose every file and directory dates from before its build. */
function builtCheckout(): string {
  const root = mkdtempSync(join(tmpdir(), "fisk-npm-test-"));
  const files = ["src/index.ts", "src/cli/main.ts", "tsconfig.json", "package.json", "package-lock.json", "scripts/bundle-cli.mjs", BUILD_STAMP];
  for (const file of files) {
    mkdirSync(join(root, file, ".."), { recursive: true });
    writeFileSync(join(root, file), "x");
  }
  for (const path of [...files, "src/cli", "src"]) utimesSync(join(root, path), BEFORE, BEFORE);
  utimesSync(join(root, BUILD_STAMP), BUILT, BUILT);
  return root;
}

test("a build newer than every source is not redone; any changed, added or removed input, or no build, redoes it", (t) => {
  const root = builtCheckout();
  t.after(() => rmSync(root, { recursive: true, force: true }));
  assert.equal(staleBuild(root), undefined);

  utimesSync(join(root, "src/cli/main.ts"), AFTER, AFTER);
  assert.equal(staleBuild(root), "src changed since the last build");
  utimesSync(join(root, "src/cli/main.ts"), BEFORE, BEFORE);

  // A removed source changes only its directory's time.
  rmSync(join(root, "src/cli/main.ts"));
  assert.equal(staleBuild(root), "src changed since the last build");
  utimesSync(join(root, "src/cli"), BEFORE, BEFORE);
  assert.equal(staleBuild(root), undefined);

  for (const input of ["package-lock.json", "scripts/bundle-cli.mjs", "tsconfig.json"]) {
    utimesSync(join(root, input), AFTER, AFTER);
    assert.equal(staleBuild(root), `${input} changed since the last build`);
    utimesSync(join(root, input), BEFORE, BEFORE);
  }

  rmSync(join(root, "package.json"));
  assert.equal(staleBuild(root), "package.json changed since the last build");
  rmSync(join(root, BUILD_STAMP));
  assert.equal(staleBuild(root), `${BUILD_STAMP} is missing`);
});

test("every test file runs once, alone or in one shared module: the first ones, then the modules, then the others by name", () => {
  const shared = new Set(["b", "c", "g"]);
  const first = new Set(["e", "h"]);
  const tests = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "sub/j"].map((name) => ({
    file: `${name}.test.ts`,
    process: shared.has(name) ? "shared" : "own",
    start: first.has(name) ? "first" : "later",
  }));
  const { jobs, modules } = testJobs(tests);
  assert.deepEqual(
    modules.map((module) => module.files),
    [["b.test.js", "c.test.js", "g.test.js"]],
  );
  assert.deepEqual(
    jobs.map((job) => job.replace(/^\.test-build\/(test|shared)\//, "")),
    ["e.test.js", "h.test.js", "shared-1.test.js", "a.test.js", "d.test.js", "f.test.js", "i.test.js", "sub/j.test.js"],
  );
  const ran = jobs.flatMap((job) => modules.find((module) => module.path === job)?.files ?? [job.replace(/^\.test-build\/test\//, "")]);
  assert.deepEqual(ran.sort(), tests.map((test) => test.file.replace(/\.ts$/, ".js")).sort());
});

test("the shared files take turns in one process for about every ten, eight at most", () => {
  const sharedFiles = (count: number) => Array.from({ length: count }, (_, index) => ({ file: `s${index}.test.ts`, process: "shared", start: "later" }));
  assert.equal(testJobs(sharedFiles(10)).modules.length, 1);
  const eleven = testJobs(sharedFiles(11)).modules;
  assert.deepEqual(
    eleven.map((module) => module.files.length),
    [6, 5],
  );
  assert.equal(testJobs(sharedFiles(200)).modules.length, 8);
  assert.deepEqual(testJobs([]).jobs, []);
});

test("a file that would start first in a shared process stops npm test before any test, naming it", () => {
  assert.throws(() => testJobs([{ file: "a.test.ts", process: "shared", start: "first" }]), {
    message: 'test/a.test.ts: "start: first" is for a file with a process of its own: drop one line',
  });
});

test("a tier runs its own files and those of the tiers before it; the arguments name one tier at most", () => {
  const headers = ["quick", "standard", "full"].map((tier) => ({ file: `${tier}.test.ts`, tier, process: "own", start: "later" }));
  const tierFiles = (tier: string) => filesOfTier(headers, tier).map((header) => header.file);
  assert.deepEqual(tierFiles("quick"), ["quick.test.ts"]);
  assert.deepEqual(tierFiles("standard"), ["quick.test.ts", "standard.test.ts"]);
  assert.deepEqual(tierFiles("full"), ["quick.test.ts", "standard.test.ts", "full.test.ts"]);
  assert.deepEqual(
    [[], ["--quick"], ["--full"]].map((args) => tierOf(args)),
    ["standard", "quick", "full"],
  );
  assert.throws(() => tierOf(["--slow"]), { message: "--slow is not an option: give --quick, --full or nothing" });
  assert.throws(() => tierOf(["--quick", "--full"]), { message: "--quick and --full ask for two tiers: give one" });
});

test("a shared module runs each file's tests and hooks inside a describe named by the file, and fails as they fail", (t) => {
  const root = mkdtempSync(join(tmpdir(), "fisk-shared-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, "test"));
  mkdirSync(join(root, "shared"));
  const file = (body: string) => `import assert from "node:assert/strict";\nimport { after, test } from "node:test";\n${body}\n`;
  writeFileSync(join(root, "test", "one.test.js"), file(`test("one passes", () => {});\nafter(() => console.log("one's after"));`));
  writeFileSync(join(root, "test", "two.test.js"), file(`test("two fails", () => assert.equal(1, 2));`));
  writeFileSync(join(root, "shared", "s.test.js"), sharedModule(["one.test.js", "two.test.js"]));
  // Without the runner's NODE_TEST_CONTEXT, which would make this run report to the test's own runner.
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  const run = spawnSync(process.execPath, ["--test", "--test-reporter=spec", join(root, "shared", "s.test.js")], { encoding: "utf8", env });
  assert.equal(run.status, 1, run.stdout);
  assert.match(run.stdout, /▶ one\.test\.js\n {2}✔ one passes/);
  assert.match(run.stdout, /one's after/);
  assert.match(run.stdout, /▶ two\.test\.js\n {2}✖ two fails/);
  assert.match(run.stdout, /ℹ tests 2\nℹ suites 2\nℹ pass 1\nℹ fail 1/);
});

test("the runner starts the files in the order given, not by name, each with npm test's V8 flags, and exits 1 on a failed test but not on a failed todo", (t) => {
  const root = mkdtempSync(join(tmpdir(), "fisk-run-tests-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const started = join(root, "started");
  const flags = join(root, "flags");
  const file = (name: string, body: string) => {
    writeFileSync(
      join(root, name),
      `import { appendFileSync } from "node:fs";\nimport { test } from "node:test";\nappendFileSync(${JSON.stringify(started)}, "${name} ");\nappendFileSync(${JSON.stringify(flags)}, JSON.stringify(process.execArgv) + "\\n");\n${body}\n`,
    );
    return join(root, name);
  };
  const c = file("c.test.js", `test("c passes", () => {});`);
  const a = file("a.test.js", `test("a fails as a todo", { todo: true }, () => { throw new Error("not yet"); });`);
  const b = file("b.test.js", `test("b fails", () => { throw new Error("no"); });`);
  // runTests in a process of its own, from a file (the runner's processes inherit a -e script):
  // Node's runner runs no files from inside a test file (NODE_TEST_CONTEXT).
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  const runner = join(root, "run-tests.mjs");
  writeFileSync(
    runner,
    `import { runTests } from ${JSON.stringify(new URL("../../scripts/test.mjs", import.meta.url).href)};\nprocess.exit(await runTests(process.argv.slice(2), { concurrency: 1, flags: ${JSON.stringify(TEST_PROCESS_FLAGS)}, output: process.stdout }));\n`,
  );
  const runTestsOn = (jobs: string[]) => spawnSync(process.execPath, [runner, ...jobs], { encoding: "utf8", env });

  const passed = runTestsOn([c, a]);
  assert.equal(passed.status, 0, passed.stdout + passed.stderr);
  assert.equal(readFileSync(started, "utf8"), "c.test.js a.test.js ");
  assert.match(passed.stdout, /# pass 1\n# fail 0\n# cancelled 0\n# skipped 0\n# todo 1\n/);
  const failed = runTestsOn([b, c]);
  assert.equal(failed.status, 1, failed.stdout + failed.stderr);
  assert.equal(readFileSync(started, "utf8"), "c.test.js a.test.js b.test.js c.test.js ");
  const seen = readFileSync(flags, "utf8").trim().split("\n");
  // Node 24's runner also passes on the options this process runs with, each spelled out: npm test's flags come last.
  assert.deepEqual(
    seen.map((line) => (JSON.parse(line) as string[]).slice(-TEST_PROCESS_FLAGS.length)),
    seen.map(() => TEST_PROCESS_FLAGS),
  );
});

test("npm test's CPU is its waited-for children's user and system time, read after a command name with spaces and parentheses", () => {
  // pid (comm) state, then fields 4 to 15, then cutime 250 and cstime 37 ticks, then the rest.
  const stat = "4242 (node (a) b) S 1 2 3 4 5 6 7 8 9 10 11 12 250 37 20 0 1 0 99 0 0";
  assert.equal(childrenCpuSeconds(stat), 2.87);
  assert.equal(childrenCpuSeconds(undefined), undefined, "no /proc: no figure");
  assert.equal(childrenCpuSeconds("4242 (node) S 1"), undefined, "a line cut short: no figure");
});

test("npm test's CPU counts a child that burned a third of a second once it has been waited for", {
  skip: existsSync("/proc/self/stat") ? false : "needs /proc",
}, () => {
  const before = childrenCpuSeconds(readFileSync("/proc/self/stat", "utf8")) as number;
  const burned = spawnSync(process.execPath, ["-e", "while (process.cpuUsage().user < 300_000);"]);
  assert.equal(burned.status, 0);
  const after = childrenCpuSeconds(readFileSync("/proc/self/stat", "utf8")) as number;
  assert.ok(after - before >= 0.29, `${before} s before, ${after} s after`);
});
