// covers: src/backends/postgres/postgres-queue.ts, src/backends/postgres/notifications.ts, src/backends/postgres/schema.ts, src/backends/postgres/connection.ts
// The Postgres queue passes the queue conformance suite, over a Postgres store on a real
// server (a cluster this file starts); its bad-entry cases plant rows with SQL, as anyone
// with write access to the queue's tables could.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { runQueueConformance, type PlantAt, type PlantedBad, type QueueUnderTest } from "../src/conformance/index.js";
import { metaPayload } from "../src/conformance/record-builders.js";
import { QUARANTINE_KEPT_BYTES, type QuarantinedEntry } from "../src/queue/quarantine.js";
import { encodeEntry, QUEUE_ENTRY_MAX_BYTES, type QueuedRun } from "../src/queue/run-queue.js";
import { PostgresQueue } from "../src/backends/postgres/postgres-queue.js";
import { connectPostgresStore, type PostgresStore } from "../src/backends/postgres/postgres-store.js";
import { ensureSchema, SCHEMA_VERSION } from "../src/backends/postgres/schema.js";
import { WORKER_DEFAULTS } from "../src/pool/worker.js";
import { eventually } from "./helpers/eventually.js";
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

/** An entry of `runId`, as a user's submit queues it. */
function entryOf(runId: string, followUp?: string): QueuedRun {
  const meta = metaPayload(runId);
  return {
    runId,
    queued: new Date().toISOString(),
    fingerprint: meta.fingerprint,
    version: meta.version,
    afterSeq: 1,
    state: "queued",
    ...(followUp === undefined ? {} : { followUp }),
  };
}

describe("the Postgres queue's own tables", { skip }, () => {
  let own: PostgresServer;
  before(async () => {
    own = await startPostgres();
  });
  after(async () => {
    await own?.stop();
  });
  const open = async (schema: string) => {
    const store = await connectPostgresStore({ backend: "postgres", url: `${own.url}?schema=${schema}` });
    return { store, queue: new PostgresQueue(store) };
  };

  it("a claim holds the run it finds on a connection its looks kept ready: taking a run over opens no connection to the server", async () => {
    const submitter = await open("ready");
    const worker = await open("ready");
    const watch = worker.queue.watch();
    const backends = () => Number(own.psql("SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'").trim());
    try {
      await eventually(() => own.psql("SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'LISTEN%'").trim() === "1", "the worker's queue listening");
      assert.equal(await worker.queue.claim(() => true), undefined, "nothing queued yet");
      const meta = metaPayload("ready-run");
      await (await submitter.store.create("ready-run", meta)).close();
      await submitter.queue.enqueue(entryOf("ready-run"));
      const before = backends();
      const claim = await worker.queue.claim(() => true);
      assert.equal(claim?.entry.runId, "ready-run");
      assert.equal(backends(), before, "no connection opened by the claim");
      await claim?.finish();
    } finally {
      watch.close();
      for (const { store, queue } of [worker, submitter]) {
        await queue.close();
        await store.close();
      }
    }
  });

  it("a row kept under a hostile run id and an oversized one are set aside under safe one-line names, the big one cut short, and the good entry is listed", async () => {
    const { store, queue } = await open("hostile");
    const heard: QuarantinedEntry[] = [];
    queue.onQuarantine((entry) => heard.push(entry));
    try {
      await queue.enqueue(entryOf("good"));
      const hostile = `x\n\u001b[31m${"y".repeat(300)}`;
      const huge = Buffer.from(JSON.stringify({ ...entryOf("big"), followUp: "x".repeat(QUEUE_ENTRY_MAX_BYTES) }));
      const insert = `INSERT INTO hostile.queue (run_id, queued, state, entry) VALUES ($1, '0001-01-01T00:00:00Z', 'queued', $2)`;
      await store.queries.query(insert, [hostile, Buffer.from(encodeEntry(entryOf("good")))]);
      await store.queries.query(insert, ["big", huge]);

      assert.deepEqual(
        (await queue.list()).map((entry) => entry.runId),
        ["good"],
      );
      const setAside = await queue.quarantined();
      assert.equal(setAside.length, 2);
      assert.deepEqual(
        heard.map((entry) => entry.name).sort(),
        setAside.map((entry) => entry.name),
      );
      for (const { name, reason } of setAside) {
        assert.match(name, /^[A-Za-z0-9_-][A-Za-z0-9._-]*\.[0-9]+$/, "a name safe to print and type, holding a `.`");
        assert.ok(name.length < 80, name);
        assert.doesNotMatch(reason, /[\n\u001b]/, "one line, no escape codes");
      }
      const big = setAside.find((entry) => entry.name.startsWith("queue.big."));
      assert.match(big?.reason ?? "", new RegExp(`^${huge.byteLength} bytes, past the limit of ${QUEUE_ENTRY_MAX_BYTES}$`));
      const { rows } = await store.queries.query<{ kept: number }>("SELECT octet_length(entry) AS kept FROM hostile.quarantine WHERE name = $1", [big?.name]);
      assert.equal(rows[0]?.kept, QUARANTINE_KEPT_BYTES, "what is kept of it is cut short");
      for (const { name } of setAside) await queue.discard(name);
      assert.deepEqual(await queue.quarantined(), []);
      assert.deepEqual((await store.queries.query("SELECT run_id FROM hostile.queue")).rows, [{ run_id: "good" }]);
    } finally {
      await queue.close();
      await store.close();
    }
  });

  it("a schema at version 1 (text entries, no quarantine table) is migrated at first use, its entry and follow-up kept", async () => {
    const client = new pg.Client({ connectionString: own.url });
    await client.connect();
    await ensureSchema(client, "older", "older", 1).finally(() => client.end());
    own.psql(`INSERT INTO older.queue (run_id, queued, state, entry) VALUES ('kept', '2026-01-01T00:00:00Z', 'queued', '${encodeEntry({ ...entryOf("kept"), queued: "2026-01-01T00:00:00Z" })}');
      INSERT INTO older.queue_behind (run_id, interrupts, entry) VALUES ('kept', false, '${encodeEntry(entryOf("kept", "and then"))}');`);
    const { store, queue } = await open("older");
    try {
      assert.equal(own.psql("SELECT version FROM older.schema_version").trim(), String(SCHEMA_VERSION));
      assert.deepEqual(
        (await queue.list()).map((entry) => entry.runId),
        ["kept"],
      );
      assert.deepEqual(
        (await queue.behind("kept")).map(({ entry }) => entry.followUp),
        ["and then"],
      );
      assert.deepEqual(await queue.quarantined(), []);
    } finally {
      await queue.close();
      await store.close();
    }
  });
});
