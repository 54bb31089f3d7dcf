// The worker pool: `npm run bench:workers -- [--store files|nats] [--kills N] [--rounds N] [--runs N]`.
// With `--store nats` every command gets `--store nats://…/STREAM` on a nats-server this
// bench starts (one stream a workspace, its lease bucket made with the default lease TTL).
// Takeover: from a worker's SIGKILL mid-tool to the run's next record written by another
// worker (which was idle, polling), beside the poll interval (on files the claim is the
// kernel lock, free the instant the process dies: there is no lease to wait out).
// Overhead: `submit --wait` (one idle worker, woken by the queue's watch) vs `run --checkpoint` of the same short run.
// Throughput: runs completed per second with 1, 2 and 4 workers against the strict fake
// Anthropic server in its slow mode (every answer SLOW_MS late, as a busy model answers),
// three model calls and two quick tool calls a run.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { JetStreamQueue } from "../src/backends/jetstream/jetstream-queue.js";
import { createStore } from "../src/backends/open-backend.js";
import { DEFAULT_LEASE_TTL_MS } from "../src/backends/jetstream/leases.js";
import type { JetStreamStore } from "../src/backends/jetstream/jetstream-store.js";
import { initRunStream } from "../src/backends/jetstream/run-stream.js";
import { runCli as runCliOn, startCli as startCliOn, waitFor, type CliRun } from "../test/helpers/cli-harness.js";
import type { FakeServer } from "../test/helpers/fake-anthropic-server.js";
import { startNatsServer, type NatsServer } from "../test/helpers/nats-server.js";
import { startPoolModel } from "../test/helpers/pool-model.js";
import { poolWorkspace, stdoutLines, type PoolWorkspace } from "../test/helpers/pool-workspace.js";
import { formatRatio, machineLine, printTable } from "./report.js";
import { median } from "./stats.js";

