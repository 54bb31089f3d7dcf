// `fisk-ai serve` against the CLI, in one run: `npm run bench:server -- [--rounds N]
// [--appends N] [--followers N] [--idle N] [--sessions N]`. Every server is a spawned
// `serve` on the file store; the clients are this process (FiskClient), curl, or the CLI.
// (a) A run started over HTTP and followed over SSE to its end, against `submit --wait`, the
//     same two-tool run of the script provider driven by the same in-process worker of serve.
// (b) From a journal append (this process holds the run's journal and appends records one at
//     a time) to the record's SSE event at a client of serve, p50 and p99, beside a floor
//     with no fisk-ai code: a line appended and sent back by a process watching its directory.
// (c) Server RSS per connection: followers of one run while records are appended to it, then
//     idle followers of a queued run no worker takes; serve's CPU over a quiet span beside.
// (d) Listing 10,000 sessions over HTTP, in one page and page by page through the cursor,
//     against `session ls --json`, which prints them all.
import { execFile, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { open } from "node:fs/promises";
import { createInterface } from "node:readline";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { parseArgs } from "node:util";
import { poolBackend } from "../src/backends/pool-queue.js";
import type { FiskClient, SessionEvent } from "../src/client/fisk-client.js";
import { loadAgent } from "../src/config/load-agent.js";
import { submitRun } from "../src/pool/submit-run.js";
import { runCli, startCli } from "../test/helpers/cli-harness.js";
import { poolWorkspace, type PoolWorkspace } from "../test/helpers/pool-workspace.js";
import { startServe, type ServeProcess } from "../test/helpers/serve-process.js";
import { formatCount, formatMs, goalRatio, machineLine, printTable } from "./report.js";
import { RunGenerator } from "./run-records.js";
import { writeSessions } from "./session-dir.js";
import { interleave, median, percentile, timed } from "./stats.js";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "10" },
    appends: { type: "string", default: "300" },
    followers: { type: "string", default: "100" },
    idle: { type: "string", default: "1000" },
    sessions: { type: "string", default: "10000" },
  },
});
const rounds = Number(values.rounds);
const appends = Number(values.appends);
const followers = Number(values.followers);
const idle = Number(values.idle);
const sessionCount = Number(values.sessions);
const GOAL = { runRatio: 1.1, appendP50Ms: 10, perConnectionKb: 50, listRatio: 1.5 };
/** Tool results of about a KB, as a run's records are: the records appended in (b) and (c). */
const RECORD_SHAPE = { outputBytes: [500, 1500], proseBytes: [100, 400], toolsPerTurn: [1, 2] } as const;
const execFileP = promisify(execFile);

const root = mkdtempSync(join(tmpdir(), "fisk-ai-bench-server-"));
console.log(
  `npm run bench:server -- --rounds ${rounds} --appends ${appends} --followers ${followers} --idle ${idle} --sessions ${sessionCount}  (${new Date().toISOString()})`,
);
console.log(machineLine(root));
const servers: ServeProcess[] = [];

async function served(ws: PoolWorkspace, args: string[]): Promise<ServeProcess> {
  const server = await startServe((cli) => startCli(cli, { cwd: ws.dir, env: ws.env }), ["serve", "--listen", "127.0.0.1:0", ...args]);
  servers.push(server);
  return server;
}

/** A process's resident memory, in bytes (Linux). */
function rssOf(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  return Number(kb) * 1024;
}

/** A process's user + system CPU so far, in milliseconds (Linux, 100 ticks a second). */
function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The median of a few RSS readings a moment apart, so one collection does not make the figure. */
async function steadyRss(pid: number): Promise<number> {
  const readings: number[] = [];
  for (let index = 0; index < 5; index++) {
    await sleep(200);
    readings.push(rssOf(pid));
  }
  return median(readings);
}

/** The number a scrape of GET /metrics gives `name` (serve's local principal is an admin). */
async function metric(client: FiskClient, name: string): Promise<number> {
  return Number(new RegExp(`^${name} (\\S+)$`, "m").exec(await client.metrics())?.[1]);
}

