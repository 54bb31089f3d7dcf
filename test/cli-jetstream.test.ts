// covers: src/cli/session/init-stream.ts, src/backends/open-backend.ts
// `fisk-ai run` and `fisk-ai session` on JetStream, the hard way: the real CLI in child
// processes that share nothing but a real nats-server (each its own HOME and working
// directory, as two machines), a strict Anthropic fake counting model calls, a command
// tool logging every execution, SIGKILLs of the run and of the server.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect, nanos } from "@nats-io/transport-node";
import { createStore } from "../src/index.js";
import type { JetStreamStore } from "../src/backends/jetstream/jetstream-store.js";
import { sharedKeyring } from "./helpers/signing-keys.js";
import { startCli, type CliResult } from "./helpers/cli-harness.js";
import { startFakeAnthropic, type AnthropicReply, type FakeServer } from "./helpers/fake-anthropic-server.js";
import { startNatsServer, type NatsServer } from "./helpers/nats-server.js";
import { skipWithout } from "./helpers/programs.js";
import { commandsInProcess } from "./helpers/in-process-cli.js";
import { eventually } from "./helpers/eventually.js";

/** The file's first call spawned, the later ones in this process (test/helpers/in-process-cli.ts). */
const cli = commandsInProcess(["session", "run"]);

const API_KEY = "sk-ant-test-jetstream";
const FINAL_ANSWER = "Final answer: three notes.";
const TURNS: AnthropicReply[] = [
  {
    content: [
      { type: "tool_use", id: "toolu_01", name: "note", input: { text: "one" } },
      { type: "tool_use", id: "toolu_02", name: "note", input: { text: "two" } },
    ],
    stop_reason: "tool_use",
    usage: { input_tokens: 100, output_tokens: 20 },
  },
  {
    content: [{ type: "tool_use", id: "toolu_03", name: "note", input: { text: "three" } }],
    stop_reason: "tool_use",
    usage: { input_tokens: 150, output_tokens: 10 },
  },
  { content: [{ type: "text", text: FINAL_ANSWER }], stop_reason: "end_turn", usage: { input_tokens: 200, output_tokens: 8 } },
];
/**
 * The lease of every run here: long, so that a writer starved of CPU on a loaded machine keeps
 * it (at 3 s, a resume's writer lost it mid-run and exited 7). No test waits it out: a dead
 * holder's lease is made to run out by `leaseRunsOut`.
 */
const LEASE_TTL = "60s";
/** The lease bucket's TTL while a dead holder's lease runs out: short, no process holding a lease meanwhile. */
const EXPIRING_TTL_MS = 500;
const COMPLETED_RUN = ["meta", "assistant", "tool_result", "tool_result", "assistant", "tool_result", "assistant", "terminal"];

const root = mkdtempSync(join(tmpdir(), "fisk-ai-cli-jetstream-"));
// Removed at the file's end, not in the suite's after: a suite skipped for want of a program runs no hook.
after(() => rmSync(root, { recursive: true, force: true }));
let nats: NatsServer;
let model: FakeServer;
let streams = 0;
let machines = 0;

interface Machine {
  dir: string;
  env: NodeJS.ProcessEnv;
  run(args: string[]): Promise<CliResult>;
}

/** A fresh "machine": its own HOME, working directory and agent.yaml, sharing the side-effect log and the gate. */
function machine(store: string, shared: { sideLog: string; gate: string }): Machine {
  const dir = join(root, `machine-${++machines}`);
  mkdirSync(dir);
  writeFileSync(
    join(dir, "agent.yaml"),
    `provider: anthropic
model: claude-sonnet-4-5
system: You are a careful test agent.
tools:
  - name: note
    description: Append a line to the notes
    command: [sh, -c, 'echo "$1" >> "$SIDE_LOG"; while [ ! -e "$GATE" ]; do sleep 0.02; done; echo "noted $1"', sh, "{text}"]
    input_schema: { type: object, properties: { text: { type: string } }, required: [text] }
retry: { max_attempts: 2, base_delay: 10ms }
session: { backend: jetstream, servers: "${nats.url}", stream: ${store}, prefix: ${store.toLowerCase()}.runs, lease_ttl: ${LEASE_TTL} }
`,
  );
  const env = {
    PATH: process.env.PATH,
    HOME: dir,
    ANTHROPIC_API_KEY: API_KEY,
    ANTHROPIC_BASE_URL: model.url,
    SIDE_LOG: shared.sideLog,
    GATE: shared.gate,
    NO_COLOR: "1",
  };
  return { dir, env, run: (args) => cli(args, { cwd: dir, env }) };
}

