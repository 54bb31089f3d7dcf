// covers: src/backends/postgres/postgres-store.ts, src/backends/postgres/run-holds.ts, src/backends/postgres/connection.ts, src/backends/postgres/postgres-queue.ts
// The Postgres backend when the server fails it, on a real server (a cluster this file
// starts): a crash and restart mid-run, a holder's connection cut by the server
// (pg_terminate_backend), a read-only database, a full disk (a tablespace on a small tmpfs),
// a statement timeout. Each time: one clear error, nothing half written, and the run goes on
// once the database is back.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { assistantEntry, metaPayload, terminalEntry, toolResultEntry } from "../src/conformance/record-builders.js";
import { isRunStateError, type Journal, type RunStateErrorCode } from "../src/index.js";
import { connectPostgresStore, type PostgresStore } from "../src/backends/postgres/postgres-store.js";
import { startPostgres, type PostgresServer } from "./helpers/postgres-server.js";
import { clusterUser, skipWithout } from "./helpers/programs.js";
import { mountSmallDisk, smallDiskMissing } from "./helpers/small-disk.js";

async function rejectsWith(promise: Promise<unknown>, code: RunStateErrorCode, message?: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(isRunStateError(error, code), `expected ${code}, got ${String(error)}`);
    if (message !== undefined) assert.match(error.message, message);
    return true;
  });
}

