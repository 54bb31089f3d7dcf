// Benchmark of `fisk-ai session ls` over a large state directory: `npm run bench:sessions`.
// 10,000 sessions of about 1 MB each, listed in-process (FileStore.list) and through the
// real CLI in a child process, against folding every one of them (FileStore.load), all
// in one run. The fast sides run interleaved, reversing their order every round; the
// two fold passes sit between two blocks of those rounds (fast, fold, fold, fast), so
// drift over the run hits both alike. Figures are warm-cache: the journals were written
// moments before, nothing is dropped from the page cache, and the store's summary cache
// is in place (written by the first listing); one side deletes it before every run, to
// show what a listing costs that reads every journal's ends and writes it again. Floors
// without fisk-ai's code (node start-up, one stat a journal, the cache read and its rows
// written) and the page faults of each child say what part of a listing's time is Node's
// and the machine's rather than the listing's.
// `--sessions N` runs a smaller directory; `--keep` leaves it in place, to profile
// list() on it with list-profile.js.
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import { constants as osConstants, cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { FileStore } from "../src/index.js";
import { SUMMARY_CACHE_NAME } from "../src/backends/file/summary-cache.js";
import { formatCount, formatGb, formatMb, formatMs, formatRatio, freeBytes, GB, machineLine, MB, printTable } from "./report.js";
import { SESSION_ENDINGS, writeSessions, type SessionDir } from "./session-dir.js";
import { interleave, median, timed } from "./stats.js";

const COMMAND = "npm run bench:sessions";
const SESSION_BYTES = 1 * MB;
/** Measured rounds of the fast sides in each of the two blocks, after one warm-up round each. */
const ROUNDS_PER_BLOCK = 7;
/** The second fold pass is skipped when it would take the run past this. */
const TIME_BUDGET_MS = 8 * 60 * 1000;
const GOAL = { underMs: 300, speedup: 50 };

const CLI = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));
/** How the CLI is shown in the output, relative to the repository. */
const CLI_SHOWN = "node dist/cli/main.js";

const SIDES = {
  list: "store.list() in-process",
  json: `${CLI_SHOWN} session ls --json`,
  table: `${CLI_SHOWN} session ls (table)`,
  uncached: `${CLI_SHOWN} session ls --json, summary cache deleted`,
  // The floors under the CLI figures: node with the session modules loaded, then bare start-up.
  emptyDir: `${CLI_SHOWN} session ls --json, empty dir`,
  version: `${CLI_SHOWN} --version`,
  // What checking a cache against every journal costs at the least, with no fisk-ai code.
  statFloor: "node -e: readdir and one lstat a journal, nothing else",
  // What reading the summary cache and writing the rows costs at the least, checking no journal.
  cacheFloor: "node -e: read the summary cache, write its rows as --json does, no stat",
} as const;
type SideName = (typeof SIDES)[keyof typeof SIDES];
/** The sides that are `session ls` over the sessions, judged against the goals; the floors only explain them. */
const JUDGED: readonly SideName[] = [SIDES.list, SIDES.json, SIDES.table];

// ---- the sides ----

interface ChildRun {
  ms: number;
  stdout: string;
  stderr: string;
}

/** One lstat a journal, as the summary cache's check makes: the floor under any listing that checks each journal. */
const STAT_FLOOR_SCRIPT =
  'const fs = require("node:fs"); const dir = process.argv[1]; let n = 0; ' +
  'for (const name of fs.readdirSync(dir)) if (name.endsWith(".json") && fs.lstatSync(dir + "/" + name).size > 0) n++; console.log(n);';

/**
 * The summary cache's entries as `session ls --json` rows, newest first, with no stat of
 * any journal and none of fisk-ai's code: the floor under a listing that trusts its cache
 * blindly. Reads the cache's format 8 (summary-cache.ts) and refuses any other; the rows
 * it writes are checked as the CLI's are.
 */
