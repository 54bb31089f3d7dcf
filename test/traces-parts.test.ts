// covers: src/cli/session/trace.ts, src/telemetry/journal-spans.ts, src/telemetry/session-spans.ts
// covers: src/telemetry/trace-ids.ts
// process: shared
// A session's trace across processes (docs/traces.md), received over real OTLP/HTTP on
// loopback by the test's own receiver: the wait for a decision made in another process is
// sent by that process, from the request's time in the journal to the decision's; and a
// run killed mid-run and resumed elsewhere is two parts, the first marked as cut short,
// live as `session trace` tells it from the journal, where the resume's first record
// says where its part began.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { partSpanId } from "../src/telemetry/session-spans.js";
import { sessionTraceId } from "../src/telemetry/trace-ids.js";
import { startCli } from "./helpers/cli-harness.js";
import { journalRecords } from "./helpers/journal-file.js";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "./helpers/otlp-receiver.js";
import { commandsInProcess } from "./helpers/in-process-cli.js";
import { eventually } from "./helpers/eventually.js";

/** The file's first call spawned, the later ones in this process (test/helpers/in-process-cli.ts). */
const cli = commandsInProcess(["session", "run"]);

const root = mkdtempSync(join(tmpdir(), "fisk-ai-traces-parts-"));
let receiver: OtlpReceiver;
before(async () => (receiver = await startOtlpReceiver()));
after(async () => {
  await receiver.close();
  rmSync(root, { recursive: true, force: true });
});

let workspaces = 0;
/** A workspace with this agent.yaml (its script and session lines added) and script. */
function workspace(tools: string[], script: string, session = "{ state_dir: ./state }"): string {
  const dir = join(root, `ws-${++workspaces}`);
  mkdirSync(dir);
  writeFileSync(join(dir, "agent.yaml"), ["provider: script", "model: script-test", "script: ./s.yaml", `session: ${session}`, "tools:", ...tools].join("\n"));
  writeFileSync(join(dir, "s.yaml"), script);
  return dir;
}

function traced(dir: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: dir, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: "20" };
}

function ofSession(runId: string, from: ReceivedSpan[] = receiver.spans): ReceivedSpan[] {
  return from.filter((span) => span.attributes["fisk_ai.session.id"] === runId);
}

/** Names, ids, links and attributes, without the times a live span has of its own. */
function tree(spans: ReceivedSpan[]) {
  return spans
    .map(({ traceId, spanId, parentSpanId, name, attributes, links, status }) => ({ traceId, spanId, parentSpanId, name, attributes, links, status }))
    .sort((a, b) => a.spanId.localeCompare(b.spanId));
}

/** What `session trace` sends of the session, to a receiver of its own. */
async function sessionTrace(dir: string, runId: string): Promise<ReceivedSpan[]> {
  const later = await startOtlpReceiver();
  try {
    const sent = await cli(["session", "trace", runId, "--endpoint", later.url], { cwd: dir, env: { PATH: process.env.PATH, HOME: dir } });
    assert.equal(sent.code, 0, sent.stderr);
    return later.spans;
  } finally {
    await later.close();
  }
}

type Journaled = ReturnType<typeof journalRecords>[number];
function payloadOf<K extends string>(records: Journaled[], kind: K): Record<string, unknown> {
  const record = records.find((one) => one.protocol === `io.choria.fisk-ai.v1.session.${kind}`) as unknown as Record<K, Record<string, unknown>>;
  return record[kind];
}

