// The worker pool: `npm run bench:workers -- [--store files|nats|postgres] [--kills N] [--rounds N] [--runs N] [--chaos N]`.
// With `--store nats` every command gets `--store nats://…/STREAM` on a nats-server this
// bench starts (one stream a workspace, its lease bucket made with the default lease TTL);
// with `--store postgres`, `--store postgres://…?schema=NAME` on a cluster it starts (fsync
// on, Postgres's defaults; one schema a workspace).
// Takeover: from a worker's SIGKILL mid-tool to the run's next record written by another
// worker (which was idle, polling), beside the poll interval (on files the claim is the
// kernel lock, free the instant the process dies: there is no lease to wait out; on Postgres
// the run's advisory lock, free once the server sees the dead worker's connection close).
// Chaos: N runs, three workers, a random one SIGKILLed and replaced after a random one to four
// tool starts, until every run ended: each run's records (each model turn once) and the tool
// runs against the bound (the calls plus one a kill).
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
import { openBackend } from "../src/backends/open-backend.js";
import type { RunQueue } from "../src/queue/run-queue.js";
import type { Store } from "../src/runstate/store/store.js";
import { runCli as runCliOn, startCli as startCliOn, type CliRun } from "../test/helpers/cli-harness.js";
import type { FakeServer } from "../test/helpers/fake-anthropic-server.js";
import { startNatsServer, type NatsServer } from "../test/helpers/nats-server.js";
import { startPostgres, type PostgresServer } from "../test/helpers/postgres-server.js";
import { startPoolModel } from "../test/helpers/pool-model.js";
import { poolWorkspace, stdoutLines, type PoolWorkspace } from "../test/helpers/pool-workspace.js";
import { formatRatio, machineLine, printTable } from "./report.js";
import { median } from "./stats.js";
import { eventually } from "../test/helpers/eventually.js";

const { values } = parseArgs({
  options: {
    store: { type: "string", default: "files" },
    kills: { type: "string", default: "20" },
    rounds: { type: "string", default: "10" },
    runs: { type: "string", default: "16" },
    chaos: { type: "string", default: "50" },
  },
});
const WHERE = { files: "files", nats: "NATS JetStream", postgres: "Postgres" } as const;
if (!Object.hasOwn(WHERE, values.store)) throw new Error(`--store is files, nats or postgres, not ${values.store}`);
const onNats = values.store === "nats";
const onPostgres = values.store === "postgres";
const where = WHERE[values.store as keyof typeof WHERE];
const kills = Number(values.kills);
const rounds = Number(values.rounds);
const runs = Number(values.runs);
const chaosRuns = Number(values.chaos);
const POLL_MS = 200;
const SLOW_MS = 300;
const root = mkdtempSync(join(tmpdir(), "fisk-ai-bench-workers-"));
console.log(`npm run bench:workers -- --store ${values.store} --kills ${kills} --rounds ${rounds} --runs ${runs} --chaos ${chaosRuns}`);
const nats: NatsServer | undefined = onNats ? await startNatsServer() : undefined;
const postgres: PostgresServer | undefined = onPostgres ? await startPostgres({ durable: true }) : undefined;
/** Each workspace's store flag, store and queue on a server (nats, postgres), by its directory. */
const serverOf = new Map<string, { flag: string[]; store: Store; queue: RunQueue }>();
const flagOf = (dir: string) => serverOf.get(dir)?.flag ?? [];
const runCli: typeof runCliOn = (args, options) => runCliOn([...args, ...flagOf(options.cwd)], options);
const startCli: typeof startCliOn = (args, options) => startCliOn([...args, ...flagOf(options.cwd)], options);
/** How many records the run has, on any store. */
async function journalLength(ws: PoolWorkspace, runId: string): Promise<number> {
  const server = serverOf.get(ws.dir);
  return server === undefined ? ws.journal(runId).length : (await server.store.summarize(runId)).lastSeq;
}
async function queuedCount(ws: PoolWorkspace): Promise<number> {
  const server = serverOf.get(ws.dir);
  return server === undefined ? ws.queued().length : (await server.queue.list()).length;
}
/** The run's status, on any store. */
async function statusOf(ws: PoolWorkspace, runId: string): Promise<string> {
  const server = serverOf.get(ws.dir);
  if (server !== undefined) return (await server.store.summarize(runId)).status;
  const last = ws.journal(runId).at(-1);
  return last !== undefined && "terminal" in last ? last.terminal.reason : "open";
}
console.log(machineLine(root));