const CACHE_FLOOR_SCRIPT =
  `const fs = require("node:fs"); const cache = JSON.parse(fs.readFileSync(process.argv[1] + "/${SUMMARY_CACHE_NAME}", "utf8")); ` +
  "if (cache.format !== 8) throw new Error(`summary cache format ${cache.format}: update the bench's cache floor`); " +
  "const rows = cache.entries.map(([id, , , , status, lastSeq, updated, meta, fp]) => ({ id, status, holder: null, " +
  "provider: cache.fingerprints[fp].provider, model: cache.fingerprints[fp].model, created: meta.created, updated, " +
  "last_seq: lastSeq, prompt: meta.prompt, cwd: meta.cwd ?? null, problem: null })); " +
  "rows.sort((a, b) => (a.updated < b.updated ? 1 : a.updated > b.updated ? -1 : a.id < b.id ? -1 : 1)); " +
  "process.stdout.write(JSON.stringify(rows, null, 2) + '\\n');";

/**
 * Loaded with --require into an untimed run of each child: prints the minor page faults the
 * process took (each a fresh page of memory the kernel handed it) as its last stderr line.
 */
const FAULTS_PRELOAD = 'process.on("exit", () => process.stderr.write(`\\nminor page faults ${process.resourceUsage().minorPageFault}\\n`));';

/** What one fresh 4 KB page costs this machine: 64 MB touched twice, the first time each page faults in. */
const FAULT_COST_SCRIPT =
  "const pages = 16384; const buffer = Buffer.allocUnsafeSlow(pages * 4096); let t = process.hrtime.bigint(); buffer.fill(1); " +
  "const first = Number(process.hrtime.bigint() - t); t = process.hrtime.bigint(); buffer.fill(2); " +
  "const second = Number(process.hrtime.bigint() - t); console.log((first - second) / pages / 1000);";

/**
 * Spawns node (the CLI, or a floor's script) and times it from spawn to the close of its
 * output, node start-up included, as a shell would see it. Its stdout is a pipe, never a TTY.
 */
function runNode(args: readonly string[], cwd: string): Promise<ChildRun> {
  const shown = `node ${args.map((arg) => (arg === CLI ? CLI_SHOWN.slice("node ".length) : arg.length > 60 ? "<script>" : arg)).join(" ")}`;
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.once("error", reject);
    child.once("close", (code, signal) => {
      const ms = performance.now() - started;
      if (code !== 0) reject(new Error(`${shown} exited ${signal ?? code}: ${Buffer.concat(stderr).toString()}`));
      else resolve({ ms, stdout: Buffer.concat(stdout).toString("utf8"), stderr: Buffer.concat(stderr).toString("utf8") });
    });
  });
}

interface LsJsonEntry {
  id: string;
  status: string;
  last_seq: number;
}

/** Every session listed once, with the status and last seq it was written with. */
function checkListed(source: string, listed: readonly { id: string; status: string; lastSeq: number }[], sessions: SessionDir): void {
  const seen = new Set<string>();
  const wrong = listed.filter(({ id, status, lastSeq }) => {
    const want = sessions.expected.get(id);
    const duplicate = seen.has(id);
    seen.add(id);
    return duplicate || want === undefined || want.status !== status || want.lastSeq !== lastSeq;
  });
  if (listed.length !== sessions.runIds.length || wrong.length > 0) {
    throw new Error(`${source} listed ${listed.length} of ${sessions.runIds.length} sessions, ${wrong.length} wrong: ${JSON.stringify(wrong[0])}`);
  }
}

/** What one round of each fast side measured. */
interface FastRound {
  ms: number;
  /** Bytes the CLI wrote to stdout; 0 in-process. */
  outputBytes: number;
}

type Rounds = Record<SideName, FastRound[]>;