const { values } = parseArgs({
  options: {
    store: { type: "string", default: "files" },
    kills: { type: "string", default: "20" },
    rounds: { type: "string", default: "10" },
    runs: { type: "string", default: "16" },
  },
});
if (values.store !== "files" && values.store !== "nats") throw new Error(`--store is files or nats, not ${values.store}`);
const onNats = values.store === "nats";
const where = onNats ? "NATS JetStream" : "files";
const kills = Number(values.kills);
const rounds = Number(values.rounds);
const runs = Number(values.runs);
const POLL_MS = 200;
const SLOW_MS = 300;
const root = mkdtempSync(join(tmpdir(), "fisk-ai-bench-workers-"));
console.log(`npm run bench:workers -- --store ${values.store} --kills ${kills} --rounds ${rounds} --runs ${runs}`);
const nats: NatsServer | undefined = onNats ? await startNatsServer() : undefined;
/** Each workspace's store flag and JetStream store (for nats), by its directory. */
const natsOf = new Map<string, { flag: string[]; store: JetStreamStore; queue: JetStreamQueue }>();
const flagOf = (dir: string) => natsOf.get(dir)?.flag ?? [];
const runCli: typeof runCliOn = (args, options) => runCliOn([...args, ...flagOf(options.cwd)], options);
const startCli: typeof startCliOn = (args, options) => startCliOn([...args, ...flagOf(options.cwd)], options);
/** How many records the run has, on either store. */
async function journalLength(ws: PoolWorkspace, runId: string): Promise<number> {
  const jetstream = natsOf.get(ws.dir);
  return jetstream === undefined ? ws.journal(runId).length : (await jetstream.store.summarize(runId)).lastSeq;
}
async function queuedCount(ws: PoolWorkspace): Promise<number> {
  const jetstream = natsOf.get(ws.dir);
  return jetstream === undefined ? ws.queued().length : (await jetstream.queue.list()).length;
}
async function waitUntil(check: () => Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
console.log(machineLine(root));

let made = 0;
const workspace = async (gateOpen: boolean, model?: FakeServer): Promise<PoolWorkspace> => {
  const ws = poolWorkspace(join(root, `ws-${++made}`), { gateOpen, ...(model === undefined ? {} : { model }) });
  if (nats !== undefined) {
    const stream = `BENCH${made}`;
    await initRunStream({ backend: "jetstream", servers: nats.url, stream, prefix: `bench${made}.runs` });
    const store = (await createStore({ backend: "jetstream", servers: nats.url, stream })) as JetStreamStore;
    natsOf.set(ws.dir, { flag: ["--store", `${nats.url}/${stream}`], store, queue: new JetStreamQueue(store) });
  }
  return ws;
};
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
    const ws = await workspace(false);
    const printed = new Map<CliRun, () => string>();
    const first = worker(ws, printed);
    await waitFor(() => /taking runs/.test(printed.get(first)?.() ?? ""), "the first worker");
    await runCli(["submit", "Write two notes", "--name", "taken"], { cwd: ws.dir, env: ws.env });
    await waitFor(() => ws.executions().length === 1, "the tool to start");
    const second = worker(ws, printed);
    await waitFor(() => /taking runs/.test(printed.get(second)?.() ?? ""), "the second worker");
    const before = await journalLength(ws, "taken");
    ws.openGate();
    const killed = performance.now();
    first.child.kill("SIGKILL");
    await waitUntil(async () => (await journalLength(ws, "taken")) > before, "the next record", 60_000);
    takeovers.push(performance.now() - killed);
    await stop(second);
  }
  takeovers.sort((a, b) => a - b);
  printTable(
    `Takeover on ${where}, ${kills} SIGKILLs mid-tool`,
    ["median ms", "max ms", onNats ? "lease ms" : "poll interval ms"],
    [[median(takeovers).toFixed(0), (takeovers.at(-1) ?? 0).toFixed(0), String(onNats ? DEFAULT_LEASE_TTL_MS : POLL_MS)]],
    [
      "from the SIGKILL to the run's next record, written by the other worker (the rerun tool's result)",
      onNats
        ? "goal: within the lease time + 1 s; JetStream redelivers after AckWait (= the lease), once the dead worker's lease ran out"
        : "goal: within the lease time + 1 s; on files the hold is the kernel lock, so it is the poll interval plus a resume",
    ],
  );

  // Overhead.
  const ws = await workspace(true);
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
    `submit --wait vs run --checkpoint on ${where}, median of ${rounds}`,
    ["run --checkpoint ms", "submit --wait ms", "ratio"],
    [[runMs.toFixed(0), submitMs.toFixed(0), formatRatio(submitMs / runMs, 2)]],
    [
      `a two-tool run of the script provider; one idle worker waiting on the queue's watch (${onNats ? "a NATS subscription" : "fs.watch"}; polls every ${POLL_MS} ms at least); goal 1.25x on files, reported on JetStream`,
    ],
  );

  // Throughput.
  const rows: string[][] = [];
  let single = 0;
  const slowModel = await startPoolModel({ slowMs: SLOW_MS });
  for (const count of [1, 2, 4]) {
    const busy = await workspace(true, slowModel);
    for (let index = 0; index < runs; index++) await runCli(["submit", "Write two notes", "--name", `t${index}`], { cwd: busy.dir, env: busy.env });
    const start = performance.now();
    const workers = Array.from({ length: count }, () => worker(busy));
    await waitUntil(async () => (await queuedCount(busy)) === 0, "every run to end", 600_000);
    const seconds = (performance.now() - start) / 1000;
    for (const each of workers) await stop(each);
    const perSecond = runs / seconds;
    if (count === 1) single = perSecond;
    rows.push([String(count), perSecond.toFixed(2), formatRatio(perSecond / single, 2)]);
  }
  await slowModel.close();
  printTable(
    `Throughput on ${where}, ${runs} runs of three model calls each answered ${SLOW_MS} ms late (the strict fake's slow mode)`,
    ["workers", "runs/s", "vs 1 worker"],
    rows,
    ["goal: close to linear while the machine is not the limit (2 cores here, shared)"],
  );
} finally {
  for (const { store } of natsOf.values()) await store.close();
  await nats?.stop();
  rmSync(root, { recursive: true, force: true });
}
