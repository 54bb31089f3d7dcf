// covers: src/backends/jetstream/jetstream-queue.ts, src/backends/open-backend.ts
// covers: src/backends/jetstream/run-stream.ts
// start: first
// The worker pool on NATS JetStream, through the real CLI on a real nats-server and the
// strict fake Anthropic server: submit, worker, queue ls/rm, follow-ups, approvals; a
// worker SIGKILLed mid-tool (another takes over once its lease runs out); a worker
// SIGSTOPped past its lease and woken (it appends nothing and runs nothing more); a
// rolling deploy (SIGTERMs: nothing repeats); and chaos: three workers, random SIGKILLs,
// and the nats-server itself killed and restarted.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { JetStreamQueue } from "../src/backends/jetstream/jetstream-queue.js";
import { createStore } from "../src/backends/open-backend.js";
import type { JetStreamStore } from "../src/backends/jetstream/jetstream-store.js";
import { initRunStream } from "../src/backends/jetstream/run-stream.js";
import type { JournalRecord } from "../src/runstate/records/records.js";
import { sharedKeyring } from "./helpers/signing-keys.js";
import { type runCli, startCli, type CliRun } from "./helpers/cli-harness.js";
import { startFakeAnthropic, type AnthropicReply, type FakeServer } from "./helpers/fake-anthropic-server.js";
import { startNatsServer, type NatsServer } from "./helpers/nats-server.js";
import { skipWithout } from "./helpers/programs.js";
import { POOL_API_KEY, refusedCalls, startPoolModel } from "./helpers/pool-model.js";
import { kinds, StartedWorkers, writePoolConfig } from "./helpers/pool-workspace.js";
import { rollingDeploy } from "./helpers/rolling-deploy.js";
import { commandsInProcess } from "./helpers/in-process-cli.js";
import { eventually } from "./helpers/eventually.js";

/** The file's first call spawned, the later ones in this process (test/helpers/in-process-cli.ts). */
const cli = commandsInProcess(["session", "run", "submit", "queue"]);

const API_KEY = "sk-ant-test-pool";
/**
 * The lease (and the queue's AckWait) of the tests that wait for a takeover: short, so that
 * they wait little. The other tests take the steady one, which none of them waits out: on a
 * loaded machine a short lease runs out while a worker is only slow, and another claim takes
 * the run over (rerunning its cut tool, as after a crash), which those tests do not expect.
 */
const TAKEOVER_LEASE_MS = 1500;
const STEADY_LEASE_MS = 60_000;

let nats: NatsServer;
let model: FakeServer;
/** Reads a record's message id (the writer's lease nonce and the seq) off the stream. */
let jsm: Awaited<ReturnType<typeof jetstreamManager>>;
let closeJsm: () => Promise<void>;
const root = mkdtempSync(join(tmpdir(), "fisk-ai-workers-js-"));
// Removed at the file's end, not in the suite's after: a suite skipped for want of a program runs no hook.
after(() => rmSync(root, { recursive: true, force: true }));
let made = 0;

/** The model's replies to "Write two notes …": a note, another, the answer, then a follow-up's answer. */
function turn(index: number): AnthropicReply {
  const usage = { input_tokens: 10, output_tokens: 5 };
  if (index < 2)
    return {
      content: [{ type: "tool_use", id: `toolu_${index}`, name: "note", input: { text: index === 0 ? "one" : "two" } }],
      stop_reason: "tool_use",
      usage,
    };
  return { content: [{ type: "text", text: index === 2 ? "two notes written" : "and more" }], stop_reason: "end_turn", usage };
}

/** How often the model was asked for each turn of the run whose prompt is `prompt`: [turn 0, turn 1, …]. */
function asked(prompt: string): number[] {
  const counts: number[] = [];
  for (const request of model.requests) {
    if (!request.accepted) continue;
    const messages = (request.body as { messages: { role: string; content: unknown }[] }).messages;
    if (messages[0]?.content !== prompt && !(Array.isArray(messages[0]?.content) && (messages[0]?.content as { text?: string }[])[0]?.text === prompt))
      continue;
    const index = messages.filter((message) => message.role === "assistant").length;
    counts[index] = (counts[index] ?? 0) + 1;
  }
  return Array.from(counts, (count) => count ?? 0);
}

