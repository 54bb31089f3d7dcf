// covers: src/cli/submit/submit.ts, src/pool/submit-run.ts, src/pool/worker.ts, src/cli/queue/suspend.ts
// The worker pool on the file store against the strict fake model server, through the
// real CLI: follow-ups to a running session (--if-running queue|reject|interrupt), a
// rolling deploy (SIGTERM chaos) and a second SIGTERM, tools run where the run was
// submitted, and orphans (session ls marks them, worker --adopt takes exactly those).
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { JournalRecord } from "../src/runstate/records/records.js";
import { runCli, startCli, type CliRun } from "./helpers/cli-harness.js";
import type { FakeServer } from "./helpers/fake-anthropic-server.js";
import { FOLLOW_UP, followUpAnswer, refusedCalls, startPoolModel } from "./helpers/pool-model.js";
import { kinds, poolWorkspace, StartedWorkers, type PoolWorkspace } from "./helpers/pool-workspace.js";
import { rollingDeploy } from "./helpers/rolling-deploy.js";
import { commandsInProcess } from "./helpers/in-process-cli.js";
import { eventually } from "./helpers/eventually.js";

/** The file's first call spawned, the later ones in this process (test/helpers/in-process-cli.ts). */
const fisk = commandsInProcess(["session", "run", "submit", "queue"]);

const root = mkdtempSync(join(tmpdir(), "fisk-ai-pool-"));
let model: FakeServer;
before(async () => (model = await startPoolModel()));
after(async () => {
  await model.close();
  rmSync(root, { recursive: true, force: true });
});
let made = 0;
const fresh = (options: { gateOpen?: boolean } = {}) => poolWorkspace(join(root, `ws-${++made}`), { ...options, model });

const workers = new StartedWorkers();
after(() => workers.killAll());
const started = (worker: CliRun): CliRun => workers.add(worker);
const output = (worker: CliRun): string => workers.output(worker);
const printedLine = (worker: CliRun, line: RegExp): Promise<void> => workers.printedLine(worker, line);
const cli = (ws: PoolWorkspace, args: string[]) => fisk(args, { cwd: ws.dir, env: ws.env });
const terminals = (journal: JournalRecord[]) => journal.flatMap((record) => ("terminal" in record ? [record.terminal.reason] : []));
const texts = (journal: JournalRecord[]) =>
  journal.flatMap((record) => ("assistant" in record ? record.assistant.message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])) : []));

