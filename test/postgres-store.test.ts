// covers: src/backends/postgres/postgres-store.ts, src/backends/postgres/journal-writer.ts, src/backends/postgres/run-holds.ts, src/backends/postgres/schema.ts, src/backends/postgres/connection.ts
// The Postgres backend against a real server (a cluster this file starts): the store
// conformance suite, then what only this backend has (its schema, its holds).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { runStoreConformance } from "../src/conformance/index.js";
import { metaPayload, terminalEntry } from "../src/conformance/record-builders.js";
import { isRunStateError } from "../src/index.js";
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

describe("postgres schema and roles", { skip }, () => {
  let own: PostgresServer;
  before(async () => {
    own = await startPostgres();
  });
  after(() => own?.stop());

  it("a role that may not make tables is told to have an owner make them; after store init and the grants docs/backends.md lists, it keeps runs", async () => {
    own.psql("CREATE ROLE agent LOGIN; REVOKE CREATE ON DATABASE postgres FROM PUBLIC; REVOKE CREATE ON SCHEMA public FROM PUBLIC");
    const url = `${own.urlFor("postgres", "agent")}?schema=shared`;
    await assert.rejects(connectPostgresStore({ backend: "postgres", url }), (error: unknown) => {
      assert.ok(isRunStateError(error, "ERR_STORE_CONFIG"), String(error));
      assert.match(
        error.message,
        /schema shared has no fisk-ai tables at version 2 and this role may not make them: have an owner of the database make them once \(fisk-ai store init\)$/,
      );
      return true;
    });
    assert.equal(own.psql("SELECT count(*) FROM pg_namespace WHERE nspname = 'shared'").trim(), "0", "nothing half made");
    const { initPostgresSchema } = await import("../src/backends/postgres/postgres-backend.js");
    assert.deepEqual(await initPostgresSchema(`${own.url}?schema=shared`), {
      where: `postgres://postgres@127.0.0.1:${own.port}/postgres schema shared`,
      found: 0,
      version: 2,
    });
    own.psql(
      "GRANT USAGE ON SCHEMA shared TO agent; GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA shared TO agent; GRANT USAGE ON ALL SEQUENCES IN SCHEMA shared TO agent",
    );
    const store = await connectPostgresStore({ backend: "postgres", url });
    try {
      const journal = await store.create("as-agent", metaPayload("as-agent"));
      await journal.append(2, terminalEntry("completed"));
      await journal.close();
      assert.equal((await store.list()).find((summary) => summary.runId === "as-agent")?.status, "completed");
      const queue = store.runQueue();
      const meta = metaPayload("queued-as-agent");
      await (await store.create("queued-as-agent", meta)).close();
      const entry = { runId: "queued-as-agent", fingerprint: meta.fingerprint, version: meta.version, afterSeq: 1, state: "queued" } as const;
      await queue.enqueue({ ...entry, queued: new Date().toISOString() });
      await queue.enqueue({ ...entry, queued: new Date().toISOString(), followUp: "more" });
      const claim = await queue.claim(() => true);
      assert.equal(claim?.entry.runId, "queued-as-agent");
      await claim?.finish();
      await queue.close();
    } finally {
      await store.close();
    }
  });
});