describe("a call approved from another process", () => {
  it("gets its await_approval span from the approving process, from the request's time to the decision's, under the part that parked it", async () => {
    const dir = workspace(
      ["  - { name: guarded, description: Guarded, command: [echo, ok], confirm: true }"],
      "turns:\n  - tool_calls: [{ name: guarded }]\n  - text: done\n",
    );
    const at = (args: string[]) => cli(args, { cwd: dir, env: traced(dir) });
    const parked = await at(["run", "--checkpoint", "--approvals", "defer", "--name", "ap2", "go"]);
    assert.equal(parked.code, 10, parked.stderr);
    await eventually(() => ofSession("ap2").some((span) => span.name === "invoke_agent"), "the parked part's span");
    assert.equal(ofSession("ap2").filter((span) => span.name.startsWith("await_approval")).length, 0, "no wait ends before its decision");

    const approved = await at(["session", "approve", "ap2"]);
    assert.equal(approved.code, 0, approved.stderr);
    // The approving process sent it before it exited: nothing else ran in between.
    const waits = ofSession("ap2").filter((span) => span.name === "await_approval guarded");
    assert.equal(waits.length, 1);
    const wait = waits[0] as ReceivedSpan;
    const records = journalRecords(join(dir, "state", "ap2.json"));
    assert.equal(wait.startMs, Date.parse(payloadOf(records, "approval_request").requested_at as string));
    assert.equal(wait.endMs, Date.parse(payloadOf(records, "approval_decision").decided_at as string));
    assert.equal(wait.traceId, sessionTraceId("ap2"));
    assert.equal(wait.parentSpanId, partSpanId("ap2", 1));
    assert.equal(wait.attributes["fisk_ai.approval.decision"], "approve");
    const parkedPart = ofSession("ap2").find((span) => span.spanId === wait.parentSpanId) as ReceivedSpan;
    assert.equal(parkedPart.attributes["fisk_ai.status"], "awaiting_approval");

    const resumed = await at(["run", "--resume", "ap2"]);
    assert.equal(resumed.code, 0, resumed.stderr);
    await eventually(() => ofSession("ap2").filter((span) => span.name === "invoke_agent").length === 2, "the resumed part's span");
    const live = ofSession("ap2");
    assert.equal(live.filter((span) => span.name === "await_approval guarded").length, 1, "the resume does not send the wait again");
    assert.deepEqual(tree(ofSession("ap2", await sessionTrace(dir, "ap2"))), tree(live));
  });
});

describe("a run killed mid-run and resumed in another process", () => {
  it("is two invoke_agent spans in one trace, the first marked as ended without an end record, live as in `session trace`", async () => {
    // The second call waits for a file the test writes once the run is killed.
    const dir = workspace(
      [
        "  - { name: note, description: Note, command: [echo, noted] }",
        "  - { name: hold, description: Hold, command: [sh, -c, 'while [ ! -f go ]; do sleep 0.05; done; echo held'] }",
      ],
      "turns:\n  - tool_calls: [{ name: note }]\n  - tool_calls: [{ name: hold }]\n  - text: done\n",
    );
    const first = startCli(["run", "--checkpoint", "--name", "k1", "go"], { cwd: dir, env: traced(dir) });
    // Killed once the turn asking for `hold` was sent: its tool runs, and the part has spans of its own out.
    await eventually(() => ofSession("k1").some((span) => span.attributes["fisk_ai.iteration"] === 1), "the second model call's span");
    first.child.kill("SIGKILL");
    assert.equal((await first.done).signal, "SIGKILL");
    writeFileSync(join(dir, "go"), "");

    const resumed = await cli(["run", "--resume", "k1"], { cwd: dir, env: traced(dir) });
    assert.equal(resumed.code, 0, resumed.stderr);
    await eventually(() => ofSession("k1").filter((span) => span.name === "invoke_agent").length === 2, "both parts' spans");
    const live = ofSession("k1");
    assert.deepEqual(tree(ofSession("k1", await sessionTrace(dir, "k1"))), tree(live));
    assert.deepEqual([...new Set(live.map((span) => span.traceId))], [sessionTraceId("k1")]);

    const records = journalRecords(join(dir, "state", "k1.json"));
    const marked = records.filter((record) => "part_started_at" in record) as (Journaled & { part_started_at: string })[];
    assert.equal(marked.length, 1, "the resume's first record, and only it, says where its part began");
    const [dead, again] = live
      .filter((span) => span.name === "invoke_agent")
      .sort((a, b) => Number(a.attributes["fisk_ai.seq.first"]) - Number(b.attributes["fisk_ai.seq.first"])) as [ReceivedSpan, ReceivedSpan];
    assert.equal(dead.attributes["fisk_ai.seq.first"], 1);
    assert.equal(dead.attributes["fisk_ai.status"], "ended without a terminal record");
    assert.deepEqual(dead.status, { code: 2, message: "the part ended without a terminal record: its process died" });
    assert.equal(again.attributes["fisk_ai.seq.first"], marked[0]?.seq);
    assert.equal(again.startMs, Date.parse(marked[0]?.part_started_at as string));
    assert.equal(again.attributes["fisk_ai.resumed_after_crash"], true);
    assert.equal(again.attributes["fisk_ai.status"], "completed");
    assert.deepEqual(again.links, [{ traceId: dead.traceId, spanId: dead.spanId }]);
    // Each part holds the calls its own process made: `hold` ran to its end only in the second.
    const parentOf = (name: string) => live.filter((span) => span.name === name).map((span) => span.parentSpanId);
    assert.deepEqual(parentOf("execute_tool note"), [dead.spanId]);
    assert.deepEqual(parentOf("execute_tool hold"), [again.spanId]);
  });
});