interface Workspace {
  dir: string;
  env: NodeJS.ProcessEnv;
  stream: string;
  /** `--store nats://…/STREAM`. */
  storeFlag: string[];
  store: JetStreamStore;
  queue: JetStreamQueue;
  openGate(): void;
  executions(): string[];
  journal(runId: string): Promise<JournalRecord[]>;
  queued(): Promise<string[]>;
  cli(args: string[]): ReturnType<typeof runCli>;
  worker(extra?: string[]): CliRun;
}

function agentYaml(system: string, confirm: boolean): string {
  return `provider: anthropic
model: claude-sonnet-4-5
system: ${system}
retry: { max_attempts: 1 }
tools:
  - name: note
    description: Append a line to the notes
    command: [sh, -c, 'echo "$1" >> "$SIDE_LOG"; while [ ! -e "$GATE" ]; do sleep 0.02; done; echo "noted $1"', sh, "{text}"]
    input_schema: { type: object, properties: { text: { type: string } }, required: [text] }
    on_crash: rerun
    confirm: ${confirm}
`;
}

const opened: { store: JetStreamStore }[] = [];
const workers = new StartedWorkers();

/** `leaseTtlMs`: the lease (and AckWait) of the workspace's stream. */
async function workspace({ gateOpen = true, leaseTtlMs = STEADY_LEASE_MS } = {}): Promise<Workspace> {
  const dir = join(root, `ws-${++made}`);
  mkdirSync(dir);
  const stream = `POOL${made}`;
  // Streams on one server may not share subjects: each its own prefix.
  await initRunStream({ backend: "jetstream", servers: nats.url, stream, prefix: `pool${made}.runs`, leaseTtlMs });
  const store = (await createStore({ backend: "jetstream", servers: nats.url, stream })) as JetStreamStore;
  opened.push({ store });
  const queue = new JetStreamQueue(store);
  writeFileSync(join(dir, "agent.yaml"), agentYaml("You are a pool test agent.", false));
  writeFileSync(join(dir, "confirm.yaml"), agentYaml("You are a pool test agent.", true));
  const sideLog = join(dir, "side-effects.log");
  const gate = join(dir, "gate");
  if (gateOpen) writeFileSync(gate, "");
  // A shared store's decisions are signed with a keyring every decider and worker has: one per workspace.
  const keys = sharedKeyring(dir);
  const env = {
    PATH: process.env.PATH,
    HOME: dir,
    ANTHROPIC_API_KEY: API_KEY,
    ANTHROPIC_BASE_URL: model.url,
    SIDE_LOG: sideLog,
    GATE: gate,
    NO_COLOR: "1",
    FISK_AI_SIGNING_KEYS: keys,
  };
  const storeFlag = ["--store", `${nats.url}/${stream}`];
  return {
    dir,
    env,
    stream,
    storeFlag,
    store,
    queue,
    openGate: () => writeFileSync(gate, ""),
    executions: () =>
      existsSync(sideLog)
        ? readFileSync(sideLog, "utf8")
            .split("\n")
            .filter((line) => line !== "")
        : [],
    journal: async (runId) => {
      const records: JournalRecord[] = [];
      for await (const record of store.readRecords(runId)) records.push(record);
      return records;
    },
    queued: async () => (await queue.list()).map((entry) => entry.runId),
    cli: (args) => cli([...args, ...storeFlag], { cwd: dir, env }),
    worker: (extra = []) => {
      return workers.add(startCli(["worker", "--poll", "20", ...extra, ...storeFlag], { cwd: dir, env }));
    },
  };
}

