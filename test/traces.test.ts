// covers: src/agent/agent-loop.ts, src/llm/script-provider.ts, src/telemetry/config-environment.ts
// covers: src/telemetry/otel-sdk.ts, src/telemetry/otel-setup.ts, src/telemetry/run-tracing.ts
// covers: src/telemetry/span-emitter.ts, src/telemetry/trace-ids.ts, src/telemetry/traced-run.ts, src/tools/tool-set.ts
// covers: src/tools/tool.ts
// process: shared
// OpenTelemetry traces (docs/traces.md): what the SDK sends over real OTLP/HTTP on
// loopback, decoded by the test's own receiver: one trace per session, spans by the GenAI
// conventions, TRACEPARENT for a command tool, no content by default and no secret ever,
// one trace across a kill -9 and a resume in another process, and `session trace` of a
// journaled session giving the tree the live export gave.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { InMemorySpanExporter, RandomIdGenerator, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { startRun } from "../src/agent/agent-loop.js";
import { agentSpec } from "../src/agent/agent-spec.js";
import { ScriptProvider } from "../src/llm/script-provider.js";
import { runTracing, sessionIdGenerator } from "../src/telemetry/index.js";
import { sessionTraceId, toolSpanId } from "../src/telemetry/trace-ids.js";
import { defineTool } from "../src/tools/tool.js";
import { journalRecords } from "./helpers/journal-file.js";
import { startNatsServer } from "./helpers/nats-server.js";
import { skipWithout } from "./helpers/programs.js";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "./helpers/otlp-receiver.js";
import { commandsInProcess } from "./helpers/in-process-cli.js";
import { eventually } from "./helpers/eventually.js";

/** The file's first call spawned, the later ones in this process (test/helpers/in-process-cli.ts). */
const cli = commandsInProcess(["session", "run"]);

const dir = mkdtempSync(join(tmpdir(), "fisk-ai-traces-"));
const PROMPT = "summarize the zebra ledger";
const TOOL_OUTPUT = "quokka-output-text";
const SECRETS = ["sk-ant-never-sent-1", "x-honeycomb-team=hdr-never-sent-2"];
let receiver: OtlpReceiver;

before(async () => {
  receiver = await startOtlpReceiver();
  writeFileSync(
    join(dir, "agent.yaml"),
    [
      "provider: script",
      "model: script-test",
      "script: ./s.yaml",
      "session: { state_dir: ./state }",
      "tools:",
      // Writes the trace context it was given, and whether the OTLP headers reached it.
      `  - { name: note, description: Note, command: [sh, -c, 'echo "$TRACEPARENT|\${OTEL_EXPORTER_OTLP_HEADERS:-none}" >> ${join(dir, "seen")}; echo ${TOOL_OUTPUT}'] }`,
    ].join("\n"),
  );
  writeFileSync(join(dir, "s.yaml"), "turns:\n  - tool_calls: [{ name: note }]\n  - tool_calls: [{ name: note }]\n  - text: the answer\n");
});
after(async () => {
  await receiver.close();
  rmSync(dir, { recursive: true, force: true });
});

function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: dir,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_SERVICE_NAME: "traces-test",
    OTEL_BSP_SCHEDULE_DELAY: "20",
    ANTHROPIC_API_KEY: SECRETS[0],
    OTEL_EXPORTER_OTLP_HEADERS: SECRETS[1],
    ...extra,
  };
}

async function run(args: string[], extra: NodeJS.ProcessEnv = {}) {
  return cli(args, { cwd: dir, env: env(extra) });
}

function ofTrace(runId: string): ReceivedSpan[] {
  return receiver.spans.filter((span) => span.attributes["fisk_ai.session.id"] === runId);
}

