// Start-up benchmark (issue 13): `fisk-ai --help` and `fisk-ai session ls` on an empty
// directory against `node -e 0`, each a fresh process, interleaved round by round.
// Goal: both within 2x of bare Node.     npm run bench:startup    (STARTUP_ROUNDS=<n>)
// Beside them, no goal: a one-turn `fisk-ai run` with the anthropic provider against the
// loopback fake API, what loading the provider's SDK and its first call add.
// STARTUP_BEFORE=<path of another build's dist/cli/main.js> times that build beside this one,
// in the same rounds, for a before/after of a change (issue 33: the command table).
// Each process's CPU time (user + system, from /usr/bin/time) is printed beside its wall time:
// on a shared machine the wall time follows the load, the CPU time much less.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { startFakeAnthropic } from "../test/helpers/fake-anthropic-server.js";
import { formatMs, formatRatio, goalRatio, machineLine, printTable } from "./report.js";
import { interleave, median } from "./stats.js";

const ROUNDS = Number(process.env.STARTUP_ROUNDS ?? 30);
const GOAL = 2;
const CLI = new URL("../../dist/cli/main.js", import.meta.url).pathname;
const BEFORE = process.env.STARTUP_BEFORE;

const HELP = "fisk-ai --help";
const LS = "fisk-ai session ls (empty dir)";
const RUN = "fisk-ai run (anthropic, one turn)";

interface Sample {
  wallMs: number;
  cpuMs: number;
}

/** Not spawned synchronously: the fake API the anthropic run calls answers from this process. */
function run(args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): () => Promise<Sample> {
  const timing = join(cwd, "time.txt");
  return async () => {
    const started = performance.now();
    const child = spawn("/usr/bin/time", ["-f", "%U %S", "-o", timing, process.execPath, ...args], { cwd, env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, "close")) as [number | null];
    const wallMs = performance.now() - started;
    if (code !== 0) throw new Error(`node ${args.join(" ")} failed: ${stderr}`);
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
  return [HELP, LS, RUN].map(
    (label) =>
      `${label}, this build / before: wall ${formatRatio(medians(label, "wallMs") / medians(`before: ${label}`, "wallMs"))}, cpu ${formatRatio(medians(label, "cpuMs") / medians(`before: ${label}`, "cpuMs"))}`,
  );
}

async function main(): Promise<void> {
  let stopModel = async (): Promise<void> => {};
  const dir = mkdtempSync(join(tmpdir(), "fisk-startup-"));
  try {
    const empty = join(dir, "runs");
    mkdirSync(empty);
    const builds: Record<string, string> = BEFORE === undefined ? { "": CLI } : { "": CLI, "before: ": BEFORE };
    const sides: Record<string, () => Promise<Sample>> = { node: run(["-e", "0"], dir) };
    const model = await startFakeAnthropic(() => ({
      content: [{ type: "text", text: "Hi." }],
      stop_reason: "end_turn",
      usage: { input_tokens: 9, output_tokens: 2 },
    }));
    stopModel = () => model.close();
    const modelEnv = { ...process.env, ANTHROPIC_API_KEY: "bench-key", ANTHROPIC_BASE_URL: model.url };
    for (const [prefix, cli] of Object.entries(builds)) {
      sides[`${prefix}${HELP}`] = run([cli, "--help"], dir);
      sides[`${prefix}${LS}`] = run([cli, "session", "ls", "--state-dir", empty], dir);
      sides[`${prefix}${RUN}`] = run([cli, "run", "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--state-dir", empty, "hi"], dir, modelEnv);
    }
    const results = await interleave(sides, ROUNDS, 3);
    const nodeSamples = results.node ?? [];
    const node = { wallMs: median(nodeSamples.map((s) => s.wallMs)), cpuMs: median(nodeSamples.map((s) => s.cpuMs)) };
    const rows = Object.entries(results).map(([label, samples]) => row(label, samples, node, label === HELP || label === LS));
    const notes = [machineLine(dir)];
    if (BEFORE !== undefined) notes.unshift(`before: ${BEFORE}`, ...afterVersusBefore(results));
    printTable(`Start-up: median of ${ROUNDS} fresh processes each, interleaved`, ["", "wall ms", "cpu ms", `wall vs node (goal ${GOAL}x)`], rows, notes);
  } finally {
    await stopModel();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