async function waitFor(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let tries = 0; !(await check()); tries++) {
    if (tries > 600) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** (a) POST /v1/runs and follow its events to the end, from this process and with curl, against `submit --wait`. */
async function runOverHttp(): Promise<void> {
  const ws = poolWorkspace(join(root, "runs"));
  const server = await served(ws, ["--workers", "1"]);
  const body = JSON.stringify({ agent: "agent", prompt: "Write two notes" });
  const completed = (status: string) => {
    if (status !== "completed") throw new Error(`a run ended ${status}`);
  };
  const sides = {
    client: async () =>
      (
        await timed(async () => {
          const { runId } = await server.client.startRun({ agent: "agent", prompt: "Write two notes" });
          for await (const event of server.client.events(runId)) if (event.kind === "end") completed(event.status);
        })
      ).ms,
    curl: async () =>
      (
        await timed(async () => {
          const started = await execFileP("curl", ["-sf", "-H", "content-type: application/json", "-d", body, `${server.url}/v1/runs`]);
          const { runId } = JSON.parse(started.stdout) as { runId: string };
          const events = await execFileP("curl", ["-sfN", `${server.url}/v1/sessions/${runId}/events`], { maxBuffer: 64 * 1024 * 1024 });
          completed(/event: end\ndata: \{"status":"(\w+)"/.exec(events.stdout)?.[1] ?? "without an end event");
        })
      ).ms,
    submit: async () =>
      (
        await timed(async () => {
          const result = await runCli(["submit", "Write two notes", "--wait"], { cwd: ws.dir, env: ws.env });
          if (result.code !== 0) throw new Error(`submit --wait: ${result.stderr}`);
        })
      ).ms,
  };
  const results = await interleave(sides, rounds, 1);
  const submitMs = median(results.submit);
  const row = (side: string, samples: number[]) => {
    const ms = median(samples);
    return [side, formatMs(ms), goalRatio(ms / submitMs, ms / submitMs <= GOAL.runRatio)];
  };
  printTable(
    `(a) a run over HTTP vs submit --wait, median of ${rounds} interleaved rounds`,
    ["side", "ms", `vs submit --wait (goal ${GOAL.runRatio}x)`],
    [
      row("POST /v1/runs + its events to the end (FiskClient in this process)", results.client),
      row("the same with curl (two processes)", results.curl),
      [`fisk-ai submit --wait`, formatMs(submitMs), "1x"],
    ],
    [
      "a two-tool run of the script provider; serve's one in-process worker drives every side's run",
      "submit --wait starts the CLI (node and the bundle) each round; FiskClient starts nothing",
    ],
  );
}

interface Appender {
  runId: string;
  /** Appends the next generated record; resolves once it is durable. */
  append(): Promise<void>;
  close(): Promise<void>;
}

/** A run queued in `ws`'s store (no worker takes it: its serve has none), its journal held by this process. */
async function appender(ws: PoolWorkspace, seed: number): Promise<Appender> {
  const agent = await loadAgent(join(ws.dir, "agent.yaml"), { env: ws.env });
  const { store, queue } = await poolBackend(agent.openBackend());
  const runId = await submitRun({ store, queue, agent: agent.spec }, { prompt: "Write two notes", cwd: ws.dir });
  const journal = await store.open(runId);
  let seq = (await store.summarize(runId)).lastSeq;
  const generator = new RunGenerator(RECORD_SHAPE, seed);
  let pending = generator.turn();
  return {
    runId,
    append: () => {
      if (pending.length === 0) pending = generator.turn();
      return journal.append(++seq, pending.shift() as (typeof pending)[number]);
    },
    close: async () => {
      await journal.close();
      await queue.close();
      await store.close();
      await agent.close();
    },
  };
}

/** The next record event of `events`, skipping none: its seq. */
async function nextRecord(events: AsyncGenerator<SessionEvent>): Promise<number> {
  const { value } = await events.next();
  if (value?.kind !== "record") throw new Error(`expected a record, got ${JSON.stringify(value)}`);
  return value.seq;
}

/**
 * The floor under (b), without fisk-ai's code: another process that watches a directory
 * (fs.watch) and, on each change, reads a file's new bytes and writes them to its stdout.
 */
const FLOOR_SCRIPT =
  'const fs = require("node:fs"); const dir = process.argv[1]; const file = dir + "/floor"; let offset = 0; ' +
  "fs.watch(dir, () => { const size = fs.statSync(file).size; if (size <= offset) return; const bytes = Buffer.alloc(size - offset); " +
  'const fd = fs.openSync(file, "r"); fs.readSync(fd, bytes, 0, bytes.length, offset); fs.closeSync(fd); offset = size; process.stdout.write(bytes); }); ' +
  'process.stdout.write("ready\\n");';

/** A line appended and fdatasync'd in a watched directory, and how long until the watching process wrote it back. */
async function floorLine(): Promise<{ send(): Promise<number>; close(): Promise<void> }> {
  const dir = join(root, "floor");
  mkdirSync(dir);
  const file = await open(join(dir, "floor"), "a");
  const child = spawn(process.execPath, ["-e", FLOOR_SCRIPT, dir], { stdio: ["ignore", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const arrived: ((line: string) => void)[] = [];
  lines.on("line", (line) => arrived.shift()?.(line));
  await new Promise<string>((resolve) => arrived.push(resolve));
  let sent = 0;
  return {
    send: async () => {
      const line = `line ${++sent}`;
      const back = new Promise<string>((resolve) => arrived.push(resolve));
      const started = performance.now();
      await file.write(`${line}\n`);
      const written = file.datasync();
      if ((await back) !== line) throw new Error(`the floor's watcher sent back another line than ${line}`);
      const ms = performance.now() - started;
      await written;
      return ms;
    },
    close: async () => {
      child.kill();
      await file.close();
    },
  };
}

/** (b) From append() called to the record's event at a client, beside the floor, one of each in turn. */
async function appendToEvent(ws: PoolWorkspace, server: ServeProcess): Promise<void> {
  const run = await appender(ws, 7);
  const floor = await floorLine();
  const stop = new AbortController();
  const events = server.client.events(run.runId, 0, stop.signal);
  await waitSeq(events, (await server.client.session(run.runId)).session.lastSeq);
  const toEvent: number[] = [];
  const toDurable: number[] = [];
  const toFloor: number[] = [];
  for (let index = 0; index < appends; index++) {
    const started = performance.now();
    const durable = run.append().then(() => toDurable.push(performance.now() - started));
    await nextRecord(events);
    toEvent.push(performance.now() - started);
    await durable;
    toFloor.push(await floor.send());
  }
  stop.abort();
  await events.return(undefined).catch(() => undefined);
  await run.close();
  await floor.close();
  const p50 = percentile(toEvent, 50);
  printTable(
    `(b) journal append to SSE event at a client, ${appends} records one at a time, file store`,
    ["from the append to", "p50 ms", "p99 ms", `goal: p50 under ${GOAL.appendP50Ms} ms`],
    [
      ["the record's event at the client", formatMs(p50), formatMs(percentile(toEvent, 99)), p50 < GOAL.appendP50Ms ? "met" : "MISSED"],
      ["append() resolved (written and fdatasync'd)", formatMs(percentile(toDurable, 50)), formatMs(percentile(toDurable, 99)), ""],
      ["floor: a line back from a process watching its directory", formatMs(percentile(toFloor, 50)), formatMs(percentile(toFloor, 99)), ""],
    ],
    [
      "this process holds the journal and appends; serve (another process) hears of it by the queue's watch (inotify) and reads the store",
      "floor: the same append, inotify and process hop with no fisk-ai code (fs.watch, a sync read, a pipe), in turn with each record",
    ],
  );
}

/** Opens `count` followers of `runId` from seq 0, each once it has had the run's records so far; returns their streams. */
async function follow(server: ServeProcess, runId: string, count: number, signal: AbortSignal): Promise<AsyncGenerator<SessionEvent>[]> {
  const lastSeq = (await server.client.session(runId)).session.lastSeq;
  const streams: AsyncGenerator<SessionEvent>[] = [];
  for (let start = 0; start < count; start += 100) {
    const batch = Array.from({ length: Math.min(100, count - start) }, () => server.client.events(runId, 0, signal));
    await Promise.all(batch.map(async (events) => void (await waitSeq(events, lastSeq))));
    streams.push(...batch);
  }
  return streams;
}

async function waitSeq(events: AsyncGenerator<SessionEvent>, seq: number): Promise<void> {
  while ((await nextRecord(events)) < seq);
}

/** (c) serve's RSS per follower of a run being appended to, then per idle follower, and its CPU while they idle. */
async function perConnection(ws: PoolWorkspace, server: ServeProcess): Promise<void> {
  const pid = server.run.child.pid as number;
  const rows: string[][] = [];
  const measure = async (label: string, count: number, open: (signal: AbortSignal) => Promise<void>) => {
    const before = await steadyRss(pid);
    const stop = new AbortController();
    await open(stop.signal);
    const during = await steadyRss(pid);
    const cpuFrom = cpuMsOf(pid);
    const quietFrom = performance.now();
    await sleep(5000);
    const cpuShare = (cpuMsOf(pid) - cpuFrom) / (performance.now() - quietFrom);
    const settled = await steadyRss(pid);
    const open_ = await metric(server.client, "fisk_sse_clients");
    stop.abort();
    await waitFor(async () => (await metric(server.client, "fisk_sse_clients")) === 0, "the streams to close");
    const perKb = (settled - before) / count / 1024;
    rows.push([
      label,
      formatCount(open_),
      (before / 1024 / 1024).toFixed(1),
      (during / 1024 / 1024).toFixed(1),
      (settled / 1024 / 1024).toFixed(1),
      perKb.toFixed(1),
      `${(cpuShare * 100).toFixed(1)}%`,
      perKb < GOAL.perConnectionKb ? "met" : "MISSED",
    ]);
  };
  const active = await appender(ws, 11);
  await measure(`${followers} followers of one run, ${appends} records appended`, followers, async (signal) => {
    const streams = await follow(server, active.runId, followers, signal);
    for (let index = 0; index < appends; index++) await active.append();
    const seq = (await server.client.session(active.runId)).session.lastSeq;
    await Promise.all(streams.map((events) => waitSeq(events, seq)));
  });
  await active.close();
  const quiet = await appender(ws, 13);
  await quiet.close();
  await measure(`${idle} idle followers of a queued run`, idle, async (signal) => void (await follow(server, quiet.runId, idle, signal)));
  printTable(
    "(c) serve's memory per SSE connection",
    ["connections", "open", "RSS before MB", "with them MB", "5 s later MB", "KB each", "CPU over the 5 s", `goal: under ${GOAL.perConnectionKb} KB`],
    rows,
    [
      "RSS: the median of five readings 200 ms apart, before the connections, once they are open (and the records sent), and after 5 s",
      "  with them open and nothing appended; KB each: (5 s later - before) / connections; CPU: serve's user + system time over those 5 s",
    ],
  );
}

/** (d) Every session over HTTP, page by page, against `session ls --json`. */
async function sessionList(): Promise<void> {
  const ws = poolWorkspace(join(root, "list"));
  const dir = join(root, "list-state");
  mkdirSync(dir);
  const written = writeSessions(dir, sessionCount, 8 * 1024);
  const server = await served(ws, ["--workers", "0", "--state-dir", dir]);
  /** Every session over HTTP, `limit` a page, through the cursor. */
  const paged = (limit: number) => async () => {
    let count = 0;
    const { ms } = await timed(async () => {
      let cursor: string | undefined;
      do {
        const page = await server.client.sessions({ limit: String(limit), ...(cursor === undefined ? {} : { cursor }) });
        count += page.sessions.length;
        cursor = page.next;
      } while (cursor !== undefined);
    });
    if (count !== sessionCount) throw new Error(`HTTP listed ${count} sessions`);
    return ms;
  };
  const sides = {
    onePage: paged(sessionCount),
    pages: paged(1000),
    cli: async () => {
      const { ms, value } = await timed(() => runCli(["session", "ls", "--json", "--state-dir", dir], { cwd: ws.dir, env: ws.env }));
      const listed = (JSON.parse(value.stdout) as unknown[]).length;
      if (value.code !== 0 || listed !== sessionCount) throw new Error(`session ls listed ${listed}: ${value.stderr}`);
      return ms;
    },
  };
  const results = await interleave(sides, rounds, 1);
  const cliMs = median(results.cli);
  const row = (side: string, samples: number[]) => {
    const ms = median(samples);
    return [side, formatMs(ms), goalRatio(ms / cliMs, ms / cliMs <= GOAL.listRatio)];
  };
  printTable(
    `(d) ${formatCount(sessionCount)} sessions of about 8 KB (${(written.bytes / 1024 / 1024).toFixed(0)} MB), median of ${rounds} interleaved rounds`,
    ["side", "ms", `vs session ls --json (goal ${GOAL.listRatio}x)`],
    [
      row(`GET /v1/sessions?limit=${sessionCount}: every session in one page, as session ls --json gives them`, results.onePage),
      row(`GET /v1/sessions?limit=1000, page by page through the cursor (${Math.ceil(sessionCount / 1000)} requests)`, results.pages),
      ["fisk-ai session ls --json (one process, every session)", formatMs(cliMs), "1x"],
    ],
    [
      "every side lists every session; each HTTP page lists the store's summaries (its summary cache) again",
      "the CLI's figure includes its start (node and the bundle); the HTTP client is this process",
    ],
  );
}

try {
  await runOverHttp();
  const ws = poolWorkspace(join(root, "streams"));
  const server = await served(ws, ["--workers", "0"]);
  await appendToEvent(ws, server);
  await perConnection(ws, server);
  await sessionList();
} finally {
  for (const server of servers) {
    server.run.child.kill("SIGKILL");
    await server.run.done;
  }
  rmSync(root, { recursive: true, force: true });
}