/** The tree as names, ids and attributes, without the times a live part has of its own. */
function tree(spans: ReceivedSpan[]) {
  return spans
    .map(({ traceId, spanId, parentSpanId, name, kind, attributes, links, status }) => ({
      traceId,
      spanId,
      parentSpanId,
      name,
      kind,
      attributes,
      links,
      status,
    }))
    .sort((a, b) => a.spanId.localeCompare(b.spanId));
}

describe("a traced run", () => {
  it("exports one invoke_agent span, a chat span per model call and an execute_tool span per call, all in the session's trace", async () => {
    const result = await run(["run", "--checkpoint", "--name", "t1", PROMPT]);
    assert.equal(result.code, 0, result.stderr);
    const spans = ofTrace("t1");
    assert.deepEqual(spans.map((span) => span.name).sort(), [
      "chat script-test",
      "chat script-test",
      "chat script-test",
      "execute_tool note",
      "execute_tool note",
      "invoke_agent",
    ]);
    assert.ok(spans.every((span) => span.traceId === sessionTraceId("t1") && span.service === "traces-test"));
    const part = spans.find((span) => span.name === "invoke_agent") as ReceivedSpan;
    assert.equal(part.parentSpanId, undefined);
    assert.deepEqual(
      { ...part.attributes },
      {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.provider.name": "script",
        "gen_ai.request.model": "script-test",
        "gen_ai.conversation.id": "t1",
        "fisk_ai.session.id": "t1",
        "fisk_ai.seq.first": 1,
        "fisk_ai.status": "completed",
        "fisk_ai.resumed": false,
      },
    );
    for (const span of spans.filter((span) => span !== part)) assert.equal(span.parentSpanId, part.spanId, span.name);
    const chat = spans.find((span) => span.name === "chat script-test" && span.attributes["fisk_ai.iteration"] === 0) as ReceivedSpan;
    assert.equal(chat.kind, 3, "a chat span is a CLIENT span");
    assert.equal(chat.attributes["gen_ai.operation.name"], "chat");
    assert.equal(chat.attributes["gen_ai.provider.name"], "script");
    assert.equal(chat.attributes["gen_ai.request.model"], "script-test");
    assert.deepEqual(chat.attributes["gen_ai.response.finish_reasons"], ["tool_use"]);
    assert.equal(typeof chat.attributes["gen_ai.usage.input_tokens"], "number");
    assert.equal(typeof chat.attributes["gen_ai.usage.output_tokens"], "number");
    const tool = spans.find((span) => span.name === "execute_tool note") as ReceivedSpan;
    assert.equal(tool.attributes["gen_ai.tool.name"], "note");
    assert.equal(tool.attributes["gen_ai.tool.type"], "function");
    assert.ok(tool.endMs >= tool.startMs && chat.endMs >= chat.startMs);
    // The command tool was handed its own span as its parent; never the OTLP headers.
    const seen = readFileSync(join(dir, "seen"), "utf8").trim().split("\n");
    assert.equal(seen.length, 2);
    const ids = spans.filter((span) => span.name === "execute_tool note").map((span) => `00-${span.traceId}-${span.spanId}-01|none`);
    assert.deepEqual(seen.sort(), ids.sort());
    for (const span of spans.filter((span) => span.name === "execute_tool note"))
      assert.equal(span.spanId, toolSpanId("t1", span.attributes["gen_ai.tool.call.id"] as string));
  });

  it("journals when each model call and tool ran, and the spans take those times", () => {
    const timed = journalRecords(join(dir, "state", "t1.json")).flatMap((record): { started_at?: string; ended_at?: string }[] =>
      record.protocol === "io.choria.fisk-ai.v1.session.assistant"
        ? [record.assistant]
        : record.protocol === "io.choria.fisk-ai.v1.session.tool_result"
          ? [record.tool_result]
          : [],
    );
    assert.equal(timed.length, 5);
    for (const payload of timed) {
      assert.ok(payload.started_at !== undefined && payload.ended_at !== undefined && Date.parse(payload.started_at) <= Date.parse(payload.ended_at));
    }
    const starts = ofTrace("t1")
      .filter((span) => span.name !== "invoke_agent")
      .map((span) => span.startMs)
      .sort((a, b) => a - b);
    assert.deepEqual(
      starts,
      timed.map((payload) => Date.parse(payload.started_at as string)).sort((a, b) => a - b),
    );
  });

  it("sends no prompt, answer or tool output by default, and never a credential", () => {
    const sent = receiver.bodies.join("\n");
    for (const text of [PROMPT, TOOL_OUTPUT, "the answer", ...SECRETS, "hdr-never-sent-2"]) assert.ok(!sent.includes(text), `sent ${text}`);
  });

  it("carries the conversation's text when OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT asks for it, still no credential", async () => {
    const result = await run(["run", "--checkpoint", "--name", "t2", PROMPT], { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true" });
    assert.equal(result.code, 0, result.stderr);
    const spans = ofTrace("t2");
    const answer = spans.find((span) => span.attributes["fisk_ai.iteration"] === 2) as ReceivedSpan;
    assert.match(String(answer.attributes["gen_ai.output.messages"]), /the answer/);
    const tool = spans.find((span) => span.name === "execute_tool note") as ReceivedSpan;
    assert.match(String(tool.attributes["gen_ai.tool.call.result"]), new RegExp(TOOL_OUTPUT));
    const sent = receiver.bodies.join("\n");
    for (const text of [...SECRETS, "hdr-never-sent-2"]) assert.ok(!sent.includes(text), `sent ${text}`);
  });

  it("is sent again by `session trace` from the journal, as the same tree", async () => {
    const later = await startOtlpReceiver();
    try {
      const result = await cli(["session", "trace", "t1", "--endpoint", later.url], { cwd: dir, env: { PATH: process.env.PATH, HOME: dir } });
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, "sent 6 spans of session t1\n");
      assert.deepEqual(tree(later.spans), tree(ofTrace("t1")));
    } finally {
      await later.close();
    }
  });
});

describe("a traced run journaled to JetStream", { skip: skipWithout("nats-server") }, () => {
  it("is sent again by `session trace --store` from the stream, as the same tree", async () => {
    const nats = await startNatsServer();
    const later = await startOtlpReceiver();
    try {
      const store = `${nats.url}/TRACES`;
      const init = await run(["session", "init-stream", "--store", store]);
      assert.equal(init.code, 0, init.stderr);
      const live = await run(["run", "--checkpoint", "--store", store, "--name", "js1", PROMPT]);
      assert.equal(live.code, 0, live.stderr);
      const result = await cli(["session", "trace", "js1", "--store", store, "--endpoint", later.url], {
        cwd: dir,
        env: { PATH: process.env.PATH, HOME: dir },
      });
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, "sent 6 spans of session js1\n");
      assert.deepEqual(tree(later.spans), tree(ofTrace("js1")));
    } finally {
      await later.close();
      await nats.stop();
    }
  });
});