describe("postgres faults", { skip: skipWithout("postgres") }, () => {
  let server: PostgresServer;
  const stores: PostgresStore[] = [];
  const open = async (schema: string, extra = "") => {
    const store = await connectPostgresStore({ backend: "postgres", url: `${server.url}?schema=${schema}${extra}` });
    stores.push(store);
    return store;
  };
  const seqsOf = (schema: string, runId: string) =>
    server.psql(`SELECT seq FROM ${schema}.records WHERE run_id = '${runId}' ORDER BY seq`).trim().split("\n").map(Number);
  before(async () => {
    server = await startPostgres();
  });
  after(async () => {
    for (const store of stores) await store.close();
    await server.stop();
  });

  it("a crash of the server mid-run: the next append is ERR_IO, nothing half written; after the restart the run reopens where it was and ends", async () => {
    const store = await open("crash");
    const journal = await store.create("crashed", metaPayload("crashed"));
    await journal.append(2, assistantEntry(0, "", ["t1"]));
    await server.crash();
    await rejectsWith(
      journal.append(3, toolResultEntry("t1")),
      "ERR_IO",
      /^writing the journal of session crashed failed \(.+\): close it and open the session again$/,
    );
    await journal.close();
    await server.restart();
    const reopened = await store.open("crashed");
    assert.equal(reopened.lastSeq, 2, "the acknowledged records survived the crash, the failed one is not there");
    await reopened.append(3, toolResultEntry("t1"));
    await reopened.append(4, terminalEntry("completed"));
    await reopened.close();
    assert.equal((await store.summarize("crashed")).status, "completed");
    assert.deepEqual(seqsOf("crash", "crashed"), [1, 2, 3, 4]);
  });

  it("a holder cut off by the server (pg_terminate_backend): its lost signal aborts, another takes the run at once, and the old holder cannot append", async () => {
    const store = await open("cut");
    const other = await open("cut");
    const held = await store.openHeld((await store.create("cut-off", metaPayload("cut-off")).then((j) => j.close()), "cut-off"));
    const pid = server.psql("SELECT backend_pid FROM cut.holders WHERE run_id = 'cut-off'").trim();
    await rejectsWith(other.open("cut-off"), "ERR_LOCKED", new RegExp(`by pid ${process.pid} on `));
    assert.equal(server.psql(`SELECT pg_terminate_backend(${pid})`).trim(), "t");
    for (let tries = 0; !held.lost.aborted && tries < 100; tries++) await sleep(20);
    assert.ok(held.lost.aborted, "the holder heard that it lost the run");
    const taker = await other.open("cut-off");
    await taker.append(2, assistantEntry(0, "the taker's"));
    await rejectsWith(held.journal.append(2, assistantEntry(0, "the old holder's")), "ERR_IO", /the connection holding the session was lost/);
    await held.journal.close();
    await taker.close();
    const records = await other.load("cut-off");
    assert.equal(records.lastSeq, 2);
    assert.match(server.psql("SELECT convert_from(line, 'UTF8') FROM cut.records WHERE run_id = 'cut-off' AND seq = 2"), /the taker's/);
  });

  it("a read-only database: an append is ERR_IO saying so, nothing written; once writable again the run reopens and goes on", async () => {
    const store = await open("readonly");
    const journal = await store.create("frozen", metaPayload("frozen"));
    server.psql("ALTER SYSTEM SET default_transaction_read_only = on");
    server.psql("SELECT pg_reload_conf()");
    try {
      // A reload reaches a backend between statements: wait until a new one sees it.
      for (let tries = 0; server.psql("SHOW default_transaction_read_only").trim() !== "on" && tries < 100; tries++) await sleep(20);
      await sleep(100);
      await rejectsWith(journal.append(2, assistantEntry(0, "refused")), "ERR_IO", /the database is read-only/);
      await journal.close();
      await rejectsWith(store.open("frozen"), "ERR_IO", /the database is read-only/);
    } finally {
      server.psql("ALTER SYSTEM RESET default_transaction_read_only");
      server.psql("SELECT pg_reload_conf()");
    }
    await sleep(200);
    const reopened = await store.open("frozen");
    assert.equal(reopened.lastSeq, 1);
    await reopened.append(2, terminalEntry("completed"));
    await reopened.close();
    assert.deepEqual(seqsOf("readonly", "frozen"), [1, 2]);
  });

  it("a full disk (the run's tables in a tablespace on a small tmpfs): the append is ERR_IO saying so, nothing half written; once space is freed the run goes on", {
    skip: smallDiskMissing(),
  }, async () => {
    const disk = mountSmallDisk(4 << 20, clusterUser());
    let journal: Journal | undefined;
    try {
      server.psql(`CREATE TABLESPACE small LOCATION '${disk.dir}'`);
      const store = await open("nospace", "&options=-c%20default_tablespace%3Dsmall");
      assert.equal(server.psql("SELECT DISTINCT tablespace FROM pg_tables WHERE schemaname = 'nospace'").trim(), "small");
      journal = await store.create("filled", metaPayload("filled"));
      await journal.append(2, assistantEntry(0, "", ["t1"]));
      disk.fill();
      let acknowledged = 2;
      // Rows fill the pages the tables have; the first that needs a new page meets the full disk.
      for (; acknowledged < 200; acknowledged++) {
        const failed = await journal.append(acknowledged + 1, toolResultEntry("t1", randomBytes(3000).toString("base64"))).then(
          () => undefined,
          (error: unknown) => error,
        );
        if (failed === undefined) continue;
        assert.ok(isRunStateError(failed, "ERR_IO"), String(failed));
        assert.match(
          failed.message,
          /^writing the journal of session filled failed \(the database server is out of disk space\): close it and open the session again$/,
        );
        break;
      }
      assert.ok(acknowledged < 200, "an append met the full disk");
      await journal.close();
      const acknowledgedSeqs = Array.from({ length: acknowledged }, (_, index) => index + 1);
      assert.deepEqual(seqsOf("nospace", "filled"), acknowledgedSeqs, "every acknowledged record and nothing of the failed one");
      disk.free();
      const reopened = await store.open("filled");
      assert.equal(reopened.lastSeq, acknowledged);
      await reopened.append(acknowledged + 1, toolResultEntry("t1"));
      await reopened.append(acknowledged + 2, terminalEntry("completed"));
      await reopened.close();
      assert.equal((await store.summarize("filled")).status, "completed");
      assert.deepEqual(seqsOf("nospace", "filled"), [...acknowledgedSeqs, acknowledged + 1, acknowledged + 2]);
      server.psql("DROP SCHEMA nospace CASCADE");
      server.psql("DROP TABLESPACE small");
    } finally {
      // A failed assertion must not leave the journal's connection held: the store's close would wait on it.
      await journal?.close().catch(() => undefined);
      disk.unmount();
    }
  });

  it("a statement timeout: the append is ERR_IO naming it, nothing half written, and the run goes on once the lock that held it is gone", async () => {
    const store = await open("timeout", "&options=-c%20statement_timeout%3D300");
    const journal = await store.create("slow", metaPayload("slow"));
    await journal.append(2, assistantEntry(0, "", ["t1", "t2"]));
    const blocker = new pg.Client({ connectionString: server.url });
    await blocker.connect();
    try {
      await blocker.query("BEGIN");
      await blocker.query("LOCK TABLE timeout.records IN ACCESS EXCLUSIVE MODE");
      const together = [3, 4].map((seq) => journal.append(seq, toolResultEntry(`t${seq - 2}`)));
      for (const append of together) await rejectsWith(append, "ERR_IO", /ran past its statement_timeout/);
    } finally {
      await blocker.query("ROLLBACK");
      await blocker.end();
    }
    await journal.close();
    assert.deepEqual(seqsOf("timeout", "slow"), [1, 2], "neither record of the batch was kept");
    const reopened = await store.open("slow");
    await reopened.append(3, toolResultEntry("t1"));
    await reopened.append(4, toolResultEntry("t2"));
    await reopened.close();
    assert.deepEqual(seqsOf("timeout", "slow"), [1, 2, 3, 4]);
  });
});
