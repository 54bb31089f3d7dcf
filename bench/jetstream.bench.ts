// Benchmark of the JetStream backend against the file backend: `npm run bench:jetstream`.
// A real nats-server (JetStream, file storage in a temporary directory) on a loopback
// port, the sides interleaved so drift hits both alike, medians over rounds. Loopback
// hides the network a real deployment has: JetStream figures here are its floor.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createStore, type RecordEntry, type Store } from "../src/index.js";
import { initRunStream } from "../src/runstate/jetstream/run-stream.js";
import { startNatsServer } from "../test/helpers/nats-server.js";
import { formatCount, formatMs, formatRatio, machineLine, printTable } from "./report.js";
import { metaFor, RunGenerator, type RunShape } from "./run-records.js";
import { interleave, median, percentile } from "./stats.js";

const COMMAND = "npm run bench:jetstream";
const APPEND = { rounds: 5, appends: 200 };
const LIST = { rounds: 3, runs: 1000, recordsPerRun: 6 };
const SMALL_RECORDS: RunShape = { outputBytes: [900, 1800], proseBytes: [400, 900], toolsPerTurn: [1, 2] };

interface AppendRound {
  p50: number;
  p99: number;
  perSecond: number;
}

/** One run of `count` appends, one after another as the loop makes them, each timed. */
async function appendRound(store: Store, runId: string, entries: readonly RecordEntry[]): Promise<AppendRound> {
  const journal = await store.create(runId, metaFor(runId));
  const samples: number[] = [];
  const started = performance.now();
  for (let index = 0; index < entries.length; index++) {
    const before = performance.now();
    await journal.append(index + 2, entries[index] as RecordEntry);
    samples.push(performance.now() - before);
  }
  const totalMs = performance.now() - started;
  await journal.close();
  return { p50: percentile(samples, 50), p99: percentile(samples, 99), perSecond: (entries.length * 1000) / totalMs };
}

/** `count` runs of a few records each, written a few at a time. */
async function fillRuns(store: Store, count: number, records: number): Promise<void> {
  const generator = new RunGenerator(SMALL_RECORDS, 7);
  const entries = generator.entries(records - 1);
  for (let start = 0; start < count; start += 16) {
    await Promise.all(
      Array.from({ length: Math.min(16, count - start) }, async (_, offset) => {
        const runId = `list-${start + offset}`;
        const journal = await store.create(runId, metaFor(runId));
        for (let index = 0; index < entries.length; index++) await journal.append(index + 2, entries[index] as RecordEntry);
        await journal.close();
      }),
    );
  }
}

async function main(): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), "fisk-ai-bench-jetstream-"));
  const server = await startNatsServer();
  const jetstream = { backend: "jetstream" as const, servers: server.url, stream: "BENCH" };
  await initRunStream(jetstream);
  const stores: Record<"file" | "jetstream", Store> = {
    file: await createStore({ backend: "file", dir: join(scratch, "runs") }),
    jetstream: await createStore(jetstream),
  };
  try {
    console.log(`${COMMAND}: ${machineLine(scratch)}; nats-server with JetStream file storage on 127.0.0.1`);
    const entries = new RunGenerator(SMALL_RECORDS, 1).entries(APPEND.appends);
    let round = 0;
    const appends = await interleave(
      {
        file: () => appendRound(stores.file, `append-${round++}`, entries),
        jetstream: () => appendRound(stores.jetstream, `append-${round++}`, entries),
      },
      APPEND.rounds,
      1,
    );
    const row = (name: "file" | "jetstream") => [
      name,
      formatMs(median(appends[name].map((r) => r.p50))),
      formatMs(median(appends[name].map((r) => r.p99))),
      formatCount(median(appends[name].map((r) => r.perSecond))),
    ];
    const ratio = median(appends.jetstream.map((r) => r.p50)) / median(appends.file.map((r) => r.p50));
    printTable(
      `Sequential appends of 1-2 KB records, ${APPEND.appends} a round, median of ${APPEND.rounds} rounds`,
      ["backend", "p50 ms", "p99 ms", "appends/s"],
      [row("file"), row("jetstream")],
      [`jetstream / file p50 latency: ${formatRatio(ratio)} (file: write + fdatasync; jetstream: publish + ack, which by default precedes the server's fsync)`],
    );

    for (const store of Object.values(stores)) await fillRuns(store, LIST.runs, LIST.recordsPerRun);
    const lists = await interleave(
      {
        file: async () => {
          const started = performance.now();
          await stores.file.list();
          return performance.now() - started;
        },
        jetstream: async () => {
          const started = performance.now();
          await stores.jetstream.list();
          return performance.now() - started;
        },
      },
      LIST.rounds,
      1,
    );
    printTable(
      `session ls over ${formatCount(LIST.runs)} runs (plus the append runs), median of ${LIST.rounds} rounds`,
      ["backend", "ms"],
      [
        ["file", formatMs(median(lists.file))],
        ["jetstream", formatMs(median(lists.jetstream))],
      ],
      [`jetstream / file: ${formatRatio(median(lists.jetstream) / median(lists.file))}`],
    );
  } finally {
    for (const store of Object.values(stores)) await store.close();
    await server.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
