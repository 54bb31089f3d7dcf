// The worker pool on the file store: `npm run bench:workers -- [--kills N] [--rounds N] [--runs N]`.
// Takeover: from a worker's SIGKILL mid-tool to the run's next record written by another
// worker (which was idle, polling), beside the poll interval (on files the claim is the
// kernel lock, free the instant the process dies: there is no lease to wait out).
// Overhead: `submit --wait` (one idle worker) vs `run --checkpoint` of the same short run.
// Throughput: runs completed per second with 1, 2 and 4 workers against the strict fake
// Anthropic server in its slow mode (every answer SLOW_MS late, as a busy model answers),
// three model calls and two quick tool calls a run.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { runCli, startCli, waitFor, type CliRun } from "../test/helpers/cli-harness.js";
import type { FakeServer } from "../test/helpers/fake-anthropic-server.js";
import { startPoolModel } from "../test/helpers/pool-model.js";
import { poolWorkspace, stdoutLines, type PoolWorkspace } from "../test/helpers/pool-workspace.js";
import { formatRatio, machineLine, printTable } from "./report.js";
import { median } from "./stats.js";

const { values } = parseArgs({ options: { kills: { type: "string", default: "20" }, rounds: { type: "string", default: "10" }, runs: { type: "string", default: "16" } } });
const kills = Number(values.kills);
const rounds = Number(values.rounds);
const runs = Number(values.runs);
const POLL_MS = 200;
const SLOW_MS = 300;
const root = mkdtempSync(join(tmpdir(), "fisk-ai-bench-workers-"));
console.log(`npm run bench:workers -- --kills ${kills} --rounds ${rounds} --runs ${runs}`);
console.log(machineLine(root));

let made = 0;
const workspace = (gateOpen: boolean, model?: FakeServer): PoolWorkspace => poolWorkspace(join(root, `ws-${++made}`), { gateOpen, ...(model === undefined ? {} : { model }) });
const worker = (ws: PoolWorkspace, printed?: Map<CliRun, () => string>): CliRun => {
  const run = startCli(["worker", "--poll", String(POLL_MS)], { cwd: ws.dir, env: ws.env });
  printed?.set(run, stdoutLines(run));
  return run;
};
const stop = async (run: CliRun) => {
  run.child.kill("SIGTERM");
  await run.done;
};

try {
  // Takeover.
  const takeovers: number[] = [];
  for (let kill = 0; kill < kills; kill++) {
    const ws = workspace(false);
    const printed = new Map<CliRun, () => string>();
    const first = worker(ws, printed);
    await waitFor(() => /taking runs/.test(printed.get(first)?.() ?? ""), "the first worker");
    await runCli(["submit", "Write two notes", "--name", "taken"], { cwd: ws.dir, env: ws.env });
    await waitFor(() => ws.executions().length === 1, "the tool to start");
    const second = worker(ws, printed);
    await waitFor(() => /taking runs/.test(printed.get(second)?.() ?? ""), "the second worker");
    const before = ws.journal("taken").length;
    ws.openGate();
    const killed = performance.now();
    first.child.kill("SIGKILL");
    await waitFor(() => ws.journal("taken").length > before, "the next record", 30_000);
    takeovers.push(performance.now() - killed);
    await stop(second);
  }
  takeovers.sort((a, b) => a - b);
  printTable(
    `Takeover on files, ${kills} SIGKILLs mid-tool`,
    ["median ms", "max ms", "poll interval ms"],
    [[median(takeovers).toFixed(0), (takeovers.at(-1) ?? 0).toFixed(0), String(POLL_MS)]],
    ["from the SIGKILL to the run's next record, written by the other worker (the rerun tool's result)", "goal: within the lease time + 1 s; on files the hold is the kernel lock, so it is the poll interval plus a resume"],
  );

  // Overhead.
  const ws = workspace(true);
  const pool = worker(ws);
  const timed: { run: number; submit: number }[] = [];
  for (let round = 0; round < rounds; round++) {
    let start = performance.now();
    const ran = await runCli(["run", "--checkpoint", "Write two notes"], { cwd: ws.dir, env: ws.env });
    const run = performance.now() - start;
    start = performance.now();
    const submitted = await runCli(["submit", "Write two notes", "--wait"], { cwd: ws.dir, env: ws.env });
    const submit = performance.now() - start;
    if (ran.code !== 0 || submitted.code !== 0) throw new Error(`a run failed: ${ran.stderr}${submitted.stderr}`);
    timed.push({ run, submit });
  }
  await stop(pool);
  const runMs = median(timed.map((each) => each.run));
  const submitMs = median(timed.map((each) => each.submit));
  printTable(
    `submit --wait vs run --checkpoint on files, median of ${rounds}`,
    ["run --checkpoint ms", "submit --wait ms", "ratio"],
    [[runMs.toFixed(0), submitMs.toFixed(0), formatRatio(submitMs / runMs, 2)]],
    ["a two-tool run of the script provider; one idle worker polling every 200 ms; goal 1.25x", "JetStream: not measured (the JetStream pool is not built yet)"],
  );

  // Throughput.
  const rows: string[][] = [];
  let single = 0;
  const slowModel = await startPoolModel({ slowMs: SLOW_MS });
  for (const count of [1, 2, 4]) {
    const busy = workspace(true, slowModel);
    for (let index = 0; index < runs; index++) await runCli(["submit", "Write two notes", "--name", `t${index}`], { cwd: busy.dir, env: busy.env });
    const start = performance.now();
    const workers = Array.from({ length: count }, () => worker(busy));
    await waitFor(() => busy.queued().length === 0, "every run to end", 600_000);
    const seconds = (performance.now() - start) / 1000;
    for (const each of workers) await stop(each);
    const perSecond = runs / seconds;
    if (count === 1) single = perSecond;
    rows.push([String(count), perSecond.toFixed(2), formatRatio(perSecond / single, 2)]);
  }
  await slowModel.close();
  printTable(`Throughput on files, ${runs} runs of three model calls each answered ${SLOW_MS} ms late (the strict fake's slow mode)`, ["workers", "runs/s", "vs 1 worker"], rows, ["goal: close to linear while the machine is not the limit (2 cores here, shared)"]);
} finally {
  rmSync(root, { recursive: true, force: true });
}