describe("worker pool on files, against the strict fake model", () => {
  after(() => assert.deepEqual(refusedCalls(model), [], "the strict fake refused no call"));

  it("the few lines' steps on the fake model: submit, queue ls, worker, submit --wait, an interrupting follow-up, kill -9 and kill of a worker", async () => {
    const ws = fresh();
    assert.equal((await cli(ws, ["submit", "Write two notes", "--config", "agent.yaml", "--name", "first"])).stdout, "first\n");
    assert.match((await cli(ws, ["queue", "ls"])).stdout, /^first {2}\S+Z {2}queued: waits for a worker with agent\.yaml \(model claude-sonnet-4-5, /m);
    const worker = started(ws.worker(["--config", "agent.yaml", "--concurrency", "2"]));
    await printedLine(worker, /^took first\nfinished first: completed$/m);
    const waited = await cli(ws, ["submit", "Write two notes", "--config", "agent.yaml", "--wait"]);
    assert.equal(waited.code, 0, waited.stderr);
    assert.equal(waited.stdout, "two notes written\n");
    const followed = await cli(ws, ["submit", "And now?", "--resume", "first", "--if-running", "interrupt"]);
    assert.equal(followed.code, 0, followed.stderr);
    await eventually(
      () =>
        output(worker)
          .split("\n")
          .filter((line) => line === "finished first: completed").length === 2,
      "the follow-up to run",
    );
    assert.deepEqual(texts(ws.journal("first")), ["two notes written", followUpAnswer("And now?")]);

    rmSync(join(ws.dir, "gate"));
    await cli(ws, ["submit", "Write two notes for cut", "--name", "cut"]);
    await eventually(() => ws.executions().includes("cut-one"), "the tool to start");
    worker.child.kill("SIGKILL");
    await worker.done;
    const next = started(ws.worker());
    ws.openGate();
    await printedLine(next, /^finished cut: completed$/m);
    assert.deepEqual(
      ws.executions().filter((line) => line.startsWith("cut-")),
      ["cut-one", "cut-one", "cut-two"],
      "only the cut tool ran again",
    );
    next.child.kill("SIGTERM");
    assert.equal((await next.done).code, 0);
  });

  it("--if-running queue (the default): follow-ups to a running pooled session wait behind it and run in order; reject refuses, queued or running", async () => {
    const ws = fresh({ gateOpen: false });
    assert.equal((await cli(ws, ["submit", "Write two notes", "--name", "busy"])).code, 0);
    const queuedReject = await cli(ws, ["submit", `${FOLLOW_UP} never`, "--resume", "busy", "--if-running", "reject"]);
    assert.equal(queuedReject.code, 7, queuedReject.stderr);
    assert.match(queuedReject.stderr, /^fisk-ai: session busy is queued for the worker pool: the follow-up is refused, as --if-running reject asks\n$/);
    const worker = started(ws.worker());
    await eventually(() => ws.executions().length === 1, "the run's tool to start");
    for (const which of ["first", "second"]) {
      const queued = await cli(ws, ["submit", `${FOLLOW_UP} ${which}`, "--resume", "busy"]);
      assert.equal(queued.code, 0, queued.stderr);
      assert.equal(queued.stdout, "busy\n");
    }
    const listed = (await cli(ws, ["queue", "ls"])).stdout;
    assert.match(
      listed,
      /^busy {2}\S+ {2}running: worker pid \d+.*\n {2}busy {2}\S+ {2}follow-up: waits behind busy .*\n {2}busy {2}\S+ {2}follow-up: waits behind busy /m,
    );
    const json = JSON.parse((await cli(ws, ["queue", "ls", "--json"])).stdout) as {
      runId: string;
      behind: { followUp: string; interrupts: boolean; status: string }[];
    }[];
    assert.deepEqual(
      json.map(({ runId, behind }) => [runId, behind.map(({ followUp, interrupts, status }) => [followUp, interrupts, status.split(" (")[0]])]),
      [
        [
          "busy",
          [
            [`${FOLLOW_UP} first`, false, "waits behind busy"],
            [`${FOLLOW_UP} second`, false, "waits behind busy"],
          ],
        ],
      ],
      "queue ls --json lists the follow-ups under their run, in the order they will go",
    );
    const runningReject = await cli(ws, ["submit", `${FOLLOW_UP} never`, "--resume", "busy", "--if-running", "reject"]);
    assert.equal(runningReject.code, 7, runningReject.stderr);
    assert.match(runningReject.stderr, /session busy is running \(pid \d+ on .*\): the follow-up is refused/);
    ws.openGate();
    const finished = () =>
      output(worker)
        .split("\n")
        .filter((line) => line === "finished busy: completed").length;
    await eventually(() => finished() === 3, "the run and both follow-ups to end");
    const journal = ws.journal("busy");
    assert.deepEqual(kinds(journal), [
      "meta",
      "assistant",
      "tool_result",
      "assistant",
      "tool_result",
      "assistant",
      "terminal",
      "user",
      "assistant",
      "terminal",
      "user",
      "assistant",
      "terminal",
    ]);
    assert.deepEqual(texts(journal), ["two notes written", followUpAnswer(`${FOLLOW_UP} first`), followUpAnswer(`${FOLLOW_UP} second`)]);
    assert.deepEqual(ws.executions(), ["one", "two"]);
  });

  it("queue suspend: the worker suspends the run at its next boundary and it stays suspended; a run the pool does not have is refused", async () => {
    const ws = fresh({ gateOpen: false });
    // The tool takes a while after its gate opens: the worker hears the request (it looks every 100 ms) before the tool ends.
    ws.env.TOOL_SLEEP = "2";
    await cli(ws, ["submit", "Write two notes", "--name", "halt"]);
    const worker = started(ws.worker());
    await eventually(() => ws.executions().length === 1, "the run's tool to start");
    const asked = await cli(ws, ["queue", "suspend", "halt"]);
    assert.equal(asked.code, 0, asked.stderr);
    assert.equal(asked.stdout, "asked the pool to suspend halt at its next boundary; it stays suspended until resumed or followed up\n");
    assert.match((await runCli(["queue", "ls"], { cwd: ws.dir, env: ws.env })).stdout, /^ {2}halt {2}\S+ {2}suspend: suspends halt at its next boundary\n$/m);
    ws.openGate();
    await printedLine(
      worker,
      /^finished halt: suspended \(interrupted by a follow-up, which is queued next\)\ntook halt \(a request to suspend it\)\nfinished halt: nothing left to do \(suspended on request\)$/m,
    );
    assert.deepEqual(terminals(ws.journal("halt")), ["suspended"]);
    assert.deepEqual(ws.executions(), ["one"], "the second call never ran");
    assert.deepEqual(ws.queued(), []);
    const again = await cli(ws, ["queue", "suspend", "halt"]);
    assert.notEqual(again.code, 0);
    assert.equal(again.stderr, "fisk-ai: session halt is not running: the pool has no run of it to suspend (fisk-ai queue ls lists what it runs)\n");
  });

  it("--if-running interrupt: the running run is suspended at its next boundary (journaled once), then the follow-up runs; a run outside the pool is refused", async () => {
    const ws = fresh({ gateOpen: false });
    await cli(ws, ["submit", "Write two notes", "--name", "cut"]);
    const worker = started(ws.worker());
    await eventually(() => ws.executions().length === 1, "the run's tool to start");
    const interrupting = await cli(ws, ["submit", `${FOLLOW_UP} stop there`, "--resume", "cut", "--if-running", "interrupt"]);
    assert.equal(interrupting.code, 0, interrupting.stderr);
    // Spawned: the worker looks for interrupts every 100 ms, and a process takes longer than that
    // to start, so the gate opens after the worker has seen the interrupt.
    assert.match(
      (await runCli(["queue", "ls"], { cwd: ws.dir, env: ws.env })).stdout,
      /^cut {2}.*\n {2}cut {2}\S+ {2}follow-up: interrupts cut \(suspends it at its next boundary, then runs\)\n$/,
    );
    ws.openGate();
    await printedLine(
      worker,
      /^finished cut: suspended \(interrupted by a follow-up, which is queued next\)\ntook cut \(a follow-up\)\nfinished cut: completed$/m,
    );
    const journal = ws.journal("cut");
    assert.deepEqual(kinds(journal), ["meta", "assistant", "tool_result", "terminal", "user", "assistant", "terminal"]);
    assert.deepEqual(terminals(journal), ["suspended", "completed"], "the interrupt journaled once, as a suspend");
    assert.deepEqual(texts(journal), [followUpAnswer(`${FOLLOW_UP} stop there`)]);
    assert.deepEqual(ws.executions(), ["one"], "the tool cut by nothing: it finished, and the second never ran");
    assert.deepEqual(ws.queued(), []);

    rmSync(join(ws.dir, "gate"));
    const outside = startCli(["run", "--checkpoint", "--name", "outside", "Write two notes"], { cwd: ws.dir, env: ws.env });
    await eventually(() => ws.executions().length === 2, "the plain run's tool to start");
    const refused = await cli(ws, ["submit", `${FOLLOW_UP} x`, "--resume", "outside", "--if-running", "interrupt"]);
    assert.equal(refused.code, 7, refused.stderr);
    assert.match(
      refused.stderr,
      /^fisk-ai: session outside is run outside the worker pool \(pid \d+ on .*\), which no worker can interrupt: stop it there, or submit with --if-running queue to wait for it\n$/,
    );
    ws.openGate();
    assert.equal((await outside.done).code, 0);
  });

  it("a rolling deploy (a random worker of three SIGTERMed and replaced, again and again): every run ends with its answer, each suspend journaled once, nothing repeats", async () => {
    const ws = fresh();
    ws.env.TOOL_SLEEP = "0.2";
    await rollingDeploy(
      {
        submit: async (runId) => assert.equal((await cli(ws, ["submit", `Write two notes for ${runId}`, "--name", runId])).code, 0),
        worker: () => started(ws.worker()),
        queued: async () => ws.queued(),
        journal: async (runId) => ws.journal(runId),
        executions: () => ws.executions(),
        model,
        workers,
      },
      Array.from({ length: 9 }, (_, index) => `deploy${index}`),
      4,
    );
  });

  it("a second SIGTERM aborts as a crash does: exit 130, nothing journaled after, the next worker reruns the cut tool once", async () => {
    const ws = fresh({ gateOpen: false });
    await cli(ws, ["submit", "Write two notes", "--name", "twice"]);
    const first = started(ws.worker());
    await eventually(() => ws.executions().length === 1, "the tool to start");
    first.child.kill("SIGTERM");
    await printedLine(first, /^stopping: handing back 1 run/m);
    first.child.kill("SIGTERM");
    const exit = await first.done;
    assert.equal(exit.code, 130, exit.stderr);
    assert.doesNotMatch(exit.stdout, /handed back/);
    assert.deepEqual(kinds(ws.journal("twice")), ["meta", "assistant"], "no result and no suspended journaled");
    assert.deepEqual(ws.queued(), ["twice"]);
    ws.openGate();
    const second = started(ws.worker());
    await printedLine(second, /^finished twice: completed$/m);
    assert.deepEqual(ws.executions(), ["one", "one", "two"], "only the cut call ran again, as after a SIGKILL");
    assert.deepEqual(terminals(ws.journal("twice")), ["completed"]);
  });

  it("a worker runs a run's tools in the directory it was submitted from, not its own", async () => {
    const ws = fresh();
    const project = join(ws.dir, "project");
    mkdirSync(project);
    const submitted = await fisk(["submit", "Write two notes", "--name", "there", "--config", "../agent.yaml"], { cwd: project, env: ws.env });
    assert.equal(submitted.code, 0, submitted.stderr);
    const worker = started(ws.worker());
    await printedLine(worker, /^finished there: completed$/m);
    assert.deepEqual(ws.directories(), [realpathSync(project), realpathSync(project)]);
  });

  it("session ls marks orphans (an open run --checkpoint nobody holds, not queued); worker --adopt takes exactly those", async () => {
    const ws = fresh();
    assert.equal((await cli(ws, ["run", "--checkpoint", "--name", "done", "Write two notes"])).code, 0);
    assert.equal((await cli(ws, ["submit", "Write two notes", "--name", "waiting"])).code, 0);
    rmSync(join(ws.dir, "gate"));
    const dying = startCli(["run", "--checkpoint", "--name", "orphan", "Write two notes"], { cwd: ws.dir, env: ws.env });
    await eventually(() => ws.executions().length === 3, "the run's tool to start");
    const held = await cli(ws, ["session", "ls", "--json"]);
    assert.deepEqual(
      (JSON.parse(held.stdout) as { id: string; orphaned: boolean }[]).filter((row) => row.orphaned),
      [],
      "a run whose process lives is not orphaned",
    );
    dying.child.kill("SIGKILL");
    await dying.done;
    ws.openGate();
    const listed = await cli(ws, ["session", "ls"]);
    assert.match(listed.stdout, /^orphan +open \(orphaned\) /m);
    assert.match(listed.stdout, /^waiting +open +claude/m);
    assert.match(listed.stdout, /^done +completed /m);
    const rows = JSON.parse((await cli(ws, ["session", "ls", "--json"])).stdout) as { id: string; orphaned: boolean }[];
    assert.deepEqual(Object.fromEntries(rows.map((row) => [row.id, row.orphaned])), { orphan: true, waiting: false, done: false });

    const adopting = started(ws.worker(["--adopt"]));
    await eventually(() => /finished orphan: completed/.test(output(adopting)) && /finished waiting: completed/.test(output(adopting)), "both runs to end");
    adopting.child.kill("SIGTERM");
    const took = (await adopting.done).stdout.split("\n").filter((line) => line.startsWith("took "));
    assert.deepEqual(took.sort(), ["took orphan", "took waiting"], "the orphan adopted, the queued run taken, the completed one left alone");
    assert.doesNotMatch((await cli(ws, ["session", "ls"])).stdout, /orphaned/);
    assert.deepEqual(terminals(ws.journal("orphan")), ["completed"]);
  });
});
