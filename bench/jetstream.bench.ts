// Benchmark of the JetStream backend against the file backend: `npm run bench:jetstream`.
// A real nats-server (JetStream, file storage in a temporary directory) on a loopback
// port, the sides interleaved so drift hits both alike, medians over rounds. Loopback
// hides the network a real deployment has: JetStream figures here are its floor.
import { performance } from "node:perf_hooks";
import type { Store } from "../src/index.js";
import type { RecordEntry } from "../src/journal.js";
import { sideBySideStores } from "./side-by-side-stores.js";
import { formatCount, formatMs, formatRatio, goalRatio, machineLine, printTable } from "./report.js";
import { metaFor, RunGenerator, type RunShape } from "./run-records.js";
import { interleave, median, percentile } from "./stats.js";

const COMMAND = "npm run bench:jetstream";
const APPEND = { rounds: 5, appends: 200 };
/** Listings at each size, the runs added to reach the next; the goal is JetStream within 2x of files (issue 23). */
const LIST = { rounds: 5, sizes: [1000, 10_000], recordsPerRun: 6, goal: 2 };
/** The lease TTL of the stream the bench makes (initRunStream's default). */
const LEASE_TTL_MS = 10_000;
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

/** Runs `from`..`to - 1` of a few records each, written a few at a time. */
async function fillRuns(store: Store, from: number, to: number, records: number): Promise<void> {
  const generator = new RunGenerator(SMALL_RECORDS, 7);
  const entries = generator.entries(records - 1);
  for (let start = from; start < to; start += 16) {
    await Promise.all(
      Array.from({ length: Math.min(16, to - start) }, async (_, offset) => {
        const runId = `list-${start + offset}`;
        const journal = await store.create(runId, metaFor(runId));
        for (let index = 0; index < entries.length; index++) await journal.append(index + 2, entries[index] as RecordEntry);
        await journal.close();
      }),
    );
  }
}

async function main(): Promise<void> {
  const { scratch, stores, close } = await sideBySideStores("jetstream", "BENCH");
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

    const rows: string[][] = [];
    let filled = 0;
    for (const size of LIST.sizes) {
      for (const store of Object.values(stores)) await fillRuns(store, filled, size, LIST.recordsPerRun);
      filled = size;
      // A released lease leaves a marker in the lease bucket until the bucket's TTL passes; a
      // listing reads them all. Listed once they are gone, as they are for any run closed
      // longer ago than lease_ttl (10 s by default).
      await new Promise((resolve) => setTimeout(resolve, LEASE_TTL_MS + 1000));
      const timedList = (store: Store) => async () => {
        const started = performance.now();
        const listed = await store.list();
        if (listed.length < size) throw new Error(`listed ${listed.length} runs of ${size}`);
        return performance.now() - started;
      };
      const lists = await interleave({ file: timedList(stores.file), jetstream: timedList(stores.jetstream) }, LIST.rounds, 1);
      const ratio = median(lists.jetstream) / median(lists.file);
      rows.push([formatCount(size), formatMs(median(lists.file)), formatMs(median(lists.jetstream)), goalRatio(ratio, ratio <= LIST.goal)]);
    }
    printTable(
      `session ls (store.list()) over runs of ${LIST.recordsPerRun} records (plus the append runs), median of ${LIST.rounds} rounds`,
      ["runs", "file ms", "jetstream ms", `jetstream / file (goal <= ${LIST.goal}x)`],
      rows,
      [
        "file: the summary cache checked against each journal's size and mtime; jetstream: the summaries bucket read with one consumer, checked against the stream's message count",
        `each size listed ${(LEASE_TTL_MS + 1000) / 1000} s after its runs were written, once their released leases have expired from the lease bucket`,
      ],
    );
  } finally {
    await close();
  }
}

await main();
