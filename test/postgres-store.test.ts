// covers: src/backends/postgres/postgres-store.ts, src/backends/postgres/journal-writer.ts, src/backends/postgres/run-holds.ts, src/backends/postgres/schema.ts, src/backends/postgres/connection.ts
// The Postgres backend against a real server (a cluster this file starts): the store
// conformance suite, then what only this backend has (its schema, its holds).
import { describe } from "node:test";
import pg from "pg";
import { runStoreConformance } from "../src/conformance/index.js";
import { connectPostgresStore, type PostgresStore } from "../src/backends/postgres/postgres-store.js";
import { startPostgres, type PostgresServer } from "./helpers/postgres-server.js";
import { skipWithout } from "./helpers/programs.js";

const skip = skipWithout("postgres");

let server: PostgresServer;
let schemas = 0;

function storeIn(schema: string): Promise<PostgresStore> {
  return connectPostgresStore({ backend: "postgres", url: `${server.url}?schema=${schema}` });
}

/** Runs SQL as the superuser, outside any store. */
async function sql(text: string, values: unknown[] = []): Promise<void> {
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  try {
    await client.query(text, values);
  } finally {
    await client.end();
  }
}

describe("postgres store conformance", { skip }, () => {
  runStoreConformance("postgres", {
    capabilities: { exclusiveOpen: true },
    setup: async () => {
      server = await startPostgres();
    },
    makeStore: () => storeIn(`conformance_${++schemas}`),
    sameStorage: (store) => storeIn((store as PostgresStore).schema),
    plantRaw: async (store, runId, lines) => {
      const s = `"${(store as PostgresStore).schema}"`;
      // A row without a summary, as a run written by hand: the store reads its records for it.
      await sql(
        `WITH run AS (INSERT INTO ${s}.runs (run_id, last_seq, summary) VALUES ($1, $2, NULL))
          INSERT INTO ${s}.records (run_id, seq, line) SELECT $1, seq, line FROM unnest($3::integer[], $4::bytea[]) AS r(seq, line)`,
        [runId, lines.length, lines.map((_, index) => index + 1), lines.map((line) => Buffer.from(line.replace(/\n$/, "")))],
      );
    },
    failingWrites: async (failing) => {
      const store = await storeIn(`conformance_${++schemas}`);
      const appendRows = store.appendRows.bind(store);
      // A server that does not take the statement, as one gone away does not.
      store.appendRows = async (...args) => {
        if (failing()) throw new Error("Connection terminated unexpectedly");
        await appendRows(...args);
      };
      return store;
    },
    takeOver: async (store, runId, seq, line) => {
      await sql(`INSERT INTO "${(store as PostgresStore).schema}".records (run_id, seq, line) VALUES ($1, $2, $3)`, [
        runId,
        seq,
        Buffer.from(line.replace(/\n$/, "")),
      ]);
    },
    teardown: async () => {
      await server.stop();
    },
  });
});
