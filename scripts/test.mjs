// `npm test`: the build (dist/, whose CLI the tests spawn, then .test-build/, the tests), then
// every test file with Node's runner, three processes at a time (the files wait on processes,
// servers and leases part of the time), the files of SHARED several to a process, the longest
// first. Prints the whole time, the build included. dist/ is built again only when a file it is
// built from changed since its last build, as make would: `npm ci` has just built it on a fresh
// clone.
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { finished } from "node:stream/promises";
import { run } from "node:test";
import { tap } from "node:test/reporters";
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
/** How many processes SHARED's files take turns in (eight ran 18 to 59 s each, of npm test's 283 s, here). */
const SHARED_PROCESSES = 8;
/**
 * The files that run longest, each in a process of its own, started first, about in order of
 * length (in npm test on 2 cores, 21 to 95 s each; the order among the shorter ones changes from
 * run to run): the runner's processes then end close together. In name order, as `node --test`
 * takes them, the longest started late and the last 10 to 15 s ran at half the cores or less.
 */
export const FIRST = ["install-tarball", "cli-workers-jetstream", "show-memory", "power-cut", "cli-approvals", "cli-run", "cli-pipes", "crash-matrix"].map(
  (name) => `${name}.test.js`,
);
const TESTS = ".test-build/test";
/** Where the modules that run SHARED's files go, beside the tests they import. */
const SHARED_DIR = ".test-build/shared";

/**
 * The runner's files, in the order they start: those of `first`; then `processes` modules
 * that each import their turn of the files of `shared`; then every other test file of `files`
 * (names in TESTS), by name. Throws on a name that is not a test file, or is both first and shared.
 */
export function testJobs(files, { shared, processes, first }) {
  const missing = [...first, ...shared].filter((name) => !files.includes(name));
  if (missing.length > 0)
    throw new Error(`scripts/test.mjs: FIRST or SHARED names ${missing.join(", ")}, not a test file in ${TESTS}: correct or remove the name`);
  const both = first.filter((name) => shared.includes(name));
  if (both.length > 0) throw new Error(`scripts/test.mjs: ${both.join(", ")} is both in FIRST and in SHARED: keep it in one`);
  const modules = Array.from({ length: processes }, (_, index) => ({
    path: `${SHARED_DIR}/shared-${index + 1}.test.js`,
    files: shared.filter((_, position) => position % processes === index),
  }));
  const rest = files.filter((name) => !shared.includes(name) && !first.includes(name));
  return { jobs: [...first.map((name) => `${TESTS}/${name}`), ...modules.map((module) => module.path), ...rest.map((name) => `${TESTS}/${name}`)], modules };
}

/** A module that runs each of `files` inside a describe named by it. */
export function sharedModule(files) {
  const runs = files.map((name) => `describe(${JSON.stringify(name)}, async () => { await import(${JSON.stringify(`../test/${name}`)}); });`);
  return ['import { describe } from "node:test";', ...runs, ""].join("\n");
}

/**
 * V8 flags each test file's process starts with (Node's runner starts them with this process's
 * execArgv). A test process keeps tens of MB of live objects and allocates fast; from V8's
 * defaults (1 MB semi-spaces that grow, an old generation sized to the live heap) it collected
 * garbage hundreds of times, power-cut.test.ts 240 full collections for a 16 MB heap: 2.7 s
 * of its 9.3 s on the main thread. Started larger: power-cut 14.4 and 14.8 s of CPU became 11.6
 * and 11.2, the shared process holding journal-properties 18.6 and 19.5 became 14.1 and 15.3
 * (/usr/bin/time, alternated); the whole suite 483 s of CPU became 464 (two trees run at once).
 * The commands the tests spawn start as a user's do: these are not in their argv.
 */
export const TEST_PROCESS_FLAGS = ["--min-semi-space-size=16", "--initial-heap-size=128"];

/**
 * Runs the test files `jobs` with Node's runner, `concurrency` processes at a time, each
 * started in the order given (`node --test` would sort them by name) with node's `flags`, its
 * TAP report into `output`; resolves to the exit code `node --test` would give: 1 once a test
 * failed that is not a todo, else 0.
 */
export async function runTests(jobs, { concurrency, flags, output }) {
  // Node 20's runner takes no argv for the processes it starts: it gives them this one's execArgv.
  process.execArgv.push(...flags);
  let code = 0;
  const tests = run({ files: jobs, concurrency });
  tests.on("test:fail", (data) => {
    if (!data.todo) code = 1;
  });
  const report = tests.compose(tap);
  report.pipe(output, { end: false });
  await finished(report);
  return code;
}

/**
 * The CPU seconds, user and system, of the processes this one waited for (the build, the test
 * files and whatever each of them waited for), from a /proc/PID/stat line (Linux counts them in
 * ticks of 1/100 s); undefined where there is no such line. The same suite took 446 s of CPU in
 * one hour and 527 s in another on the shared 2-core machine (docs/development.md): printed
 * beside the time, it tells the suite's change from the machine's.
 */
export function childrenCpuSeconds(stat) {
  if (stat === undefined) return undefined;
  // Fields after the command name, which may itself hold spaces and parentheses: cutime and cstime are the 16th and 17th of the line.
  const fields = stat
    .slice(stat.lastIndexOf(")") + 2)
    .trim()
    .split(" ");
  const ticks = Number(fields[13]) + Number(fields[14]);
  return Number.isFinite(ticks) ? ticks / 100 : undefined;
}

function procStat() {
  try {
    return readFileSync("/proc/self/stat", "utf8");
  } catch {
    return undefined;
  }
}

function npmRun(script) {
  const built = spawnSync("npm", ["run", "--silent", script], { stdio: "inherit" });
  if (built.status !== 0) {
    console.error(`npm test: npm run ${script} failed (above); no test ran`);
    process.exit(built.status ?? 1);
  }
}

async function main() {
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
    planned = testJobs(files, { shared: SHARED, processes: SHARED_PROCESSES, first: FIRST });
  } catch (error) {
    console.error(`npm test: ${error.message}; no test ran`);
    process.exit(1);
  }
  const { jobs, modules } = planned;
  rmSync(SHARED_DIR, { recursive: true, force: true });
  mkdirSync(SHARED_DIR);
  for (const module of modules) writeFileSync(module.path, sharedModule(module.files));
  process.exitCode = await runTests(jobs, { concurrency: 3, flags: TEST_PROCESS_FLAGS, output: process.stdout });
  const cpu = childrenCpuSeconds(procStat());
  const load = cpu === undefined ? "" : `; ${Math.round(cpu)} s of CPU on ${availableParallelism()} cores`;
  console.log(`npm test: ${Math.round((Date.now() - started) / 1000)} s, the build included${load}`);
}

// Run as a script; imported by test/npm-test-build.test.ts for its freshness check and its plan of processes.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
