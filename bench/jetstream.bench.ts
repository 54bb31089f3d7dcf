// Benchmark of the JetStream backend against the file backend: `npm run bench:jetstream`.
// A real nats-server (JetStream, file storage in a temporary directory) on a loopback
// port, the sides interleaved so drift hits both alike, medians over rounds. Loopback
// hides the network a real deployment has: JetStream figures here are its floor.
import { performance } from "node:perf_hooks";
import type { Store } from "../src/index.js";
import { sideBySideStores } from "./side-by-side-stores.js";
import { formatCount, formatMs, formatRatio, goalRatio, machineLine, printTable } from "./report.js";
import { RunGenerator } from "./run-records.js";
import { interleave, median } from "./stats.js";
import { appendRound, fillRuns, SMALL_RECORDS } from "./store-rounds.js";

const COMMAND = "npm run bench:jetstream";
const APPEND = { rounds: 5, appends: 200 };
/** Listings at each size, the runs added to reach the next; the goal is JetStream within 2x of files (issue 23). */
const LIST = { rounds: 5, sizes: [1000, 10_000], recordsPerRun: 6, goal: 2 };
/** The lease TTL of the stream the bench makes (initRunStream's default). */
const LEASE_TTL_MS = 10_000;

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
