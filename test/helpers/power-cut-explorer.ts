// Runs a scenario once on a recording file system, then, for every disk state a power cut
// during it can leave (power-cut-states.ts), puts that state on disk and runs the readers
// on it: verify on each journal, list() on each store, and the scenario's resume. What
// every state must show is checked here; what only a scenario knows, in its own check.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileStoreWithSeams, type FileStore } from "../../src/backends/file/file-store.js";
import { nodeFileSystem, type FileSystem } from "../../src/backends/file/file-system.js";
import { verifyJournal } from "../../src/runstate/views/journal-verify.js";
import { PROTOCOLS, type JournalRecord } from "../../src/runstate/records/records.js";
import { recordingFileSystem, type FsOp } from "./power-cut-recorder.js";
import { crashStates, readTree, snapshotOf, treeHash, writeTree, type CrashState, type Tree } from "./power-cut-states.js";
import { mulberry32 } from "./simulated-runs.js";

/** The store directories under a scenario's root: `runs`, and `other` for a move's destination. */
export const STORE_DIRS = ["runs", "other"] as const;

/** One run of a tool: the call (`<runId>/<toolUseId>`), the tool, and how many ops the scenario had made when it started. */
export interface Execution {
  call: string;
  tool: string;
  atOp: number;
}

/** What a scenario, its check and its resume work with. */
export interface ScenarioContext {
  root: string;
  /** A file store on the context's file system, in `root/<dir>` (default runs). */
  store(dir?: (typeof STORE_DIRS)[number]): FileStore;
  /** Where each tool run is logged: outside the simulated disk, so it survives the cut. */
  executions: Execution[];
  /** How many ops the scenario had made so far (0 outside the recording). */
  opsSoFar(): number;
}

/** A state put on disk, as its checks see it. */
export interface StateView {
  crashPoint: number;
  /** The records of each session whose journal the state holds, by store dir and run id. */
  journals: Map<string, JournalRecord[]>;
  /** The tool runs made before the cut. */
  before: Execution[];
}

export interface Scenario {
  name: string;
  /** Sessions and files there before the recording (the snapshot the states start from), on the real file system. */
  prepare?(context: ScenarioContext): Promise<void>;
  /** What is recorded. */
  run(context: ScenarioContext): Promise<void>;
  /** Takes the state further as a user would after the cut (resume, run the move again ...), returning what is wrong. */
  resume(context: ScenarioContext, state: StateView): Promise<string[]>;
}

export interface ExploreOptions {
  /** States of one crash point before they are sampled (power-cut-states.ts). */
  cap: number;
  /** Distinct states checked at most; more are sampled, seeded by `seed`. */
  maxStates: number;
  seed: number;
}

export interface ExploreReport {
  ops: number;
  crashPoints: number;
  /** Crash points with more states than the cap, of which a sample was taken. */
  sampledPoints: number;
  /** Distinct states the cuts can leave, and how many of them were checked. */
  states: number;
  checked: number;
  violations: string[];
}

const BASE = (() => {
  // A RAM disk where there is one: the states are written and synced by the hundred.
  try {
    return mkdtempSync("/dev/shm/fisk-ai-power-cut-");
  } catch {
    return mkdtempSync(join(tmpdir(), "fisk-ai-power-cut-"));
  }
})();

export function removePowerCutBase(): void {
  rmSync(BASE, { recursive: true, force: true });
}

export function contextOn(root: string, fs: FileSystem, executions: Execution[], opsSoFar: () => number): ScenarioContext {
  const stores = new Map<string, FileStore>();
  return {
    root,
    store: (dir = "runs") => {
      const store = stores.get(dir) ?? fileStoreWithSeams({ dir: join(root, dir), fileSystem: fs });
      stores.set(dir, store);
      return store;
    },
    executions,
    opsSoFar,
  };
}

export async function explorePowerCuts(scenario: Scenario, options: ExploreOptions): Promise<ExploreReport> {
  const root = join(BASE, scenario.name.replace(/[^a-z0-9]+/gi, "-"));
  mkdirSync(root, { recursive: true, mode: 0o700 });
  await scenario.prepare?.(contextOn(root, nodeFileSystem, [], () => 0));
  const snapshot = snapshotOf(root);
  const recorder = recordingFileSystem();
  const executions: Execution[] = [];
  await scenario.run(contextOn(root, recorder, executions, () => recorder.ops.length));
  const violations = missedWrites(root, snapshot, recorder.ops);
  const { distinct, crashPoints, sampledPoints } = distinctStates(root, snapshot, recorder.ops, options.cap, executions, violations);
  const sampled = sample([...distinct.values()], options.maxStates, options.seed);
  for (const state of sampled) {
    writeTree(root, afterReboot(state.tree));
    for (const violation of await checkState(scenario, root, state, recorder.ops, executions))
      violations.push(`cut after op ${state.crashPoint}: ${violation}`);
  }
  rmSync(root, { recursive: true, force: true });
  return { ops: recorder.ops.length, crashPoints, sampledPoints, states: distinct.size, checked: sampled.length, violations };
}

