// covers: src/backends/postgres/postgres-queue.ts, src/backends/postgres/notifications.ts
// The Postgres queue passes the queue conformance suite, over a Postgres store on a real
// server (a cluster this file starts); its bad-entry cases plant rows with SQL, as anyone
// with write access to the queue's tables could.
import { describe } from "node:test";
import { runQueueConformance, type PlantAt, type PlantedBad, type QueueUnderTest } from "../src/conformance/index.js";
import { PostgresQueue } from "../src/backends/postgres/postgres-queue.js";
import { connectPostgresStore, type PostgresStore } from "../src/backends/postgres/postgres-store.js";
import { WORKER_DEFAULTS } from "../src/pool/worker.js";
import { startPostgres, type PostgresServer } from "./helpers/postgres-server.js";
import { skipWithout } from "./helpers/programs.js";

const skip = skipWithout("postgres");

let server: PostgresServer;
let schemas = 0;

async function over(schema: string) {
  const store = await connectPostgresStore({ backend: "postgres", url: `${server.url}?schema=${schema}` });
  return { store, queue: new PostgresQueue(store) };
}

/** The queued time of a planted entry: older than every run, so a claim meets it first. */
const LONG_AGO = "0001-01-01T00:00:00Z";

/** The conformance suite's hook: `bad` as the row of `at.runId`'s entry, or of a follow-up behind it; a table holds no symlink, FIFO or directory. */
async function plant(of: QueueUnderTest, at: PlantAt, bad: PlantedBad): Promise<boolean> {
  if (typeof bad === "string") return false;
  const store = of.store as PostgresStore;
  const s = `"${store.schema}"`;
  const bytes = Buffer.from(bad);
  await (at.behind
    ? store.queries.query(`INSERT INTO ${s}.queue_behind (run_id, interrupts, entry) VALUES ($1, false, $2)`, [at.runId, bytes])
    : store.queries.query(`INSERT INTO ${s}.queue (run_id, queued, state, entry) VALUES ($1, $2, 'queued', $3)`, [at.runId, LONG_AGO, bytes]));
  return true;
}

describe("postgres queue conformance", { skip }, () => {
  runQueueConformance("postgres", {
    setup: async () => {
      server = await startPostgres();
    },
    makeQueue: () => over(`queue_${++schemas}`),
    again: (of) => over((of.store as PostgresStore).schema),
    // The claim is the run's advisory lock, free once its holder's connection is gone: a worker takes it at its next poll.
    takeoverMs: WORKER_DEFAULTS.pollMs,
    plant,
    teardown: async () => {
      await server.stop();
    },
  });
});