interface Scene {
  stream: string;
  sideLog: string;
  gate: string;
  a: Machine;
  b: Machine;
  executions(): string[];
  openGate(): void;
  kinds(runId: string): Promise<string[]>;
  /** Once the run's holder is dead, lets its lease expire on the server, as it does after the TTL, without waiting that out. */
  leaseRunsOut(runId: string): Promise<void>;
}

async function scene({ gateOpen = true } = {}): Promise<Scene> {
  const stream = `CLI_${++streams}`;
  const dir = join(root, stream);
  mkdirSync(dir);
  const shared = { sideLog: join(dir, "side.log"), gate: join(dir, "gate") };
  if (gateOpen) writeFileSync(shared.gate, "");
  const a = machine(stream, shared);
  const init = await a.run(["session", "init-stream"]);
  assert.equal(init.code, 0, init.stderr);
  assert.match(init.stdout, new RegExp(`^created stream ${stream} binding ${stream.toLowerCase()}\\.runs\\.>`));
  const store = async () => (await createStore({ backend: "jetstream", servers: nats.url, stream })) as JetStreamStore;
  return {
    stream,
    ...shared,
    a,
    b: machine(stream, shared),
    executions: () =>
      existsSync(shared.sideLog)
        ? readFileSync(shared.sideLog, "utf8")
            .split("\n")
            .filter((line) => line !== "")
        : [],
    openGate: () => writeFileSync(shared.gate, ""),
    kinds: async (runId) => {
      const s = await store();
      try {
        const text = Buffer.from(await s.readJournal(runId)).toString("utf8");
        return text
          .split("\n")
          .filter((line) => line !== "")
          .map((line) => (JSON.parse(line) as { protocol: string }).protocol.split(".").at(-1) as string);
      } finally {
        await s.close();
      }
    },
    leaseRunsOut: async (runId) => {
      // The server expires the dead holder's lease by the bucket's age limit, lowered for the
      // moment (a live writer would lose its lease too: none runs meanwhile), then set back, so
      // the next writer reads the long TTL when it opens. The expiry at the TTL a store is given
      // is jetstream-store.test.ts's ("lets a lease whose holder stopped beating expire by itself").
      const nc = await connect({ servers: nats.url });
      const s = await store();
      try {
        const jsm = await jetstreamManager(nc);
        const bucket = `KV_${stream}_LEASES`;
        const { config } = await jsm.streams.info(bucket);
        assert.notEqual((await s.summarize(runId)).holder, undefined, "the dead holder's lease is there to run out");
        await jsm.streams.update(bucket, { ...config, max_age: nanos(EXPIRING_TTL_MS), duplicate_window: nanos(EXPIRING_TTL_MS) });
        await eventually(async () => (await s.summarize(runId)).holder === undefined, "the dead holder's lease to expire");
        await jsm.streams.update(bucket, config);
      } finally {
        await s.close();
        await nc.close();
      }
    },
  };
}

function accepted(): number {
  return model.requests.filter((request) => request.accepted).length;
}

const START = ["run", "--checkpoint", "--name", "run1", "Write three notes"];
const RESUME = ["run", "--resume", "run1"];

