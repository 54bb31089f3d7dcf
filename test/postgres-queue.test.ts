// covers: src/backends/postgres/postgres-queue.ts, src/backends/postgres/notifications.ts
// The Postgres queue passes the queue conformance suite, over a Postgres store on a real
// server (a cluster this file starts).
import { describe } from "node:test";
import { runQueueConformance } from "../src/conformance/index.js";
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

describe("postgres queue conformance", { skip }, () => {
  runQueueConformance("postgres", {
    setup: async () => {
      server = await startPostgres();
    },
    makeQueue: () => over(`queue_${++schemas}`),
    again: (of) => over((of.store as PostgresStore).schema),
    // The claim is the run's advisory lock, free once its holder's connection is gone: a worker takes it at its next poll.
    takeoverMs: WORKER_DEFAULTS.pollMs,
    teardown: async () => {
      await server.stop();
    },
  });
});