describe("a decision whose spans cannot be sent", () => {
  const guarded = ["  - { name: guarded, description: Guarded, command: [echo, ok], confirm: true }"];
  const script = "turns:\n  - tool_calls: [{ name: guarded }]\n  - text: done\n";
  async function parkedIn(dir: string, runId: string): Promise<void> {
    const parked = await cli(["run", "--checkpoint", "--approvals", "defer", "--name", runId, "go"], { cwd: dir, env: traced(dir) });
    assert.equal(parked.code, 10, parked.stderr);
  }
  const decisions = (dir: string, runId: string) =>
    journalRecords(join(dir, "state", `${runId}.json`)).filter((record) => record.protocol === "io.choria.fisk-ai.v1.session.approval_decision");

  it("is still journaled when the collector is down, exit 0, and says so in one line", async () => {
    const dir = workspace(guarded, script);
    await parkedIn(dir, "down1");
    const gone = await startOtlpReceiver();
    await gone.close();
    // The exporter retries for OTEL_EXPORTER_OTLP_TIMEOUT (10 s unless set) before the command may exit.
    const down = { ...traced(dir), OTEL_EXPORTER_OTLP_ENDPOINT: gone.url, OTEL_EXPORTER_OTLP_TIMEOUT: "1000" };
    const approved = await cli(["session", "approve", "down1"], { cwd: dir, env: down });
    assert.equal(approved.code, 0, approved.stderr);
    assert.match(approved.stdout, /^approved /);
    assert.equal(decisions(dir, "down1").length, 1);
    // The first decision on this file store also makes its signing key, and says so first.
    const lines = approved.stderr.trim().split("\n");
    assert.match(lines.shift() ?? "", /^fisk-ai: made a signing key for decisions in /);
    assert.equal(lines.length, 1, approved.stderr);
    assert.match(lines[0] as string, /^fisk-ai: the decision's traces were not sent: .*'fisk-ai session trace ID' sends a session's spans again$/);
  });

  it("is refused before anything is decided when agent.yaml's telemetry block names a header variable that is not set", async () => {
    const dir = workspace(guarded, script);
    await parkedIn(dir, "unset1");
    writeFileSync(join(dir, "agent.yaml"), "\ntelemetry: { endpoint: http://127.0.0.1:4318, headers_env: { x-team: TEAM_KEY_NOT_SET } }\n", { flag: "a" });
    const approved = await cli(["session", "approve", "unset1"], { cwd: dir, env: { PATH: process.env.PATH, HOME: dir } });
    assert.equal(approved.code, 2, approved.stderr);
    assert.equal(approved.stderr.trim().split("\n").length, 1, approved.stderr);
    assert.match(approved.stderr, /telemetry\.headers_env\.x-team: TEAM_KEY_NOT_SET is not set/);
    assert.equal(decisions(dir, "unset1").length, 0);
  });
});

describe("a version 3 session killed and resumed", () => {
  it("keeps its lines as the Go implementation writes them: no part_started_at, and its parts told apart only by terminal records", async () => {
    const dir = workspace(
      ["  - { name: note, description: Note, command: [echo, noted] }"],
      "turns:\n  - tool_calls: [{ name: note }]\n  - text: done\n",
      "{ state_dir: ./state, record_version: 3 }",
    );
    const env = { PATH: process.env.PATH, HOME: dir };
    const killed = await cli(["run", "--checkpoint", "--name", "v3k", "go"], { cwd: dir, env: { ...env, FISK_AI_TEST_CRASH_AT: "after-tool:1" } });
    assert.equal(killed.signal, "SIGKILL");
    const resumed = await cli(["run", "--resume", "v3k"], { cwd: dir, env });
    assert.equal(resumed.code, 0, resumed.stderr);
    const records = journalRecords(join(dir, "state", "v3k.json"));
    assert.equal((records[0] as { meta: { version: number } }).meta.version, 3);
    assert.ok(records.length > 4 && records.every((record) => !("part_started_at" in record)));
    const parts = (await sessionTrace(dir, "v3k")).filter((span) => span.name === "invoke_agent");
    assert.deepEqual(
      parts.map((span) => span.attributes["fisk_ai.status"]),
      ["completed"],
    );
  });
});