/** Waits for a worker's line; a timeout says what the worker printed instead. */
const printedLine = (worker: CliRun, line: RegExp, timeoutMs = 30_000): Promise<void> => workers.printedLine(worker, line, timeoutMs);

/** How many runs the queue on the server holds; -1 while the server cannot say (it restarts in the chaos below). */
const queuedOrUnknown = (ws: Workspace): Promise<number> =>
  ws.queued().then(
    (runs) => runs.length,
    () => -1,
  );

const COMPLETED = ["meta", "assistant", "tool_result", "assistant", "tool_result", "assistant", "terminal"];

describe("worker pool on NATS JetStream", { skip: skipWithout("nats-server") }, () => {
  before(async () => {
    nats = await startNatsServer();
    model = await startFakeAnthropic(
      async (request) => {
        const messages = (request.body as { messages: { role: string }[] }).messages;
        return turn(messages.filter((message) => message.role === "assistant").length);
      },
      { apiKey: API_KEY },
    );
    const nc = await connect({ servers: nats.url });
    jsm = await jetstreamManager(nc);
    closeJsm = () => nc.close();
  });
  after(async () => {
    await closeJsm();
    await workers.killAll();
    for (const { store } of opened) await store.close();
    await model.close();
    await nats.stop();
  });

  it("submit prints the id, queue ls lists it, a worker drives it; submit --wait answers as run does; a follow-up goes on", async () => {
    const ws = await workspace();
    const submitted = await ws.cli(["submit", "Write two notes for first", "--name", "first"]);
    assert.equal(submitted.code, 0, submitted.stderr);
    assert.equal(submitted.stdout, "first\n");
    assert.match((await ws.cli(["queue", "ls"])).stdout, /^first {2}\S+ {2}queued: waits for a worker/m);

    const worker = ws.worker(["--concurrency", "2"]);
    const waited = await ws.cli(["submit", "Write two notes for second", "--name", "second", "--wait"]);
    assert.equal(waited.code, 0, waited.stderr);
    assert.equal(waited.stdout, "two notes written\n");
    assert.match(waited.stderr, /→ note \{"text":"one"\}\n← note: noted one\n→ note \{"text":"two"\}\n← note: noted two/);
    await printedLine(worker, /^finished first: completed$/m);
    for (const runId of ["first", "second"]) assert.deepEqual(kinds(await ws.journal(runId)), COMPLETED);
    assert.deepEqual(asked("Write two notes for first"), [1, 1, 1], "each model turn asked once");

    const followed = await ws.cli(["submit", "And more", "--resume", "first", "--wait"]);
    assert.equal(followed.code, 0, followed.stderr);
    assert.equal(followed.stdout, "and more\n");
    assert.deepEqual(kinds(await ws.journal("first")).slice(-4), ["terminal", "user", "assistant", "terminal"]);
    assert.equal((await ws.cli(["queue", "ls"])).stdout, "no session is queued\n");
    assert.deepEqual(ws.executions().sort(), ["one", "one", "two", "two"]);
  });

  it("--if-running reject refuses a follow-up while a run holds the session, the default waits behind it (a second behind the first); queue rm withdraws only what no worker drives", async () => {
    const ws = await workspace({ gateOpen: false });
    const holder = startCli(["run", "--checkpoint", "--name", "held", "Write two notes for held", ...ws.storeFlag], { cwd: ws.dir, env: ws.env });
    await eventually(() => ws.executions().length === 1, "the run's tool to start");
    const refused = await ws.cli(["submit", "And more", "--resume", "held", "--if-running", "reject"]);
    assert.equal(refused.code, 7, refused.stderr);
    assert.match(refused.stderr, /session held is running .*: the follow-up is refused, as --if-running reject asks/);
    assert.equal((await ws.cli(["submit", "And more", "--resume", "held"])).code, 0);
    const again = await ws.cli(["submit", "Even more", "--resume", "held"]);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(await ws.queued(), ["held"], "the second follow-up waits behind the first, not as an entry of its own");
    assert.match(
      (await ws.cli(["queue", "ls"])).stdout,
      /^held {2}\S+ {2}running: .*\n {2}held {2}\S+ {2}follow-up: waits behind held \(runs once it is at rest\)\n$/,
    );
    const json = JSON.parse((await ws.cli(["queue", "ls", "--json"])).stdout) as { followUp: string; behind: { followUp: string; interrupts: boolean }[] }[];
    assert.deepEqual(
      json.map(({ followUp, behind }) => [followUp, behind.map((waiting) => [waiting.followUp, waiting.interrupts])]),
      [["And more", [["Even more", false]]]],
    );

    assert.equal((await ws.cli(["submit", "Write two notes for withdrawn", "--name", "withdrawn"])).code, 0);
    const withdrawn = await ws.cli(["queue", "rm", "withdrawn"]);
    assert.equal(withdrawn.code, 0, withdrawn.stderr);
    assert.equal(withdrawn.stdout, "withdrew withdrawn; it never ran, so its session is removed\n");
    const missing = await ws.cli(["queue", "rm", "withdrawn"]);
    assert.equal(missing.code, 6, missing.stderr);
    assert.match(missing.stderr, /session withdrawn is not queued/);

    assert.match((await ws.cli(["queue", "ls"])).stdout, /^held .* running: worker pid \d+/m);
    const refusedRm = await ws.cli(["queue", "rm", "held"]);
    assert.equal(refusedRm.code, 7, refusedRm.stderr);
    assert.match(refusedRm.stderr, /session held is being run by a worker/);

    ws.openGate();
    assert.equal((await holder.done).code, 0);
    const worker = ws.worker();
    await printedLine(worker, /^finished held: completed$[\s\S]*^finished held: completed$/m);
    const journal = await ws.journal("held");
    assert.deepEqual(
      kinds(journal).slice(-7),
      ["terminal", "user", "assistant", "terminal", "user", "assistant", "terminal"],
      "each follow-up went on after the run it waited for, in the order submitted",
    );
    assert.deepEqual(
      journal.flatMap((record) => ("user" in record ? [JSON.stringify(record.user)] : [])).map((user) => /And more|Even more/.exec(user)?.[0]),
      ["And more", "Even more"],
    );
    assert.doesNotMatch(workers.output(worker), /took withdrawn/);
    assert.deepEqual(await ws.queued(), []);
  });

  it("--if-running interrupt: the worker's claim hears of it, suspends the run at its next boundary (journaled once), then the follow-up runs", async () => {
    const ws = await workspace({ gateOpen: false });
    assert.equal((await ws.cli(["submit", "Write two notes for cut", "--name", "cut"])).code, 0);
    const worker = ws.worker();
    await eventually(() => ws.executions().length === 1, "the run's tool to start");
    const interrupting = await ws.cli(["submit", "Stop there", "--resume", "cut", "--if-running", "interrupt"]);
    assert.equal(interrupting.code, 0, interrupting.stderr);
    assert.deepEqual(await ws.queued(), ["cut"], "the follow-up waits behind the run it interrupts");
    assert.match(
      (await ws.cli(["queue", "ls"])).stdout,
      /^cut {2}\S+ {2}running: .*\n {2}cut {2}\S+ {2}follow-up: interrupts cut \(suspends it at its next boundary, then runs\)\n$/,
    );
    ws.openGate();
    await printedLine(
      worker,
      /^finished cut: suspended \(interrupted by a follow-up, which is queued next\)\ntook cut \(a follow-up\)\nfinished cut: completed$/m,
    );
    const journal = await ws.journal("cut");
    assert.deepEqual(
      kinds(journal).slice(0, 5),
      ["meta", "assistant", "tool_result", "terminal", "user"],
      "suspended at the boundary after the tool it was in, then the follow-up",
    );
    assert.deepEqual(
      journal.flatMap((record) => ("terminal" in record ? [record.terminal.reason] : [])),
      ["suspended", "completed"],
      "the interrupt journaled once, as a suspend",
    );
    assert.deepEqual(ws.executions(), ["one", "two"], "each note written once");
    assert.deepEqual(await ws.queued(), []);
  });

  it("a run that parks leaves the worker; session approve from anywhere queues its continuation", async () => {
    const ws = await workspace();
    const worker = ws.worker(["--config", "confirm.yaml"]);
    assert.equal((await ws.cli(["submit", "Write two notes for asks", "--name", "asks", "--config", "confirm.yaml"])).code, 0);
    for (const [round, expected] of [
      [1, ["one"]],
      [2, ["one", "two"]],
    ] as const) {
      await workers.printedTimes(worker, "parked asks:", round);
      // Once the worker says so, the park is in the queue and the run's lease is let go.
      assert.match((await ws.cli(["queue", "ls"])).stdout, /^asks .* parked: waits for a decision/m);
      const approved = await ws.cli(["session", "approve", "asks", "--config", "confirm.yaml"]);
      assert.equal(approved.code, 0, approved.stderr);
      assert.match(approved.stdout, /session asks is queued for the worker pool again/);
      await eventually(() => ws.executions().length === expected.length, `the approved call ${round} to run`);
      assert.deepEqual(ws.executions(), [...expected]);
    }
    await printedLine(worker, /^finished asks: completed$/m);
    assert.deepEqual(await ws.queued(), []);
  });

  it("a worker SIGKILLed mid-tool loses its run to another once its lease runs out: the cut tool runs once more, no model turn is asked twice", async () => {
    const ws = await workspace({ gateOpen: false, leaseTtlMs: TAKEOVER_LEASE_MS });
    await ws.cli(["submit", "Write two notes for taken", "--name", "taken"]);
    const first = ws.worker();
    await eventually(() => ws.executions().length === 1, "the first worker's tool to start");
    const second = ws.worker();
    first.child.kill("SIGKILL");
    await first.done;
    await printedLine(second, /^took taken$/m);
    ws.openGate();
    await printedLine(second, /^finished taken: completed$/m);
    assert.deepEqual(ws.executions(), ["one", "one", "two"], "only the call whose result never reached the journal ran again");
    assert.deepEqual(kinds(await ws.journal("taken")), COMPLETED, "each model turn journaled once");
    assert.deepEqual(asked("Write two notes for taken"), [1, 1, 1], "no model turn asked twice");
  });

  it("a worker SIGSTOPped past its lease and woken appends nothing to the run another worker took, and runs nothing more", async () => {
    const ws = await workspace({ gateOpen: false, leaseTtlMs: TAKEOVER_LEASE_MS });
    await ws.cli(["submit", "Write two notes for stale", "--name", "stale"]);
    const stale = ws.worker();
    await eventually(() => ws.executions().length === 1, "the stale worker's tool to start");
    stale.child.kill("SIGSTOP");
    const atStop = (await ws.journal("stale")).length;
    const nonceAt = async (seq: number) => {
      const message = await jsm.streams.getMessage(ws.stream, { last_by_subj: `${ws.store.prefix}.stale.${seq === 1 ? "_meta" : seq}` });
      return (message?.header.get("Nats-Msg-Id") ?? "").replace(/-\d+$/, "");
    };
    const staleNonce = await nonceAt(atStop);

    const successor = ws.worker();
    await printedLine(successor, /^took stale$/m);
    ws.openGate();
    await printedLine(successor, /^finished stale: completed$/m);
    const before = { executions: ws.executions(), asked: asked("Write two notes for stale") };
    assert.deepEqual(before.executions, ["one", "one", "two"]);

    // Woken: its tool ended long ago; it must learn it lost the run before journaling its result.
    stale.child.kill("SIGCONT");
    await printedLine(stale, /^dropped stale: /m);
    const journal = await ws.journal("stale");
    assert.deepEqual(kinds(journal), COMPLETED, "nothing appended after the successor's terminal");
    for (let seq = atStop + 1; seq <= journal.length; seq++) assert.notEqual(await nonceAt(seq), staleNonce, `record ${seq} is the successor's`);
    assert.deepEqual(ws.executions(), before.executions, "no side effect after it woke");
    assert.deepEqual(asked("Write two notes for stale"), before.asked, "no model call after it woke");
    assert.deepEqual(before.asked, [1, 1, 1]);
    // It is still a worker: it takes the next run.
    await ws.cli(["submit", "Write two notes for next", "--name", "next"]);
    await Promise.race([printedLine(stale, /^finished next: completed$/m), printedLine(successor, /^finished next: completed$/m)]);
  });

  it("a rolling deploy (a random worker of three SIGTERMed and replaced, again and again): every run ends with its answer, each suspend journaled once, nothing repeats", async () => {
    const ws = await workspace();
    // The pool's model names each run's notes, so each side effect can be counted.
    const poolModel = await startPoolModel();
    try {
      writePoolConfig(ws.dir, "deploy.yaml", undefined, undefined, "fake");
      const env = { ...ws.env, ANTHROPIC_API_KEY: POOL_API_KEY, ANTHROPIC_BASE_URL: poolModel.url, TOOL_SLEEP: "0.2" };
      const onPool = (args: string[]) => [...args, "--config", "deploy.yaml", ...ws.storeFlag];
      await rollingDeploy(
        {
          submit: async (runId) => assert.equal((await cli(onPool(["submit", `Write two notes for ${runId}`, "--name", runId]), { cwd: ws.dir, env })).code, 0),
          worker: () => workers.add(startCli(onPool(["worker", "--poll", "20"]), { cwd: ws.dir, env })),
          queued: () => ws.queued(),
          journal: (runId) => ws.journal(runId),
          executions: () => ws.executions(),
          model: poolModel,
          workers,
        },
        Array.from({ length: 8 }, (_, index) => `deploy${index}`),
        4,
      );
      assert.deepEqual(refusedCalls(poolModel), [], "the strict fake refused no call");
    } finally {
      await poolModel.close();
    }
  });

  it("chaos: three workers, random SIGKILLs, then the nats-server killed and restarted: every run ends, each model turn journaled once", async () => {
    const ws = await workspace({ gateOpen: false, leaseTtlMs: TAKEOVER_LEASE_MS });
    const runs = Array.from({ length: 5 }, (_, index) => `chaos${index}`);
    for (const runId of runs) assert.equal((await ws.cli(["submit", `Write two notes for ${runId}`, "--name", runId])).code, 0);
    const pool = [ws.worker(), ws.worker(), ws.worker()];
    // The server dies while three runs are mid-tool, so the restart surely cuts runs.
    await eventually(() => ws.executions().length === pool.length, "three tools to start");
    await nats.kill();
    await nats.restart();
    ws.openGate();
    let kills = 0;
    for (let round = 0; round < 3; round++) {
      const seen = ws.executions().length;
      await eventually(async () => ws.executions().length > seen || (await queuedOrUnknown(ws)) === 0, "a tool to run");
      const index = Math.floor(Math.random() * pool.length);
      (pool[index] as CliRun).child.kill("SIGKILL");
      await (pool[index] as CliRun).done;
      kills++;
      pool[index] = ws.worker();
    }
    await eventually(async () => (await queuedOrUnknown(ws)) === 0, "every run to end");
    for (const runId of runs) {
      const journal = await ws.journal(runId);
      assert.deepEqual(
        kinds(journal).filter((kind) => kind !== "terminal"),
        COMPLETED.filter((kind) => kind !== "terminal"),
        `${runId}: each model turn journaled once`,
      );
      assert.deepEqual(journal.at(-1), { ...journal.at(-1), terminal: { reason: "completed" } });
    }
    const executions = ws.executions().length;
    // A kill cuts at most one call; so may the server's restart, once for each run it cut.
    assert.ok(
      executions >= runs.length * 2 && executions <= runs.length * 2 + kills + pool.length,
      `${executions} executions for ${runs.length * 2} calls and ${kills} kills`,
    );
  });
});
