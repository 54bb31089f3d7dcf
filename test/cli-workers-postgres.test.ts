// covers: src/backends/postgres/postgres-queue.ts, src/backends/postgres/run-holds.ts
// The worker pool on Postgres, through the real CLI on a real server (a cluster this file
// starts): a worker SIGKILLed mid-tool loses its run to another as soon as the server sees
// its connection gone (the run's advisory lock goes with it), and a chaos run (three workers,
// a random one SIGKILLed and replaced again and again) in which every run ends with each model
// turn journaled once and at most one tool run again per kill, the bound files and JetStream keep.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { JournalRecord } from "../src/runstate/records/records.js";
import type { CliRun } from "./helpers/cli-harness.js";
import { eventually } from "./helpers/eventually.js";
import { commandsInProcess } from "./helpers/in-process-cli.js";
import { kinds, poolChaos, poolWorkspace, StartedWorkers, type PoolWorkspace } from "./helpers/pool-workspace.js";
import { startPostgres, type PostgresServer } from "./helpers/postgres-server.js";
import { skipWithout } from "./helpers/programs.js";

const cli = commandsInProcess(["submit"]);

const root = mkdtempSync(join(tmpdir(), "fisk-ai-workers-pg-"));
after(() => rmSync(root, { recursive: true, force: true }));
const workers = new StartedWorkers();
after(() => workers.killAll());

const MODEL_TURNS = ["meta", "assistant", "tool_result", "assistant", "tool_result", "assistant"];

describe("worker pool on Postgres", { skip: skipWithout("postgres") }, () => {
  let server: PostgresServer;
  let made = 0;
  before(async () => {
    server = await startPostgres();
  });
  after(() => server?.stop());

  /** A pool workspace whose sessions and queue are in a schema of their own. */
  function fresh(options: { gateOpen?: boolean } = {}) {
    const schema = `pool_${++made}`;
    const ws: PoolWorkspace = poolWorkspace(join(root, schema), options);
    const store = ["--store", `${server.url}?schema=${schema}`];
    const rows = (sql: string) =>
      server
        .psql(sql)
        .split("\n")
        .filter((line) => line !== "");
    return {
      ...ws,
      submit: (runId: string) => cli(["submit", "Write two notes", "--name", runId, ...store], { cwd: ws.dir, env: ws.env }),
      worker: (): CliRun => workers.add(ws.worker(store)),
      journal: (runId: string): JournalRecord[] =>
        rows(`SELECT convert_from(line, 'UTF8') FROM ${schema}.records WHERE run_id = '${runId}' ORDER BY seq`).map(
          (line) => JSON.parse(line) as JournalRecord,
        ),
      queued: () => rows(`SELECT run_id FROM ${schema}.queue`),
    };
  }

  it("a worker killed mid-tool loses its run to another once the server sees it gone: the cut tool runs once more, no model call again", async () => {
    const ws = fresh({ gateOpen: false });
    assert.equal((await ws.submit("taken")).code, 0);
    const first = ws.worker();
    await eventually(() => ws.executions().length === 1, "the first worker's tool to start");
    const second = ws.worker();
    await workers.printedLine(second, /taking runs/);
    first.child.kill("SIGKILL");
    await first.done;
    ws.openGate();
    await workers.printedLine(second, /^finished taken: completed$/m);
    assert.deepEqual(ws.executions(), ["one", "one", "two"], "only the call whose result never reached the journal ran again");
    assert.deepEqual(kinds(ws.journal("taken")), [...MODEL_TURNS, "terminal"], "each model turn journaled once");
    assert.deepEqual(ws.queued(), []);
    second.child.kill("SIGTERM");
    await second.done;
  });

  it("chaos: three workers, a random one SIGKILLed and replaced again and again: every run ends, at most one repeat per kill", async () => {
    const ws = fresh();
    const runs = Array.from({ length: 6 }, (_, index) => `chaos${index}`);
    for (const runId of runs) assert.equal((await ws.submit(runId)).code, 0);
    await poolChaos({ ...ws, startWorker: ws.worker }, runs);
  });
});