function fastSides(store: FileStore, sessions: SessionDir, cwd: string, emptyDir: string): Record<SideName, () => Promise<FastRound>> {
  const dir = store.dir;
  const args = childArgs(dir, emptyDir);
  return {
    [SIDES.list]: async () => {
      const { ms, value: summaries } = await timed(() => store.list());
      checkListed(
        "store.list()",
        summaries.map(({ runId, status, lastSeq }) => ({ id: runId, status, lastSeq })),
        sessions,
      );
      return { ms, outputBytes: 0 };
    },
    [SIDES.json]: async () => {
      const { ms, stdout } = await runNode(args[SIDES.json], cwd);
      const entries = JSON.parse(stdout) as LsJsonEntry[];
      checkListed(
        "session ls --json",
        entries.map(({ id, status, last_seq }) => ({ id, status, lastSeq: last_seq })),
        sessions,
      );
      return { ms, outputBytes: Buffer.byteLength(stdout) };
    },
    [SIDES.table]: async () => {
      const { ms, stdout } = await runNode(args[SIDES.table], cwd);
      const lines = stdout.trimEnd().split("\n");
      if (lines.length !== sessions.runIds.length + 1 || !(lines[0] ?? "").startsWith("ID ")) {
        throw new Error(`session ls printed ${lines.length} lines, not a header and ${sessions.runIds.length} rows`);
      }
      return { ms, outputBytes: Buffer.byteLength(stdout) };
    },
    [SIDES.uncached]: async () => {
      fs.rmSync(join(dir, SUMMARY_CACHE_NAME));
      const { ms, stdout } = await runNode(args[SIDES.uncached], cwd);
      const entries = JSON.parse(stdout) as LsJsonEntry[];
      checkListed(
        "session ls --json without its cache",
        entries.map(({ id, status, last_seq }) => ({ id, status, lastSeq: last_seq })),
        sessions,
      );
      return { ms, outputBytes: Buffer.byteLength(stdout) };
    },
    [SIDES.emptyDir]: async () => {
      const { ms, stdout } = await runNode(args[SIDES.emptyDir], cwd);
      if (stdout.trim() !== "[]") throw new Error(`session ls --json of an empty dir printed ${stdout.slice(0, 80)}`);
      return { ms, outputBytes: Buffer.byteLength(stdout) };
    },
    [SIDES.version]: async () => {
      const { ms, stdout } = await runNode(args[SIDES.version], cwd);
      return { ms, outputBytes: Buffer.byteLength(stdout) };
    },
    [SIDES.statFloor]: async () => {
      const { ms, stdout } = await runNode(args[SIDES.statFloor], cwd);
      if (Number(stdout) !== sessions.runIds.length) throw new Error(`the stat floor counted ${stdout.trim()} journals`);
      return { ms, outputBytes: 0 };
    },
    [SIDES.cacheFloor]: async () => {
      const { ms, stdout } = await runNode(args[SIDES.cacheFloor], cwd);
      const entries = JSON.parse(stdout) as LsJsonEntry[];
      checkListed(
        "the cache floor",
        entries.map(({ id, status, last_seq }) => ({ id, status, lastSeq: last_seq })),
        sessions,
      );
      return { ms, outputBytes: Buffer.byteLength(stdout) };
    },
  };
}

type ChildSide = Exclude<SideName, typeof SIDES.list>;

/** What each side run in a child process gives node: timed in the rounds, and once more to count its page faults. */
function childArgs(dir: string, emptyDir: string): Record<ChildSide, string[]> {
  return {
    [SIDES.json]: [CLI, "session", "ls", "--json", "--state-dir", dir],
    [SIDES.table]: [CLI, "session", "ls", "--state-dir", dir],
    // The same command; the side deletes the cache first.
    [SIDES.uncached]: [CLI, "session", "ls", "--json", "--state-dir", dir],
    [SIDES.emptyDir]: [CLI, "session", "ls", "--json", "--state-dir", emptyDir],
    [SIDES.version]: [CLI, "--version"],
    [SIDES.statFloor]: ["-e", STAT_FLOOR_SCRIPT, dir],
    [SIDES.cacheFloor]: ["-e", CACHE_FLOOR_SCRIPT, dir],
  };
}

interface Faults {
  /** Microseconds this machine spends handing a process one fresh page, median of three measures. */
  microsPerFault: number;
  bySide: Partial<Record<SideName, number>>;
  /** `node -e 0`'s, the start-up every child pays. */
  nodeStart: number;
}

/**
 * Counts the minor page faults of one run of each child side, with the summary cache in
 * place, and measures what a fault costs here: on a virtual machine that backs guest
 * memory lazily, touching new memory can cost more than the work done in it.
 */