/** The recorder saw every change: replaying every op, everything kept, gives what is on disk. */
function missedWrites(root: string, snapshot: ReturnType<typeof snapshotOf>, ops: readonly FsOp[]): string[] {
  const everything = [...ops, ...syncsOfAll(ops)];
  let kept: Tree | undefined;
  for (const state of crashStates(root, snapshot, everything, 1)) if (state.crashPoint === everything.length) kept = state.durable;
  const actual = readTree(root);
  const replayed = kept as Tree;
  if (treeHash(replayed) === treeHash(actual)) return [];
  const differ = [...new Set([...replayed.keys(), ...actual.keys()])].filter(
    (path) =>
      treeHash(new Map([[path, replayed.get(path) ?? Buffer.from("absent")]])) !== treeHash(new Map([[path, actual.get(path) ?? Buffer.from("absent")]])),
  );
  return [`the recorder missed a change: replaying its ops does not give what is on disk at ${differ.join(", ")}`];
}

/** An fsync of every file and directory the ops touched, as if the machine were shut down cleanly. */
function syncsOfAll(ops: readonly FsOp[]): FsOp[] {
  const files = new Map<number, FsOp>();
  const dirs = new Set<string>();
  for (const op of ops) {
    if (op.kind === "write" || op.kind === "truncate") files.set(op.ino, { kind: "fsync", dir: op.dir, path: op.path, ino: op.ino });
    if (op.kind !== "write" && op.kind !== "truncate" && op.kind !== "fsync") dirs.add(op.dir);
  }
  return [...files.values(), ...[...dirs].map((dir): FsOp => ({ kind: "dirsync", dir }))];
}

/**
 * The distinct states, each kept at its latest crash point (the most acknowledged, the most
 * tools run before it: the strictest check). Checks on the way that each tool started only
 * once its call's turn was durable.
 */
function distinctStates(
  root: string,
  snapshot: ReturnType<typeof snapshotOf>,
  ops: readonly FsOp[],
  cap: number,
  executions: Execution[],
  violations: string[],
) {
  const distinct = new Map<string, CrashState>();
  let crashPoints = 0;
  let sampledPoints = 0;
  let last = -1;
  for (const state of crashStates(root, snapshot, ops, cap)) {
    if (state.crashPoint !== last) {
      last = state.crashPoint;
      crashPoints++;
      if (state.sampled) sampledPoints++;
      for (const execution of executions.filter((candidate) => candidate.atOp === state.crashPoint)) {
        if (!callDurable(state.durable, execution.call))
          violations.push(`${execution.tool} (${execution.call}) started after op ${execution.atOp}, before its turn was durable`);
      }
    }
    distinct.set(treeHash(state.tree), state);
  }
  return { distinct, crashPoints, sampledPoints };
}

function callDurable(durable: Tree, call: string): boolean {
  const [runId, toolUseId] = call.split("/") as [string, string];
  return STORE_DIRS.some((dir) => {
    const bytes = durable.get(join(dir, `${runId}.json`));
    if (!(bytes instanceof Buffer)) return false;
    return verifyJournal(bytes, runId).records.some(
      (record) =>
        record.protocol === PROTOCOLS.assistant && record.assistant.message.content.some((block) => block.type === "tool_use" && block.id === toolUseId),
    );
  });
}

/** At most `count` of `items`, drawn by a PRNG seeded with `seed`, in their order. */
function sample<T>(items: readonly T[], count: number, seed: number): T[] {
  if (items.length <= count) return [...items];
  const random = mulberry32(seed);
  const indexes = items.map((_, index) => index);
  for (let index = indexes.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [indexes[index], indexes[other]] = [indexes[other] as number, indexes[index] as number];
  }
  return indexes
    .slice(0, count)
    .sort((x, y) => x - y)
    .map((index) => items[index] as T);
}

const JOURNAL = /^(runs|other)\/([^/.][^/]*)\.json$/;