describe("a call parked for approval", () => {
  it("is one await_approval span from the request to the decision, under the part that parked it, in `session trace`", async () => {
    const ws = mkdtempSync(join(dir, "approvals-"));
    writeFileSync(
      join(ws, "agent.yaml"),
      [
        "provider: script",
        "model: script-test",
        "script: ./s.yaml",
        "session: { state_dir: ./state }",
        "tools:",
        "  - { name: guarded, description: Guarded, command: [echo, ok], confirm: true }",
      ].join("\n"),
    );
    writeFileSync(join(ws, "s.yaml"), "turns:\n  - tool_calls: [{ name: guarded }]\n  - text: done\n");
    const at = (args: string[], extra: NodeJS.ProcessEnv = {}) => cli(args, { cwd: ws, env: env(extra) });
    const parked = await at(["run", "--checkpoint", "--approvals", "defer", "--name", "ap1", PROMPT]);
    assert.equal(parked.code, 10, parked.stderr);
    const approved = await at(["session", "approve", "ap1", "--resume"]);
    assert.equal(approved.code, 0, approved.stderr);
    const later = await startOtlpReceiver();
    try {
      const sent = await cli(["session", "trace", "ap1", "--endpoint", later.url], { cwd: ws, env: { PATH: process.env.PATH, HOME: dir } });
      assert.equal(sent.code, 0, sent.stderr);
      const wait = later.spans.find((span) => span.name === "await_approval guarded") as ReceivedSpan;
      assert.equal(wait.attributes["fisk_ai.approval.decision"], "approve");
      assert.equal(wait.attributes["fisk_ai.approval.kind"], "approval");
      assert.ok(wait.endMs >= wait.startMs);
      const first = later.spans.find((span) => span.name === "invoke_agent" && span.attributes["fisk_ai.seq.first"] === 1) as ReceivedSpan;
      assert.equal(first.attributes["fisk_ai.status"], "awaiting_approval");
      assert.equal(wait.parentSpanId, first.spanId);
      assert.ok(later.spans.every((span) => span.traceId === sessionTraceId("ap1")));
      // The parked part and the resumed one, linked to it; the decision between them is no part of the run.
      const parts = later.spans.filter((span) => span.name === "invoke_agent");
      assert.equal(parts.length, 2);
      assert.deepEqual(
        parts.map((span) => span.links),
        [[], [{ traceId: first.traceId, spanId: first.spanId }]],
      );
    } finally {
      await later.close();
    }
  });
});