let made = 0;
const workspace = async (gateOpen: boolean, model?: FakeServer): Promise<PoolWorkspace> => {
  const ws = poolWorkspace(join(root, `ws-${++made}`), { gateOpen, ...(model === undefined ? {} : { model }) });
  if (nats !== undefined) {
    const stream = `BENCH${made}`;
    await initRunStream({ backend: "jetstream", servers: nats.url, stream, prefix: `bench${made}.runs` });
    const store = (await createStore({ backend: "jetstream", servers: nats.url, stream })) as JetStreamStore;
    serverOf.set(ws.dir, { flag: ["--store", `${nats.url}/${stream}`], store, queue: new JetStreamQueue(store) });
  }
  if (postgres !== undefined) {
    const url = `${postgres.url}?schema=bench${made}`;
    const { store, queue } = await openBackend(url);
    if (queue === undefined) throw new Error("the Postgres backend has no queue");
    serverOf.set(ws.dir, { flag: ["--store", url], store, queue });
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
  const claims: number[] = [];
  for (let kill = 0; kill < kills; kill++) {
    const ws = await workspace(false);
    const printed = new Map<CliRun, () => string>();
    const first = worker(ws, printed);
    await eventually(() => /taking runs/.test(printed.get(first)?.() ?? ""), "the first worker");
    await runCli(["submit", "Write two notes", "--name", "taken"], { cwd: ws.dir, env: ws.env });
    await eventually(() => ws.executions().length === 1, "the tool to start");
    const second = worker(ws, printed);
    await eventually(() => /taking runs/.test(printed.get(second)?.() ?? ""), "the second worker");
    const before = await journalLength(ws, "taken");
    ws.openGate();
    const killed = performance.now();
    first.child.kill("SIGKILL");
    let claimed: number | undefined;
    await eventually(async () => {
      if (claimed === undefined && /^took taken$/m.test(printed.get(second)?.() ?? "")) claimed = performance.now() - killed;
      return (await journalLength(ws, "taken")) > before;
    }, "the next record");
    takeovers.push(performance.now() - killed);
    claims.push(claimed ?? Number.NaN);
    await stop(second);
  }
  takeovers.sort((a, b) => a - b);
  claims.sort((a, b) => a - b);
  printTable(
    `Takeover on ${where}, ${kills} SIGKILLs mid-tool`,
    ["claimed median ms", "claimed max ms", "next record median ms", "next record max ms", onNats ? "lease ms" : "poll interval ms"],
    [
      [
        median(claims).toFixed(0),
        (claims.at(-1) ?? 0).toFixed(0),
        median(takeovers).toFixed(0),
        (takeovers.at(-1) ?? 0).toFixed(0),
        String(onNats ? DEFAULT_LEASE_TTL_MS : POLL_MS),
      ],
    ],
    [
      "claimed: from the SIGKILL to the other worker's `took` line; next record: to the run's next record, written by the other worker (the rerun tool's result)",
      onNats
        ? "goal: within the lease time + 1 s; JetStream redelivers after AckWait (= the lease), once the dead worker's lease ran out"
        : onPostgres
          ? "goal: within the lease time + 1 s; on Postgres the hold is an advisory lock, gone with the dead worker's connection, so it is the poll interval plus a resume"
          : "goal: within the lease time + 1 s; on files the hold is the kernel lock, so it is the poll interval plus a resume",
    ],
  );

  // Chaos.
  {
    const ws = await workspace(true);
    for (let index = 0; index < chaosRuns; index++) await runCli(["submit", "Write two notes", "--name", `c${index}`], { cwd: ws.dir, env: ws.env });
    const started = performance.now();
    const pool = [worker(ws), worker(ws), worker(ws)];
    let chaosKills = 0;
    while ((await queuedCount(ws)) > 0) {
      const seen = ws.executions().length;
      const after = 1 + Math.floor(Math.random() * 4);
      await eventually(async () => ws.executions().length >= seen + after || (await queuedCount(ws)) === 0, "tools to start", {
        timeoutMs: 300_000,
      }).catch(async (error: Error) => {
        const queued = await (serverOf.get(ws.dir)?.queue.list() ?? Promise.resolve([]));
        const stuck = queued.map((entry) => `${entry.runId} ${entry.state}`).join(", ") || ws.queued().join(", ");
        throw new Error(
          `${error.message}: the chaos stalled after ${chaosKills} kills; queued: ${stuck}; the workers said: ${pool.map((each) => each.stderr().slice(-400)).join(" | ")}`,
        );
      });
      if ((await queuedCount(ws)) === 0) break;
      const index = Math.floor(Math.random() * pool.length);
      (pool[index] as CliRun).child.kill("SIGKILL");
      await (pool[index] as CliRun).done;
      chaosKills++;
      pool[index] = worker(ws);
    }
    const seconds = (performance.now() - started) / 1000;
    for (const each of pool) await stop(each);
    let repeatedTurns = 0;
    let notCompleted = 0;
    for (let index = 0; index < chaosRuns; index++) {
      if ((await journalLength(ws, `c${index}`)) !== 7) repeatedTurns++;
      if ((await statusOf(ws, `c${index}`)) !== "completed") notCompleted++;
    }
    const executions = ws.executions().length;
    const bound = chaosRuns * 2 + chaosKills;
    printTable(
      `Chaos on ${where}: ${chaosRuns} runs, three workers, random SIGKILLs`,
      ["kills", "runs not completed", "runs with a model turn twice", "tool runs", "bound", "s"],
      [[String(chaosKills), String(notCompleted), String(repeatedTurns), String(executions), String(bound), seconds.toFixed(1)]],
      [
        "a run of the script provider: two tool calls, three turns (7 records); a worker killed after 1-4 random tool starts, replaced at once",
        `bound: the ${chaosRuns * 2} tool calls plus one rerun a kill (the call whose result never reached the journal); ${executions <= bound ? "kept" : "BROKEN"}`,
      ],
    );
  }

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
    await eventually(async () => (await queuedCount(busy)) === 0, "every run to end", { timeoutMs: 600_000 });
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
  for (const { store } of serverOf.values()) await store.close();
  await nats?.stop();
  await postgres?.stop();
  rmSync(root, { recursive: true, force: true });
}
