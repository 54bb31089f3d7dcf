// Start-up benchmark (issues 13 and 53): `fisk-ai --help` and `fisk-ai session ls` on an empty
// store, named by --state-dir and found by default with no agent.yaml, against `node -e 0`,
// each a fresh process, interleaved round by round.
// Goal: each within 1.5x of bare Node.     npm run bench:startup    (STARTUP_ROUNDS=<n>)
// STARTUP_BEFORE=<path of another build's dist/cli/main.js> times that build beside this one,
// in the same rounds, for a before/after of a change (issue 33: the command table).
// Each process's CPU time (user + system, from /usr/bin/time) is printed beside its wall time:
// on a shared machine the wall time follows the load, the CPU time much less.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { formatMs, formatRatio, goalRatio, machineLine, printTable } from "./report.js";
import { interleave, median } from "./stats.js";

const ROUNDS = Number(process.env.STARTUP_ROUNDS ?? 30);
const GOAL = 1.5;
const CLI = new URL("../../dist/cli/main.js", import.meta.url).pathname;
const BEFORE = process.env.STARTUP_BEFORE;
const LABELS = ["fisk-ai --help", "fisk-ai session ls (empty dir)", "fisk-ai session ls (default store)"];

interface Sample {
  wallMs: number;
  cpuMs: number;
}

function run(args: string[], cwd: string): () => Promise<Sample> {
  const timing = join(cwd, "time.txt");
  // The default store is under XDG_STATE_HOME: an empty one of the bench's, and no agent.yaml in `cwd`.
  const env = { ...process.env, XDG_STATE_HOME: join(cwd, "state") };
  return async () => {
    const started = performance.now();
    const child = spawnSync("/usr/bin/time", ["-f", "%U %S", "-o", timing, process.execPath, ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    const wallMs = performance.now() - started;
    if (child.status !== 0) throw new Error(`node ${args.join(" ")} failed: ${child.stderr.toString()}`);
    const [user, system] = readFileSync(timing, "utf8").trim().split(/\s+/).map(Number);
    return { wallMs, cpuMs: ((user ?? 0) + (system ?? 0)) * 1000 };
  };
}

function row(label: string, samples: readonly Sample[], node: Sample, goal: boolean): string[] {
  const wall = median(samples.map((sample) => sample.wallMs));
  const cpu = median(samples.map((sample) => sample.cpuMs));
  const ratio = wall / node.wallMs;
  return [label, formatMs(wall), formatMs(cpu), goal ? goalRatio(ratio, ratio <= GOAL) : formatRatio(ratio)];
}

/** This build against the before build, per command: the ratio of the medians, wall and CPU. */
function afterVersusBefore(results: Record<string, Sample[]>): string[] {
  const medians = (label: string, key: keyof Sample): number => median((results[label] ?? []).map((sample) => sample[key]));
  return LABELS.map(
    (label) =>
      `${label}, this build / before: wall ${formatRatio(medians(label, "wallMs") / medians(`before: ${label}`, "wallMs"))}, cpu ${formatRatio(medians(label, "cpuMs") / medians(`before: ${label}`, "cpuMs"))}`,
  );
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "fisk-startup-"));
  try {
    const empty = join(dir, "runs");
    mkdirSync(empty);
    mkdirSync(join(dir, "state"));
    const builds: Record<string, string> = BEFORE === undefined ? { "": CLI } : { "": CLI, "before: ": BEFORE };
    const sides: Record<string, () => Promise<Sample>> = { node: run(["-e", "0"], dir) };
    for (const [prefix, cli] of Object.entries(builds)) {
      sides[`${prefix}fisk-ai --help`] = run([cli, "--help"], dir);
      sides[`${prefix}fisk-ai session ls (empty dir)`] = run([cli, "session", "ls", "--state-dir", empty], dir);
      sides[`${prefix}fisk-ai session ls (default store)`] = run([cli, "session", "ls"], dir);
    }
    const results = await interleave(sides, ROUNDS, 3);
    const nodeSamples = results.node ?? [];
    const node = { wallMs: median(nodeSamples.map((s) => s.wallMs)), cpuMs: median(nodeSamples.map((s) => s.cpuMs)) };
    const rows = Object.entries(results).map(([label, samples]) => row(label, samples, node, label !== "node" && !label.startsWith("before")));
    const notes = [machineLine(dir)];
    if (BEFORE !== undefined) notes.unshift(`before: ${BEFORE}`, ...afterVersusBefore(results));
    printTable(`Start-up: median of ${ROUNDS} fresh processes each, interleaved`, ["", "wall ms", "cpu ms", `wall vs node (goal ${GOAL}x)`], rows, notes);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
