// `npm test`: the build (dist/, whose CLI the tests spawn, then .test-build/, the tests), then
// every test file with Node's runner, three processes at a time (the files wait on processes,
// servers and leases part of the time), the quick files of SHARED several to a process. Prints
// the whole time, the build included. dist/ is built again only when a file it is built from
// changed since its last build, as make would: `npm ci` has just built it on a fresh clone.
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

/** What `npm run build` reads; a directory counts too, since removing a file changes only its directory. */
const BUILD_INPUTS = ["src", "tsconfig.json", "package.json", "package-lock.json", "scripts/bundle-cli.mjs"];
/** The build's last output (scripts/bundle-cli.mjs writes it after everything else). */
export const BUILD_STAMP = "dist/cli/bundle/contents.json";

function newestChange(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat === undefined) return Number.POSITIVE_INFINITY;
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newestChange(join(path, name))));
}

/** Why dist/ under `root` must be built again, or undefined when it is newer than every input of its build. */
export function staleBuild(root) {
  const built = statSync(join(root, BUILD_STAMP), { throwIfNoEntry: false });
  if (built === undefined) return `${BUILD_STAMP} is missing`;
  const changed = BUILD_INPUTS.find((input) => newestChange(join(root, input)) >= built.mtimeMs);
  return changed === undefined ? undefined : `${changed} changed since the last build`;
}

/**
 * Test files that leave the process as they found it (its environment, working directory,
 * umask, signal handlers) and spend their time working more than waiting: they run several to
 * a process, each inside a describe named by its file, one file after another. A file's own
 * process spends some 0.6 s of CPU before its first test (Node's runner, zod, yaml and the
 * library loaded): run apart, three at a time, and then shared, 68 of these files took 69 s and
 * 34 s of CPU, 14 more 80 s and 74.5 s. Every other file (one that waits long on workers,
 * terminals or browsers, or runs long apart: npm installs, crashes, power cuts), and any file
 * run by name (`node --test .test-build/test/FILE`), has a process of its own.
 */
export const SHARED = [
  "agent-loop",
  "agent-schema",
  "agent-tool-reads",
  "anthropic-provider",
  "approvals",
  "call-durations",
  "call-with-retries",
  "cli-bundle",
  "cli-compaction",
  "cli-errors",
  "cli-follow",
  "cli-init",
  "cli-kill-leftovers",
  "cli-ledger",
  "cli-live-status",
  "cli-mcp",
  "cli-mcp-sign-in",
  "cli-memory",
  "cli-messages",
  "cli-providers",
  "cli-resume-picker",
  "cli-session",
  "cli-session-trees",
  "cli-skeleton",
  "cli-statuses",
  "cli-stream-json",
  "cli-sub-agents",
  "cli-tree-budget",
  "command-tool",
  "compaction-config",
  "compaction-figures",
  "compaction-loop",
  "compaction-planner",
  "config",
  "directory-sync",
  "error-shape",
  "every-reader-checks",
  "file-queue",
  "file-store",
  "fingerprint",
  "fold",
  "fold-generated",
  "fold-v4",
  "function-length",
  "go-fixtures",
  "group-reaper",
  "import-cycles",
  "jetstream-queue",
  "jetstream-store",
  "jetstream-summaries",
  "journal-decoder",
  "journal-properties",
  "journal-verify",
  "ledger",
  "library-api",
  "load-agent",
  "mcp-servers",
  "memory-loop",
  "memory-store",
  "note-store",
  "npm-test-build",
  "openai-provider",
  "pool-wakeups",
  "programs",
  "record-schemas",
  "record-v3",
  "run-id",
  "run-recorder",
  "script-provider",
  "show-streamed",
  "small-things",
  "sub-agent-config",
  "summary-cache-truncation",
  "terminal-ui",
  "tool-env",
  "traces",
  "traces-parts",
  "traces-spans",
  "tree-budget",
  "turn-shapes",
  "version-4-fixture",
  "viewer-first-screen",
].map((name) => `${name}.test.js`);
/** How many processes SHARED's files take turns in. */
const SHARED_PROCESSES = 6;
const TESTS = ".test-build/test";
/** Where the modules that run SHARED's files go, beside the tests they import. */
const SHARED_DIR = ".test-build/shared";

/**
 * The runner's files: each test file of `files` (names in TESTS) alone, but those of `shared`,
 * dealt in turn to `processes` modules that each import theirs; each module is placed among the
 * others, so that their files' waits are not all at once. Throws on a shared name that is not a test file.
 */
export function testJobs(files, shared, processes) {
  const missing = shared.filter((name) => !files.includes(name));
  if (missing.length > 0) throw new Error(`scripts/test.mjs: SHARED names ${missing.join(", ")}, not a test file in ${TESTS}: correct or remove the name`);
  const alone = files.filter((name) => !shared.includes(name)).map((name) => `${TESTS}/${name}`);
  const modules = Array.from({ length: processes }, (_, index) => ({
    path: `${SHARED_DIR}/shared-${index + 1}.test.js`,
    files: shared.filter((_, position) => position % processes === index),
  }));
  const jobs = [...alone];
  modules.forEach((module, index) => jobs.splice(Math.round((index * alone.length) / processes) + index, 0, module.path));
  return { jobs, modules };
}

/** A module that runs each of `files` inside a describe named by it. */
export function sharedModule(files) {
  const runs = files.map((name) => `describe(${JSON.stringify(name)}, async () => { await import(${JSON.stringify(`../test/${name}`)}); });`);
  return ['import { describe } from "node:test";', ...runs, ""].join("\n");
}

function npmRun(script) {
  const built = spawnSync("npm", ["run", "--silent", script], { stdio: "inherit" });
  if (built.status !== 0) {
    console.error(`npm test: npm run ${script} failed (above); no test ran`);
    process.exit(built.status ?? 1);
  }
}

function main() {
  const started = Date.now();
  const stale = staleBuild(".");
  if (stale === undefined) console.log(`npm test: dist/ is newer than every file it is built from; not built again (npm run build forces it)`);
  else {
    console.log(`npm test: building dist/ (${stale})`);
    npmRun("build");
  }
  npmRun("build:test");
  const files = readdirSync(TESTS)
    .filter((name) => name.endsWith(".test.js"))
    .sort();
  let planned;
  try {
    planned = testJobs(files, SHARED, SHARED_PROCESSES);
  } catch (error) {
    console.error(`npm test: ${error.message}; no test ran`);
    process.exit(1);
  }
  const { jobs, modules } = planned;
  rmSync(SHARED_DIR, { recursive: true, force: true });
  mkdirSync(SHARED_DIR);
  for (const module of modules) writeFileSync(module.path, sharedModule(module.files));
  const tests = spawnSync(process.execPath, ["--test", "--test-concurrency=3", ...jobs], { stdio: "inherit" });
  console.log(`npm test: ${Math.round((Date.now() - started) / 1000)} s, the build included`);
  process.exit(tests.status ?? 1);
}

// Run as a script; imported by test/npm-test-build.test.ts for its freshness check.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) main();