/** The readers on one state, and what every state must show. */
async function checkState(scenario: Scenario, root: string, state: CrashState, ops: readonly FsOp[], executions: Execution[]): Promise<string[]> {
  const problems = ackedKept(root, state, ops);
  const journals = new Map<string, JournalRecord[]>();
  for (const [path, bytes] of state.tree) {
    const [, dir, runId] = JOURNAL.exec(path) ?? [];
    if (bytes === null || dir === undefined || runId === undefined) continue;
    const verification = verifyJournal(bytes, runId);
    for (const problem of verification.problems) if (problem.kind !== "torn_tail") problems.push(`verify ${path}: ${problem.message}`);
    journals.set(`${dir}/${runId}`, verification.records);
  }
  const resumeContext = contextOn(root, nodeFileSystem, [], () => 0);
  for (const dir of STORE_DIRS) {
    if (!state.tree.has(dir)) continue;
    for (const summary of await resumeContext.store(dir).list()) {
      if (summary.status === "corrupt") problems.push(`ls ${dir}: ${summary.runId} is corrupt: ${summary.problem ?? ""}`);
      else if (summary.lastSeq !== journals.get(`${dir}/${summary.runId}`)?.length)
        problems.push(`ls ${dir}: ${summary.runId} at seq ${summary.lastSeq}, its journal holds more or fewer records`);
    }
  }
  const before = executions.filter((execution) => execution.atOp <= state.crashPoint);
  problems.push(...(await scenario.resume(resumeContext, { crashPoint: state.crashPoint, journals, before })));
  problems.push(...repeats(before, resumeContext.executions, journals));
  for (const [path, bytes] of readTree(root)) {
    const [, , runId] = JOURNAL.exec(path) ?? [];
    if (bytes === null || runId === undefined) continue;
    for (const problem of verifyJournal(bytes, runId).problems)
      if (problem.kind !== "torn_tail") problems.push(`after the resume, verify ${path}: ${problem.message}`);
  }
  return problems;
}

/** Everything durable at the cut is there: each entry file still named (unless it was being removed), each journal still starting with its synced bytes. */
function ackedKept(root: string, state: CrashState, ops: readonly FsOp[]): string[] {
  const problems: string[] = [];
  const removing = new Set<string>();
  for (const op of ops.slice(0, state.crashPoint)) {
    if (op.kind === "unlink") removing.add(join(op.dir, op.name));
    if (op.kind === "rename") removing.add(join(op.dir, op.from));
  }
  for (const [path, bytes] of state.durable) {
    if (bytes === null || !path.endsWith(".json") || path.split("/").at(-1)?.startsWith(".")) continue;
    const now = state.tree.get(path);
    if (now === undefined || now === null) {
      if (!removing.has(join(root, path))) problems.push(`${path}, durable at the cut, is gone`);
    } else if (JOURNAL.test(path) && !now.subarray(0, bytes.length).equals(bytes)) {
      problems.push(`${path} lost records it had synced (${bytes.length} bytes durable, ${now.length} there)`);
    }
  }
  return problems;
}

/** Tool runs over the cut: a call runs at most twice, one call at most repeats, a `send` (on_crash: never) never does, and none whose result was durable runs again. */
function repeats(before: readonly Execution[], after: readonly Execution[], journals: Map<string, JournalRecord[]>): string[] {
  const problems: string[] = [];
  const runs = new Map<string, number>();
  for (const execution of [...before, ...after]) runs.set(execution.call, (runs.get(execution.call) ?? 0) + 1);
  const repeated = [...runs].filter(([, count]) => count > 1);
  if (repeated.length > 1 || repeated.some(([, count]) => count > 2))
    problems.push(`calls repeated: ${repeated.map(([call, count]) => `${call} ${count} times`).join(", ")}`);
  for (const execution of [...before, ...after]) {
    if (execution.tool === "send" && (runs.get(execution.call) ?? 0) > 1)
      problems.push(`send (on_crash: never) ran ${runs.get(execution.call)} times: ${execution.call}`);
  }
  const answered = new Set<string>();
  for (const [key, records] of journals) {
    const runId = key.split("/")[1];
    for (const record of records) if (record.protocol === PROTOCOLS.tool_result) answered.add(`${runId}/${record.tool_result.tool_use_id}`);
  }
  for (const execution of after) if (answered.has(execution.call)) problems.push(`${execution.call} ran again though its result was durable`);
  return [...new Set(problems)];
}

/**
 * The state as the next boot finds it: no process of before the cut is alive. The lock
 * notes name this test's own process, which is; their start time is set to one no live
 * process has, so that ls and the pool see the holder gone, as they would after a reboot.
 */
function afterReboot(tree: Tree): Tree {
  const rebooted: Tree = new Map(tree);
  for (const [path, bytes] of tree) {
    if (bytes === null || !path.endsWith(".lock")) continue;
    try {
      rebooted.set(path, Buffer.from(JSON.stringify({ ...JSON.parse(bytes.toString("utf8")), started: new Date(0).toISOString() })));
    } catch {
      // Empty or torn: it names no one already.
    }
  }
  return rebooted;
}