describe("a traced run whose collector is down", () => {
  it("still completes, exit 0, and says in one line that its traces were not sent", async () => {
    const gone = await startOtlpReceiver();
    await gone.close();
    // The exporter retries until OTEL_EXPORTER_OTLP_TIMEOUT (10 s unless set) before the run may exit.
    const result = await run(["run", "--checkpoint", "--name", "t4", PROMPT], { OTEL_EXPORTER_OTLP_ENDPOINT: gone.url, OTEL_EXPORTER_OTLP_TIMEOUT: "1000" });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout.trim(), "the answer");
    const lines = result.stderr.split("\n").filter((line) => line.includes("traces were not all sent"));
    assert.equal(lines.length, 1, result.stderr);
    // The command to send them again names this session, ready to paste.
    assert.match(lines[0] as string, /; '\S*(fisk-ai|node \S+main\.js) session trace t4 --config \S+' sends its spans again$/);
  });
});

describe("a traced run killed and resumed in another process", () => {
  it("stays one trace: the resume emits the dead part, marked as such, and links its own part to it", async () => {
    const killed = await run(["run", "--checkpoint", "--name", "t3", PROMPT], { FISK_AI_TEST_CRASH_AT: "after-tool:1" });
    assert.equal(killed.signal, "SIGKILL");
    const resumed = await run(["run", "--resume", "t3"]);
    assert.equal(resumed.code, 0, resumed.stderr);
    await eventually(() => ofTrace("t3").filter((span) => span.name === "invoke_agent").length === 2, "both parts' spans");
    const spans = ofTrace("t3");
    assert.ok(
      spans.every((span) => span.traceId === sessionTraceId("t3")),
      "every span, from either process, is in the session's trace",
    );
    const [dead, live] = spans
      .filter((span) => span.name === "invoke_agent")
      .sort((a, b) => Number(a.attributes["fisk_ai.seq.first"]) - Number(b.attributes["fisk_ai.seq.first"])) as [ReceivedSpan, ReceivedSpan];
    assert.equal(dead.attributes["fisk_ai.seq.first"], 1);
    assert.equal(dead.attributes["fisk_ai.status"], "ended without a terminal record");
    assert.equal(dead.status.code, 2, "the dead part is an error span");
    assert.equal(live.attributes["fisk_ai.resumed_after_crash"], true);
    assert.equal(live.attributes["fisk_ai.status"], "completed");
    assert.equal(live.parentSpanId, dead.spanId);
    assert.deepEqual(live.links, [{ traceId: dead.traceId, spanId: dead.spanId }]);
    // The resume ran the remaining calls under its own part.
    assert.ok(spans.some((span) => span.name === "execute_tool note" && span.parentSpanId === live.spanId));
  });
});