async function countFaults(dir: string, emptyDir: string, cwd: string): Promise<Faults> {
  const preload = join(cwd, "faults-preload.cjs");
  fs.writeFileSync(preload, FAULTS_PRELOAD);
  const faultsOf = async (args: readonly string[]): Promise<number> => {
    const { stderr } = await runNode(["--require", preload, ...args], cwd);
    const match = /minor page faults (\d+)\n$/.exec(stderr);
    if (match === null) throw new Error(`no page fault count in the stderr of node ${args.join(" ")}: ${stderr.slice(-200)}`);
    return Number(match[1]);
  };
  const bySide: Partial<Record<SideName, number>> = {};
  for (const [name, args] of Object.entries(childArgs(dir, emptyDir)) as [ChildSide, string[]][]) {
    // Counted with the cache in place, as the listings are timed: the uncached side is those faults and a rebuild.
    if (name !== SIDES.uncached) bySide[name] = await faultsOf(args);
  }
  const costs: number[] = [];
  for (let round = 0; round < 3; round++) costs.push(Number((await runNode(["-e", FAULT_COST_SCRIPT], cwd)).stdout));
  return { microsPerFault: median(costs), bySide, nodeStart: await faultsOf(["-e", "0"]) };
}

/** store.load() of every session in turn, checking each folds to the ending it was written with. */
async function foldAll(store: FileStore, sessions: SessionDir): Promise<number> {
  const { ms } = await timed(async () => {
    for (const runId of sessions.runIds) {
      const state = await store.load(runId);
      const want = sessions.expected.get(runId);
      const status = state.terminal?.reason ?? "open";
      if (state.lastSeq !== want?.lastSeq || status !== want.status) {
        throw new Error(`load(${runId}) ended at seq ${state.lastSeq} ${status}, not ${JSON.stringify(want)}`);
      }
    }
  });
  return ms;
}

/**
 * The share of all cpus busy over `ms`, from the kernel's per-cpu times: on a shared
 * 2-core machine other processes move every figure, so the output says how busy it was.
 */
async function cpuBusyShare(ms: number): Promise<number> {
  const sample = (): { busy: number; all: number } =>
    cpus().reduce(
      (sum, { times }) => {
        const busy = times.user + times.nice + times.sys + times.irq;
        return { busy: sum.busy + busy, all: sum.all + busy + times.idle };
      },
      { busy: 0, all: 0 },
    );
  const before = sample();
  await sleep(ms);
  const after = sample();
  return (after.busy - before.busy) / Math.max(1, after.all - before.all);
}

// ---- output ----

const verdict = (met: boolean): string => (met ? "MET" : "MISSED");

function printSetup(dir: string, sessions: SessionDir, writeMs: number, syncMs: number, busyShare: number): void {
  const count = sessions.runIds.length;
  const counts = SESSION_ENDINGS.map((ending) => `${formatCount(sessions.counts[ending])} ${ending}`).join(", ");
  console.log(
    `\nsessions: ${formatCount(count)} journals of ${formatMb(sessions.bytes / count)} MB (${formatGb(sessions.bytes)} GB) in ${dir}, ` +
      `the open ones (their process died) with a lock file naming a dead holder: ${counts}`,
  );
  console.log(
    `  written in ${(writeMs / 1000).toFixed(1)} s (${formatCount(sessions.bytes / MB / (writeMs / 1000))} MB/s), ` +
      `then sync(1) in ${(syncMs / 1000).toFixed(1)} s so writeback does not run under the timings; ` +
      `the first ten (every ending) checked with store.load() before timing`,
  );
  console.log(
    `  before timing: cpus ${(busyShare * 100).toFixed(0)}% busy over 1 s (other processes), ` +
      `load average ${loadavg()[0]?.toFixed(2)} (which counts tasks waiting on I/O too)`,
  );
}

