// covers: src/backends/postgres/postgres-store.ts, src/backends/postgres/journal-writer.ts, src/backends/postgres/run-holds.ts, src/backends/postgres/schema.ts, src/backends/postgres/connection.ts, src/backends/postgres/summary-row.ts
// The Postgres backend against a real server (a cluster this file starts): the store
// conformance suite, then what only this backend has (its schema, its holds).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { runStoreConformance } from "../src/conformance/index.js";
import { assistantEntry, metaPayload, terminalEntry, titleEntry, toolResultEntry } from "../src/conformance/record-builders.js";
import { isRunStateError } from "../src/index.js";
import { connectPostgresStore, type PostgresStore } from "../src/backends/postgres/postgres-store.js";
import { ensureSchema } from "../src/backends/postgres/schema.js";
import { eventually } from "./helpers/eventually.js";
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
        `WITH run AS (INSERT INTO ${s}.runs (run_id, last_seq) VALUES ($1, $2))
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
        /schema shared has no fisk-ai tables at version 3 and this role may not make them: have an owner of the database make them once \(fisk-ai store init\)$/,
      );
      return true;
    });
    assert.equal(own.psql("SELECT count(*) FROM pg_namespace WHERE nspname = 'shared'").trim(), "0", "nothing half made");
    const { initPostgresSchema } = await import("../src/backends/postgres/postgres-backend.js");
    assert.deepEqual(await initPostgresSchema(`${own.url}?schema=shared`), {
      where: `postgres://postgres@127.0.0.1:${own.port}/postgres schema shared`,
      found: 0,
      version: 3,
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

describe("postgres summary rows", { skip }, () => {
  let own: PostgresServer;
  before(async () => {
    own = await startPostgres();
  });
  after(() => own?.stop());

  /** Runs `work` on a client of `own` as the superuser. */
  async function onOwn<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: own.url });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  }

  it("a schema at version 2 is migrated with its summaries; one that is not JSON, or none, is read from the records", async () => {
    const fresh = await connectPostgresStore({ backend: "postgres", url: `${own.url}?schema=fresh` });
    try {
      for (const runId of ["kept", "broken", "by-hand"]) {
        const journal = await fresh.create(runId, metaPayload(runId));
        await journal.append(2, titleEntry(`title of ${runId}`));
        await journal.append(3, assistantEntry(0, "done"));
        await journal.append(4, terminalEntry("completed"));
        await journal.close();
      }
      const expected = await fresh.list();
      await onOwn(async (client) => {
        await ensureSchema(client, "old", "old", 2);
        await client.query("INSERT INTO old.records SELECT * FROM fresh.records");
        // The summaries as version 2 kept them: the whole RunSummary as JSON, put by every append.
        for (const summary of expected) {
          const text = { kept: JSON.stringify(summary), broken: "{not json", "by-hand": null }[summary.runId];
          await client.query("INSERT INTO old.runs (run_id, last_seq, updated, summary) VALUES ($1, $2, $3, $4)", [
            summary.runId,
            summary.lastSeq,
            summary.updated,
            text,
          ]);
        }
      });
      const old = await connectPostgresStore({ backend: "postgres", url: `${own.url}?schema=old` });
      try {
        const byId = (list: typeof expected) => new Map(list.map((summary) => [summary.runId, summary]));
        assert.deepEqual(byId(await old.list()), byId(expected));
        const journal = await old.open("kept");
        await journal.append(5, titleEntry("renamed"));
        await journal.close();
        const kept = await old.summarize("kept");
        assert.equal(kept.lastSeq, 5);
        assert.equal(kept.digest?.title, "renamed");
        assert.equal(kept.digest?.bytes, (await old.readJournal("kept")).length);
      } finally {
        await old.close();
      }
      assert.equal(own.psql("SELECT version FROM old.schema_version").trim(), "3");
    } finally {
      await fresh.close();
    }
  });

  it("an append updates its run's summary row in place, many runs' rows to a page (HOT: no index entry, room on the page)", async () => {
    const store = await connectPostgresStore({ backend: "postgres", url: `${own.url}?schema=hot` });
    const runs = Array.from({ length: 24 }, (_, index) => `hot-${index}`);
    const turns = 10;
    try {
      const journals = await Promise.all(runs.map((runId) => store.create(runId, metaPayload(runId))));
      // One after the other, so that no open transaction keeps the server from reclaiming a row's old versions.
      for (let turn = 0; turn < turns; turn++) {
        for (const journal of journals) {
          await journal.append(journal.lastSeq + 1, assistantEntry(turn, `turn ${turn}`, [`toolu_${turn}`]));
          await journal.append(journal.lastSeq + 1, toolResultEntry(`toolu_${turn}`, "x".repeat(1000)));
        }
      }
      await Promise.all(journals.map((journal) => journal.close()));
      const counts = () =>
        onOwn(async (client) => {
          await client.query("SELECT pg_stat_force_next_flush()");
          const { rows } = await client.query<{ updates: string; hot: string }>(
            "SELECT n_tup_upd AS updates, n_tup_hot_upd AS hot FROM pg_stat_user_tables WHERE schemaname = 'hot' AND relname = 'runs'",
          );
          return { updates: Number(rows[0]?.updates), hot: Number(rows[0]?.hot) };
        });
      // The server counts each backend's updates once that backend reports them.
      const appends = runs.length * turns * 2;
      await eventually(async () => (await counts()).updates === appends, "every append's update counted");
      assert.deepEqual(await counts(), { updates: appends, hot: appends });
    } finally {
      await store.close();
    }
  });
});
