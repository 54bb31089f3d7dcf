// `npm test`: the build (dist/, whose CLI the tests spawn, then .test-build/, the tests), then
// the test files of a tier with Node's runner, three processes at a time (the files wait on
// processes, servers and leases part of the time). Each file's header (scripts/test-headers.mjs)
// says its tier, whether it shares a process and whether it starts first. `--quick` runs the
// quick tier (`npm run test:quick`, no dist/ needed, so none built), `--full` everything
// (`npm run test:full`, CI), neither the standard tier. Prints the whole time, the build
// included, and the CPU it took. dist/ is built again only when a file it is built from changed
// since its last build, as make would: `npm ci` has just built it on a fresh clone.
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { finished } from "node:stream/promises";
import { run } from "node:test";
import { tap } from "node:test/reporters";
import { pathToFileURL } from "node:url";
import { readHeaders, TIERS } from "./test-headers.mjs";

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

/** The most processes the shared files take turns in, and about how many files each runs. */
const SHARED_PROCESSES = 8;
const FILES_PER_SHARED_PROCESS = 10;
const TESTS = ".test-build/test";
/** Where the modules that run the shared files go, beside the tests they import. */
const SHARED_DIR = ".test-build/shared";

/** The files of `tier` and the tiers before it, from `headers` (scripts/test-headers.mjs). */
export function filesOfTier(headers, tier) {
  const last = TIERS.indexOf(tier);
  return headers.filter((header) => TIERS.indexOf(header.tier) <= last);
}

/**
 * The runner's files, in the order they start, from the `tests`' headers (`file` a path under
 * test/): those that start first, each in a process of its own; then modules that each import
 * their turn of the shared files, one describe a file; then every other file. Each group keeps
 * the tests' (name) order. A file's own process spends its first half second or so loading
 * Node's runner and the library: a file that leaves the process as it found it (environment,
 * working directory, umask, signal handlers) and waits little says `// process: shared`. The
 * longest files say `// start: first`: started late, they left the suite's last seconds running
 * on fewer cores than it has.
 */
export function testJobs(tests) {
  const firstAndShared = tests.filter((test) => test.start === "first" && test.process === "shared");
  if (firstAndShared.length > 0)
    throw new Error(`${firstAndShared.map((test) => `test/${test.file}`).join(", ")}: "start: first" is for a file with a process of its own: drop one line`);
  const jsPath = (test) => `${TESTS}/${test.file.replace(/\.ts$/, ".js")}`;
  const shared = tests.filter((test) => test.process === "shared").map((test) => test.file.replace(/\.ts$/, ".js"));
  const processes = Math.min(SHARED_PROCESSES, Math.ceil(shared.length / FILES_PER_SHARED_PROCESS));
  const modules = Array.from({ length: processes }, (_, index) => ({
    path: `${SHARED_DIR}/shared-${index + 1}.test.js`,
    files: shared.filter((_, position) => position % processes === index),
  }));
  const first = tests.filter((test) => test.start === "first");
  const rest = tests.filter((test) => test.start !== "first" && test.process !== "shared");
  return { jobs: [...first.map(jsPath), ...modules.map((module) => module.path), ...rest.map(jsPath)], modules };
}

/** A module that runs each of `files` inside a describe named by it. */
export function sharedModule(files) {
  const runs = files.map((name) => `describe(${JSON.stringify(name)}, async () => { await import(${JSON.stringify(`../test/${name}`)}); });`);
  return ['import { describe } from "node:test";', ...runs, ""].join("\n");
}

/**
 * V8 flags each test file's process starts with (Node's runner starts them with this process's
 * execArgv). A test process keeps tens of MB of live objects and allocates fast: from V8's
 * defaults (small semi-spaces that grow, an old generation sized to the live heap) it collected
 * garbage hundreds of times, a good share of its CPU (docs/internals/performance.md, "Test
 * processes' heap"). The commands the tests spawn start as a user's do: these are not in their argv.
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
 * ticks of 1/100 s); undefined where there is no such line. On a shared machine the same suite
 * takes longer in one hour than in another (docs/internals/performance.md): printed beside the
 * time, the CPU tells the suite's change from the machine's.
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

/** The tier the arguments ask for: `--quick`, `--full`, or none for the standard tier. */
export function tierOf(args) {
  const unknown = args.filter((arg) => arg !== "--quick" && arg !== "--full");
  if (unknown.length > 0) throw new Error(`${unknown.join(" ")} is not an option: give --quick, --full or nothing`);
  if (args.includes("--quick") && args.includes("--full")) throw new Error("--quick and --full ask for two tiers: give one");
  return args.includes("--quick") ? "quick" : args.includes("--full") ? "full" : "standard";
}

function plan(tier) {
  try {
    return testJobs(filesOfTier(readHeaders("test"), tier));
  } catch (error) {
    console.error(`npm test: ${error.message}; no test ran`);
    process.exit(1);
  }
}

async function main() {
  const started = Date.now();
  let tier;
  try {
    tier = tierOf(process.argv.slice(2));
  } catch (error) {
    console.error(`npm test: ${error.message}`);
    process.exit(2);
  }
  const { jobs, modules } = plan(tier);
  const stale = tier === "quick" ? undefined : staleBuild(".");
  if (tier === "quick") console.log("npm test: the quick tier, which needs no dist/");
  else if (stale === undefined) console.log("npm test: dist/ is newer than every file it is built from; not built again (npm run build forces it)");
  else {
    console.log(`npm test: building dist/ (${stale})`);
    npmRun("build");
  }
  npmRun("build:test");
  rmSync(SHARED_DIR, { recursive: true, force: true });
  mkdirSync(SHARED_DIR);
  for (const module of modules) writeFileSync(module.path, sharedModule(module.files));
  // The files read it to leave to the full tier what only it runs (test/helpers/programs.ts).
  process.env.FISK_AI_TEST_TIER = tier;
  process.exitCode = await runTests(jobs, { concurrency: 3, flags: TEST_PROCESS_FLAGS, output: process.stdout });
  const cpu = childrenCpuSeconds(procStat());
  const load = cpu === undefined ? "" : `; ${Math.round(cpu)} s of CPU on ${availableParallelism()} cores`;
  console.log(`npm test: the ${tier} tier, ${Math.round((Date.now() - started) / 1000)} s, the build included${load}`);
}

// Run as a script; imported by test/npm-test-build.test.ts for its freshness check and its plan of processes.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