function printFast(rounds: Rounds, blocks: readonly [Rounds, Rounds], count: number, firstListMs: number): void {
  const medianMs = (name: SideName, of: Rounds = rounds): number => median(of[name].map((round) => round.ms));
  const byBlock = JUDGED.map((name) => `${formatMs(medianMs(name, blocks[0]))} / ${formatMs(medianMs(name, blocks[1]))}`);
  // What a CLI listing costs beyond node start-up and module loading, which the empty dir pays alike.
  const floorMs = medianMs(SIDES.emptyDir);
  const rows = Object.values(SIDES).map((name) => {
    const ms = rounds[name].map((round) => round.ms);
    const outputBytes = median(rounds[name].map((round) => round.outputBytes));
    const overFloor = JUDGED.includes(name) || name === SIDES.uncached;
    const listingMs = name === SIDES.list ? medianMs(name) : overFloor ? medianMs(name) - floorMs : undefined;
    return [
      name,
      formatMs(medianMs(name)),
      formatMs(Math.min(...ms)),
      formatMs(Math.max(...ms)),
      listingMs === undefined || name === SIDES.list ? "" : formatMs(listingMs),
      listingMs === undefined ? "" : formatMs((listingMs * 1000) / count),
      outputBytes === 0 ? "" : formatMb(outputBytes),
    ];
  });
  printTable(
    `1. Listing ${formatCount(count)} sessions: ${2 * ROUNDS_PER_BLOCK} rounds in two blocks around the fold passes ` +
      `(+1 warm-up each), order reversed every round, median`,
    ["", "median ms", "min ms", "max ms", "over empty-dir ms", "per session µs", "stdout MB"],
    rows,
    [
      `store.list()'s first call in this process (cold JIT, as every CLI run is, and no summary cache yet: it reads`,
      `  every journal's first and last records and writes the cache): ${formatMs(firstListMs)} ms, not in the rounds`,
      `medians of the block before / after the fold passes, ms: list ${byBlock[0]}, --json ${byBlock[1]}, table ${byBlock[2]}`,
      "CLI rows: wall time from spawn to the close of its stdout (a pipe, not a TTY), node start-up included;",
      "  run with cwd the temp dir (no agent.yaml), output read in full and checked after timing;",
      "  per session µs: in-process the median over the sessions, for the CLI the median minus the empty-dir floor",
    ],
  );
}

function printFold(passes: readonly number[], skipped: string | undefined, count: number): void {
  printTable(
    `2. Folding all ${formatCount(count)} sessions: store.load() of each in turn, in-process`,
    ["", "time ms", "per session ms"],
    passes.map((ms, index) => [`pass ${index + 1}`, formatMs(ms), formatMs(ms / count)]),
    skipped === undefined ? [] : [skipped],
  );
}

function printGoals(rounds: Rounds, foldMs: number): void {
  const rows = JUDGED.map((name) => {
    const ms = median(rounds[name].map((round) => round.ms));
    const speedup = foldMs / ms;
    return [name, formatMs(ms), verdict(ms < GOAL.underMs), formatRatio(speedup, 1), verdict(speedup >= GOAL.speedup)];
  });
  printTable(
    `3. Goals (issue): session ls under ${GOAL.underMs} ms and at least ${GOAL.speedup}x faster than folding all ` +
      `(fold-all ${formatMs(foldMs)} ms, median of its passes)`,
    ["", "median ms", `< ${GOAL.underMs} ms`, "fold-all / ls", `>= ${GOAL.speedup}x`],
    rows,
    [
      "judged on the medians above; warm page cache, summary cache in place",
      `without the summary cache (deleted before each run): ${formatMs(median(rounds[SIDES.uncached].map((round) => round.ms)))} ms, ` +
        `fold-all / ls ${formatRatio(foldMs / median(rounds[SIDES.uncached].map((round) => round.ms)), 1)} (not judged)`,
      `floors under the CLI: ${SIDES.emptyDir} ${formatMs(median(rounds[SIDES.emptyDir].map((round) => round.ms)))} ms; ` +
        `${SIDES.statFloor} ${formatMs(median(rounds[SIDES.statFloor].map((round) => round.ms)))} ms; ` +
        `${SIDES.cacheFloor} ${formatMs(median(rounds[SIDES.cacheFloor].map((round) => round.ms)))} ms`,
    ],
  );
}

function printFaults(rounds: Rounds, faults: Faults): void {
  const atCost = (count: number): number => (count * faults.microsPerFault) / 1000;
  const rows = (Object.entries(faults.bySide) as [SideName, number][]).map(([name, count]) => {
    const ms = median(rounds[name].map((round) => round.ms));
    return [
      name,
      formatMs(ms),
      formatCount(count),
      formatCount(count - faults.nodeStart),
      formatMs(atCost(count - faults.nodeStart)),
      `${((100 * atCost(count - faults.nodeStart)) / ms).toFixed(0)}%`,
    ];
  });
  printTable(
    `4. Fresh memory: minor page faults of one untimed run of each child side (summary cache in place), ` +
      `at ${faults.microsPerFault.toFixed(2)} µs a fault on this machine`,
    ["", "median ms", "faults", "beyond node -e 0", "their cost ms", "of median"],
    rows,
    [
      `node -e 0 takes ${formatCount(faults.nodeStart)} faults; the cost of one is node -e touching 64 MB of new memory twice, ` +
        "the first time less the second, a page at a time (median of three)",
      "a fault is the kernel handing the process a page it has not touched before: memory the listing allocates costs",
      "  this much before anything is written into it, however little the work done in it",
    ],
  );
}