describe("session trace", () => {
  it("without a collector to send to is refused with what to give", async () => {
    const result = await cli(["session", "trace", "t1"], { cwd: dir, env: { PATH: process.env.PATH, HOME: dir } });
    assert.equal(result.code, 2);
    assert.equal(result.stderr.trim().split("\n").length, 1);
    assert.match(result.stderr, /--endpoint URL/);
  });

  it("refuses an endpoint that is not an http URL", async () => {
    const result = await cli(["session", "trace", "t1", "--endpoint", "localhost:4318"], { cwd: dir, env: { PATH: process.env.PATH, HOME: dir } });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /is not an http\(s\) URL/);
  });

  it("says so in one line, exit 1, when the collector refuses the spans", async () => {
    const refusing = await startOtlpReceiver();
    refusing.refuseWith(400);
    try {
      const result = await cli(["session", "trace", "t1", "--endpoint", refusing.url], { cwd: dir, env: { PATH: process.env.PATH, HOME: dir } });
      assert.equal(result.code, 1);
      assert.equal(result.stderr.trim().split("\n").length, 1, result.stderr);
      assert.match(result.stderr, /the collector did not take the spans/);
    } finally {
      await refusing.close();
    }
  });
});

describe("a program's own tracer provider", () => {
  async function tracedLibraryRun(runId: string, provider: TracerProvider, sessionIds: boolean): Promise<void> {
    const script = join(dir, `${runId}.yaml`);
    writeFileSync(script, "turns:\n  - tool_calls: [{ name: note }]\n  - text: done\n");
    const note = defineTool({ name: "note", description: "note it", input: { type: "object", properties: {} }, run: async () => "noted" });
    const tracing = runTracing({ tracerProvider: provider, provider: "script", model: "m", sessionIds });
    const spec = agentSpec({
      provider: new ScriptProvider(script),
      model: "m",
      system: "s",
      tools: [note],
      parallelTools: false,
      budget: { maxOutputTokens: 100, maxTokens: 1_000_000, maxIterations: 5 },
      thinking: { mode: "off" as const },
      retry: { attempts: 1, baseDelayMs: 1, timeoutMs: 1000 },
    });
    const outcome = await startRun({ spec, events: tracing.events, callEnvironment: tracing.callEnvironment }, { prompt: "go", runId });
    assert.equal(outcome.reason, "completed");
  }

  it("built with sessionIdGenerator, gets the session's own ids: the first part is the root", async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({ idGenerator: sessionIdGenerator(new RandomIdGenerator()), spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    await tracedLibraryRun("lib1", provider, true);
    const spans = exporter.getFinishedSpans();
    assert.equal(spans.length, 4);
    assert.ok(spans.every((span) => span.spanContext().traceId === sessionTraceId("lib1")));
    const roots = spans.filter((span) => span.parentSpanContext === undefined);
    assert.deepEqual(
      roots.map((span) => span.name),
      ["invoke_agent"],
    );
    const tool = spans.find((span) => span.name === "execute_tool note");
    assert.equal(tool?.spanContext().spanId, toolSpanId("lib1", String(tool?.attributes["gen_ai.tool.call.id"])));
  });

  it("with ids of its own, still puts every span in the session's trace", async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    await tracedLibraryRun("lib2", provider, false);
    const spans = exporter.getFinishedSpans();
    assert.equal(spans.length, 4);
    assert.ok(spans.every((span) => span.spanContext().traceId === sessionTraceId("lib2")));
  });
});