describe("fisk-ai on JetStream", { skip: skipWithout("nats-server") }, () => {
  before(async () => {
    nats = await startNatsServer();
    model = await startFakeAnthropic(
      async (request) => {
        const messages = (request.body as { messages?: { role: string }[] }).messages ?? [];
        const reply = TURNS[messages.filter((message) => message.role === "assistant").length];
        if (reply === undefined) throw new Error("no such turn");
        return reply;
      },
      { apiKey: API_KEY },
    );
  });
  after(async () => {
    await nats.stop();
    await model.close();
  });

  it("resumes on a second machine a run SIGKILLed mid-batch there: no model or tool call repeated", async () => {
    const s = await scene();
    const before = accepted();
    const killed = await startCli(START, { cwd: s.a.dir, env: { ...s.a.env, FISK_AI_TEST_CRASH_AT: "after-tool:1" } }).done;
    assert.equal(killed.signal, "SIGKILL", killed.stderr);
    assert.deepEqual(await s.kinds("run1"), ["meta", "assistant", "tool_result"]);
    const listed = await s.b.run(["session", "ls"]);
    assert.match(listed.stdout, /run1\s+(running|open)/);
    await s.leaseRunsOut("run1");
    const resumed = await s.b.run(RESUME);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(resumed.stdout, `${FINAL_ANSWER}\n`);
    assert.equal(accepted() - before, 3, "three model calls across both machines");
    assert.deepEqual(s.executions(), ["one", "two", "three"], "no tool ran twice");
    assert.deepEqual(await s.kinds("run1"), COMPLETED_RUN);
  });

  it("lets exactly one of two processes racing to resume a run win; the other exits 7 naming the holder", async () => {
    const s = await scene();
    const killed = await startCli(START, { cwd: s.a.dir, env: { ...s.a.env, FISK_AI_TEST_CRASH_AT: "after-assistant:1" } }).done;
    assert.equal(killed.signal, "SIGKILL");
    await s.leaseRunsOut("run1");
    rmSync(s.gate);
    const racers = [startCli(RESUME, { cwd: s.a.dir, env: s.a.env }), startCli(RESUME, { cwd: s.b.dir, env: s.b.env })];
    const loser = await Promise.race(racers.map((racer, index) => racer.done.then((result) => ({ result, index }))));
    assert.equal(loser.result.code, 7, loser.result.stderr);
    assert.match(
      loser.result.stderr,
      /^(fisk-ai: using the session's configuration, \S+\n)?fisk-ai: session run1 is in use by pid \d+ on \S+ \(started [^)]+\): wait for it to finish or stop that process\n$/,
    );
    s.openGate();
    const winner = await (racers[1 - loser.index] as (typeof racers)[number]).done;
    assert.equal(winner.code, 0, winner.stderr);
    assert.deepEqual(s.executions(), ["one", "two", "three"]);
    assert.deepEqual(await s.kinds("run1"), COMPLETED_RUN);
  });

  it("stops with a clear error when the server is killed mid-run, and resumes with every acknowledged record once it is back", async () => {
    const s = await scene({ gateOpen: false });
    const run = startCli(START, { cwd: s.a.dir, env: s.a.env });
    await eventually(() => s.executions().includes("one"), "tool one to start");
    const acknowledged = await s.kinds("run1");
    await nats.kill();
    s.openGate();
    const failed = await run.done;
    assert.equal(failed.code, 1, `${failed.stderr}\nSTDOUT ${failed.stdout}`);
    assert.match(failed.stderr, /fisk-ai: lost the NATS server/, "the disconnect is reported");
    assert.match(failed.stderr, /NATS server did not take record 3 of session run1/);
    assert.doesNotMatch(failed.stderr, /^\s+at /m, "no stack trace");
    await nats.restart();
    const kept = await s.kinds("run1");
    assert.deepEqual(kept.slice(0, acknowledged.length), acknowledged, "no acknowledged record lost");
    await s.leaseRunsOut("run1");
    const resumed = await s.b.run(RESUME);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(resumed.stdout, `${FINAL_ANSWER}\n`);
    assert.deepEqual(await s.kinds("run1"), COMPLETED_RUN);
  });

  it("moves a run from files to JetStream and back byte for byte (and the import's mark), and the moved run resumes", async () => {
    const s = await scene();
    const stateDir = join(s.a.dir, "state");
    const killed = await startCli([...START, "--state-dir", stateDir], { cwd: s.a.dir, env: { ...s.a.env, FISK_AI_TEST_CRASH_AT: "after-assistant:2" } }).done;
    assert.equal(killed.signal, "SIGKILL");
    const url = `${nats.url}/${s.stream}`;
    const fromFiles = join(s.a.dir, "from-files.jsonl");
    const back = join(s.a.dir, "back.jsonl");
    assert.equal((await s.a.run(["session", "export", "run1", "--state-dir", stateDir, "-o", fromFiles])).code, 0);
    const imported = await s.b.run(["session", "import", fromFiles, "--store", url]);
    assert.equal(imported.code, 0, imported.stderr);
    assert.equal((await s.b.run(["session", "export", "run1", "--store", url, "-o", back])).code, 0);
    // The records come back byte for byte, then the one record the import adds: its mark (docs/security.md).
    const [original, again] = [readFileSync(fromFiles), readFileSync(back)];
    assert.deepEqual(again.subarray(0, original.length), original, "byte-identical");
    const added = again.subarray(original.length).toString("utf8").trimEnd().split("\n");
    assert.deepEqual(
      added.map((line) => (JSON.parse(line) as { protocol: string }).protocol),
      ["io.choria.fisk-ai.v1.session.imported"],
    );
    // Imported, it is foreign here: a resume names the configuration it runs with, and the call
    // cut by the kill runs again only once someone with this store's key approves it.
    const resumed = await s.b.run([...RESUME, "--store", url, "--config", "agent.yaml"]);
    assert.equal(resumed.code, 10, resumed.stderr);
    const keys = { ...s.b.env, FISK_AI_SIGNING_KEYS: sharedKeyring(s.b.dir) };
    const approved = await cli(["session", "approve", "run1", "--resume", "--config", "agent.yaml", "--store", url], { cwd: s.b.dir, env: keys });
    assert.equal(approved.code, 0, approved.stderr);
    // Parked at the cut call, then approved here.
    const parked = ["approval_request", "terminal", "approval_decision", "terminal"];
    const kinds = (await s.kinds("run1")).filter((kind) => kind !== "imported");
    assert.deepEqual(kinds, [...COMPLETED_RUN.slice(0, 5), ...parked, ...COMPLETED_RUN.slice(5)]);
  });

  it("says what is wrong with a --store URL, or --store with --state-dir, in one line", async () => {
    const s = await scene();
    const bad = await s.a.run(["session", "ls", "--store", "nats://user:secret@127.0.0.1:4222/X"]);
    assert.equal(bad.code, 2);
    assert.equal(
      bad.stderr,
      `fisk-ai: store "nats://***@127.0.0.1:4222/X": expected nats://HOST:PORT/STREAM (credentials go in NATS_CREDS, NATS_USER/NATS_PASSWORD or NATS_TOKEN, never in the URL)\n`,
    );
    const both = await s.a.run(["run", "--checkpoint", "--store", `${nats.url}/${s.stream}`, "--state-dir", "x", "hi"]);
    assert.deepEqual([both.code, both.stderr], [2, "fisk-ai: --store and --state-dir each name where sessions are kept: give one\n"]);
    // A directory is no stream: init-stream offers no --state-dir, and a file store's config is refused.
    assert.doesNotMatch((await s.a.run(["session", "init-stream", "--help"])).stdout, /--state-dir/);
    writeFileSync(join(s.a.dir, "files.yaml"), "provider: script\nmodel: m\nscript: s.yaml\nsession: { state_dir: ./x }\n");
    const fileStore = await s.a.run(["session", "init-stream", "--config", "files.yaml"]);
    assert.deepEqual(
      [fileStore.code, fileStore.stderr],
      [2, "fisk-ai: session init-stream needs a JetStream store: give --store nats://HOST:PORT/STREAM or session.backend: jetstream\n"],
    );
    const missing = await s.a.run(["session", "ls", "--store", `${nats.url}/NO_SUCH`]);
    assert.equal(missing.code, 2);
    assert.match(
      missing.stderr,
      /^fisk-ai: no JetStream stream NO_SUCH: create it with 'fisk-ai session init-stream --store nats:\/\/127\.0\.0\.1:\d+\/NO_SUCH', or with: nats stream add NO_SUCH --subjects "fisk-ai\.runs\.>" .*--discard-per-subject.*\n$/,
    );
    // The command it names makes the stream, and the store then opens.
    const named = /'fisk-ai (session init-stream --store \S+)'/.exec(missing.stderr)?.[1]?.split(" ") ?? [];
    assert.equal((await s.a.run(named)).code, 0);
    assert.equal((await s.a.run(["session", "ls", "--store", `${nats.url}/NO_SUCH`])).code, 0);
  });
});
