// Benchmark of the Postgres backend: `npm run bench:postgres`. A real cluster (Debian's
// postgresql, fsync on, as its defaults) on a loopback port, beside a file store in the
// same scratch directory; the sides interleaved so drift hits both alike, medians over
// rounds. Loopback hides the network a real deployment has: Postgres figures are its floor.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { connectPostgresStore } from "../src/backends/postgres/postgres-store.js";
import { rowLine } from "../src/backends/postgres/journal-writer.js";
import { FileStore } from "../src/backends/file/file-store.js";
import type { Store } from "../src/index.js";
import { encodeRecord, type RecordEntry } from "../src/journal.js";
import { startPostgres } from "../test/helpers/postgres-server.js";
import { formatCount, formatMs, formatRatio, goalRatio, machineLine, printTable } from "./report.js";
import { metaFor, RunGenerator } from "./run-records.js";
import { interleave, median, percentile } from "./stats.js";
import { appendRound, fillRuns, SMALL_RECORDS, type AppendRound } from "./store-rounds.js";

const COMMAND = "npm run bench:postgres";
const APPEND = { rounds: 5, appends: 200, goal: 1.3 };
const CONCURRENT = { writers: 8, appends: 100 };
const LIST = { rounds: 5, runs: 10_000, recordsPerRun: 6, goal: 2 };

/** The same lines inserted and committed one statement each, on one connection, with nothing of fisk-ai's around them. */
async function bareRound(client: pg.Client, runId: string, lines: readonly Buffer[]): Promise<AppendRound> {
  const samples: number[] = [];
  const started = performance.now();
  for (let index = 0; index < lines.length; index++) {
    const before = performance.now();
    await client.query("INSERT INTO bare.records (run_id, seq, line) VALUES ($1, $2, $3)", [runId, index + 2, lines[index]]);
    samples.push(performance.now() - before);
  }
  const totalMs = performance.now() - started;
  return { p50: percentile(samples, 50), p99: percentile(samples, 99), perSecond: (lines.length * 1000) / totalMs };
}

/** WAL flushes (pg_stat_wal.wal_sync) so far. */
async function walSyncs(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ wal_sync: string }>("SELECT wal_sync FROM pg_stat_wal");
  return Number(rows[0]?.wal_sync ?? 0);
}

/** `writers` runs appending at once, each its appends one after another: appends a second and WAL flushes an append. */
async function concurrentAppends(store: Store, client: pg.Client, tag: string, writers: number, entries: readonly RecordEntry[]) {
  const syncsBefore = await walSyncs(client);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async (_, writer) => {
      const runId = `${tag}-${writer}`;
      const journal = await store.create(runId, metaFor(runId));
      for (let index = 0; index < entries.length; index++) await journal.append(index + 2, entries[index] as RecordEntry);
      await journal.close();
    }),
  );
  const ms = performance.now() - started;
  const appends = writers * entries.length;
  return { perSecond: (appends * 1000) / ms, flushesPerAppend: ((await walSyncs(client)) - syncsBefore) / appends };
}

async function main(): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), "fisk-ai-bench-postgres-"));
  const server = await startPostgres({ durable: true });
  const file = new FileStore({ dir: join(scratch, "runs") });
  const postgres = await connectPostgresStore({ backend: "postgres", url: `${server.url}?schema=bench` });
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  try {
    console.log(`${COMMAND}: ${machineLine(scratch)}; Postgres 15 on 127.0.0.1, fsync on, synchronous_commit on`);
    await client.query("CREATE SCHEMA bare; CREATE TABLE bare.records (run_id text, seq integer, line bytea, PRIMARY KEY (run_id, seq))");
    const entries = new RunGenerator(SMALL_RECORDS, 1).entries(APPEND.appends);
    const lines = entries.map((entry, index) => rowLine(encodeRecord({ seq: index + 2, ...entry } as never)));
    let round = 0;
    const appends = await interleave(
      {
        file: () => appendRound(file, `append-${round++}`, entries),
        postgres: () => appendRound(postgres, `append-${round++}`, entries),
        bare: () => bareRound(client, `append-${round++}`, lines),
      },
      APPEND.rounds,
      1,
    );
    const row = (name: keyof typeof appends) => [
      name,
      formatMs(median(appends[name].map((r) => r.p50))),
      formatMs(median(appends[name].map((r) => r.p99))),
      formatCount(median(appends[name].map((r) => r.perSecond))),
    ];
    const p50 = (name: keyof typeof appends) => median(appends[name].map((r) => r.p50));
    const vsBare = p50("postgres") / p50("bare");
    printTable(
      `Sequential appends of 1-2 KB records, ${APPEND.appends} a round, median of ${APPEND.rounds} rounds`,
      ["side", "p50 ms", "p99 ms", "appends/s"],
      [row("bare"), row("postgres"), row("file")],
      [
        `postgres / bare INSERT + COMMIT p50: ${goalRatio(vsBare, vsBare <= APPEND.goal)} (goal <= ${APPEND.goal}x); postgres / file p50: ${formatRatio(p50("postgres") / p50("file"))}`,
        "bare: one autocommitted INSERT of the same line bytes; postgres: the journal's append (the record checked and encoded, its line and the run's summary in one statement)",
      ],
    );

    const concurrentEntries = entries.slice(0, CONCURRENT.appends);
    const one = await concurrentAppends(postgres, client, "one", 1, concurrentEntries);
    const many = await concurrentAppends(postgres, client, "many", CONCURRENT.writers, concurrentEntries);
    printTable(
      `Durable appends, ${CONCURRENT.appends} a run, 1 run against ${CONCURRENT.writers} runs appending at once`,
      ["runs at once", "appends/s", "WAL flushes an append"],
      [
        ["1", formatCount(one.perSecond), one.flushesPerAppend.toFixed(2)],
        [String(CONCURRENT.writers), formatCount(many.perSecond), many.flushesPerAppend.toFixed(2)],
      ],
      [`${CONCURRENT.writers} at once / 1: ${formatRatio(many.perSecond / one.perSecond)} the appends a second (pg_stat_wal.wal_sync counts the flushes)`],
    );

    for (const store of [file, postgres]) await fillRuns(store, 0, LIST.runs, LIST.recordsPerRun);
    const timedList = (store: Store) => async () => {
      const started = performance.now();
      const listed = await store.list();
      if (listed.length < LIST.runs) throw new Error(`listed ${listed.length} runs of ${LIST.runs}`);
      return performance.now() - started;
    };
    const lists = await interleave({ file: timedList(file), postgres: timedList(postgres) }, LIST.rounds, 1);
    const ratio = median(lists.postgres) / median(lists.file);
    printTable(
      `session ls (store.list()) over ${formatCount(LIST.runs)} runs of ${LIST.recordsPerRun} records (plus the append runs), median of ${LIST.rounds} rounds`,
      ["runs", "file ms", "postgres ms", `postgres / file (goal <= ${LIST.goal}x)`],
      [[formatCount(LIST.runs), formatMs(median(lists.file)), formatMs(median(lists.postgres)), goalRatio(ratio, ratio <= LIST.goal)]],
      ["file: the summary cache checked against each journal's size and mtime; postgres: one query of the runs' summary rows and one of the live holders"],
    );
  } finally {
    await client.end();
    await file.close();
    await postgres.close();
    await server.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