// ---- main ----

async function main(): Promise<void> {
  const started = performance.now();
  const { values } = parseArgs({ options: { sessions: { type: "string" }, keep: { type: "boolean" } }, strict: true });
  const count = values.sessions === undefined ? 10_000 : Number(values.sessions);
  if (!Number.isInteger(count) || count < 10) throw new Error(`--sessions takes a whole number of at least 10, not ${values.sessions}`);
  const root = fs.mkdtempSync(join(tmpdir(), "fisk-ai-bench-sessions-"));
  const removeRoot = (): void => fs.rmSync(root, { recursive: true, force: true });
  // A finally does not run on a signal; without this an interrupted run leaves 10 GB behind.
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      removeRoot();
      process.exit(128 + osConstants.signals[signal]);
    });
  }
  const args = process.argv.slice(2);
  console.log(`$ ${args.length === 0 ? COMMAND : `node .test-build/bench/sessions.bench.js ${args.join(" ")}`}`);
  try {
    console.log(machineLine(root));
    const needed = count * SESSION_BYTES + 2 * GB;
    if (freeBytes(root) < needed) {
      throw new Error(`need ${formatGb(needed)} GB free under ${root}, have ${formatGb(freeBytes(root))} GB`);
    }
    const dir = join(root, "runs");
    const emptyDir = join(root, "empty");
    fs.mkdirSync(dir, { mode: 0o700 });
    fs.mkdirSync(emptyDir, { mode: 0o700 });
    const { ms: writeMs, value: sessions } = await timed(async () => writeSessions(dir, count, SESSION_BYTES));
    const syncStarted = performance.now();
    spawnSync("sync");
    const syncMs = performance.now() - syncStarted;
    const store = new FileStore({ dir });
    // The first ten sessions hold every ending (they cycle in tens).
    for (const runId of sessions.runIds.slice(0, 10)) {
      const state = await store.load(runId);
      const want = sessions.expected.get(runId);
      if (state.runId !== runId || state.lastSeq !== want?.lastSeq || (state.terminal?.reason ?? "open") !== want.status) {
        throw new Error(`the generated session ${runId} loads as ${state.runId} at seq ${state.lastSeq}, not ${JSON.stringify(want)}`);
      }
    }
    printSetup(dir, sessions, writeMs, syncMs, await cpuBusyShare(1000));
    const { ms: firstListMs } = await timed(() => store.list());

    const sides = fastSides(store, sessions, root, emptyDir);
    const blockStarted = performance.now();
    const firstBlock = await interleave(sides, ROUNDS_PER_BLOCK, 1);
    const blockMs = performance.now() - blockStarted;
    const passes = [await foldAll(store, sessions)];
    const projectedMs = performance.now() - started + (passes[0] as number) + blockMs + 30_000;
    let skipped: string | undefined;
    if (projectedMs < TIME_BUDGET_MS) passes.push(await foldAll(store, sessions));
    else skipped = `pass 2 skipped: the run would take about ${(projectedMs / 1000).toFixed(0)} s, over the ${TIME_BUDGET_MS / 1000} s budget`;
    const secondBlock = await interleave(sides, ROUNDS_PER_BLOCK, 1);
    const rounds = Object.fromEntries(Object.values(SIDES).map((name) => [name, [...firstBlock[name], ...secondBlock[name]]])) as Rounds;

    const faults = await countFaults(dir, emptyDir, root);

    printFast(rounds, [firstBlock, secondBlock], count, firstListMs);
    printFold(passes, skipped, count);
    printGoals(rounds, median(passes));
    printFaults(rounds, faults);
  } finally {
    if (values.keep === true) console.log(`\nkept ${root}: remove it with rm -rf when done`);
    else removeRoot();
  }
  const removed = values.keep === true ? "kept" : "removed";
  console.log(`\ntotal ${((performance.now() - started) / 1000).toFixed(1)} s; temp data under ${root} ${removed}`);
}

await main();
