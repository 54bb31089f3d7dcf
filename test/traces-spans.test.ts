// covers: src/telemetry/session-spans.ts, src/telemetry/trace-ids.ts
// process: shared
// More of a session's trace (docs/traces.md), received over real OTLP/HTTP on loopback by
// the test's own receiver: a compaction's span, live and from the journal; the model that
// answered on a chat span; and MCP servers started by a traced run given the trace context
// of the run's part, read back from the repository's real MCP test server's environment.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { partSpanId } from "../src/telemetry/session-spans.js";
import { sessionTraceId, traceparent } from "../src/telemetry/trace-ids.js";
import { startFakeAnthropic, type FakeServer } from "./helpers/fake-anthropic-server.js";
import { journalRecords } from "./helpers/journal-file.js";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "./helpers/otlp-receiver.js";
import { commandsInProcess } from "./helpers/in-process-cli.js";

/** The file's first call spawned, the later ones in this process (test/helpers/in-process-cli.ts). */
const cli = commandsInProcess(["session", "run"]);

const root = mkdtempSync(join(tmpdir(), "fisk-ai-traces-spans-"));
const MCP_SERVER = new URL("./helpers/mcp-test-server.js", import.meta.url).pathname;
let receiver: OtlpReceiver;
before(async () => (receiver = await startOtlpReceiver()));
after(async () => {
  await receiver.close();
  rmSync(root, { recursive: true, force: true });
});

let workspaces = 0;
/** A workspace with this agent.yaml (its session lines added) and script. */
function workspace(agent: string[], script: string): string {
  const dir = join(root, `ws-${++workspaces}`);
  mkdirSync(dir);
  writeFileSync(join(dir, "agent.yaml"), [...agent, "session: { state_dir: ./state }"].join("\n"));
  writeFileSync(join(dir, "s.yaml"), script);
  return dir;
}

function traced(dir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: dir, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: "20", ...extra };
}

function ofSession(runId: string, from: ReceivedSpan[] = receiver.spans): ReceivedSpan[] {
  return from.filter((span) => span.attributes["fisk_ai.session.id"] === runId);
}

/** Names, ids and attributes, without the times a live span has of its own. */
function tree(spans: ReceivedSpan[]) {
  return spans
    .map(({ spanId, parentSpanId, name, attributes, status }) => ({ spanId, parentSpanId, name, attributes, status }))
    .sort((a, b) => a.spanId.localeCompare(b.spanId));
}

describe("a traced run that compacts its conversation", () => {
  const script = "turns:\n  - tool_calls: [{ name: big }]\n  - tool_calls: [{ name: big }]\n  - tool_calls: [{ name: big }]\n  - text: the answer\n";
  const agent = [
    "provider: script",
    "model: script-test",
    "script: ./s.yaml",
    // A small window, so that three big results make the run compact on its own.
    "compaction: { auto: true, window: 4000, threshold: 0.5, keep_recent: 1 }",
    `tools:\n  - { name: big, description: Big, command: [sh, -c, 'head -c 3000 /dev/zero | tr "\\0" x'] }`,
  ];

  it("sends a fisk_ai.compaction span under its part, with its record's times, and session trace sends the same", async () => {
    const dir = workspace(agent, script);
    const result = await cli(["run", "--checkpoint", "--name", "c1", "go"], { cwd: dir, env: traced(dir) });
    assert.equal(result.code, 0, result.stderr);
    const records = journalRecords(join(dir, "state", "c1.json"));
    const compactions = records.filter((record) => record.protocol === "io.choria.fisk-ai.v1.session.compaction");
    assert.equal(compactions.length, 1, "the run compacted once");
    const record = compactions[0] as Extract<(typeof records)[number], { compaction: unknown }>;
    const spans = ofSession("c1");
    const compaction = spans.filter((span) => span.name === "fisk_ai.compaction");
    assert.equal(compaction.length, 1);
    const span = compaction[0] as ReceivedSpan;
    const part = spans.find((one) => one.name === "invoke_agent") as ReceivedSpan;
    assert.equal(span.parentSpanId, part.spanId);
    assert.equal(span.traceId, sessionTraceId("c1"));
    assert.equal(span.attributes["gen_ai.operation.name"], "fisk_ai.compaction");
    assert.equal(span.attributes["fisk_ai.seq"], record.seq);
    assert.equal(span.attributes["fisk_ai.compaction.trigger"], "auto");
    assert.equal(span.attributes["fisk_ai.compaction.tokens_before"], record.compaction.tokens_before);
    assert.equal(span.attributes["fisk_ai.compaction.tokens_after"], record.compaction.tokens_after);
    assert.equal(span.attributes["gen_ai.request.model"], "script-test");
    assert.equal(span.attributes["gen_ai.usage.output_tokens"], record.compaction.out_tokens);
    assert.equal(span.startMs, Date.parse(record.compaction.started_at as string));
    assert.equal(span.endMs, Date.parse(record.compaction.ended_at as string));
    // No summary text leaves without content capture.
    assert.ok(!receiver.bodies.join("\n").includes(record.compaction.summary));

    const later = await startOtlpReceiver();
    try {
      const sent = await cli(["session", "trace", "c1", "--endpoint", later.url], { cwd: dir, env: { PATH: process.env.PATH, HOME: dir } });
      assert.equal(sent.code, 0, sent.stderr);
      assert.deepEqual(tree(later.spans), tree(spans));
    } finally {
      await later.close();
    }
  });
});

describe("a chat span", () => {
  let model: FakeServer;
  before(async () => {
    // The API answers an alias with the dated model it ran.
    model = await startFakeAnthropic(async () => ({
      content: [{ type: "text", text: "hello" }],
      stop_reason: "end_turn",
      usage: { input_tokens: 5, output_tokens: 2 },
      model: "claude-sonnet-4-5-20250929",
    }));
  });
  after(async () => model.close());

  it("names the model the provider's answer named as gen_ai.response.model, beside the one asked for, live and from the journal", async () => {
    const dir = workspace(["provider: anthropic", "model: claude-sonnet-4-5", "retry: { max_attempts: 1 }"], "");
    const result = await cli(["run", "--checkpoint", "--name", "m1", "say hello"], {
      cwd: dir,
      env: traced(dir, { ANTHROPIC_API_KEY: "sk-ant-traces-spans", ANTHROPIC_BASE_URL: model.url }),
    });
    assert.equal(result.code, 0, result.stderr);
    const chat = ofSession("m1").find((span) => span.name === "chat claude-sonnet-4-5") as ReceivedSpan;
    assert.equal(chat.attributes["gen_ai.request.model"], "claude-sonnet-4-5");
    assert.equal(chat.attributes["gen_ai.response.model"], "claude-sonnet-4-5-20250929");
    const later = await startOtlpReceiver();
    try {
      const sent = await cli(["session", "trace", "m1", "--endpoint", later.url], { cwd: dir, env: { PATH: process.env.PATH, HOME: dir } });
      assert.equal(sent.code, 0, sent.stderr);
      assert.equal(later.spans.find((span) => span.name === "chat claude-sonnet-4-5")?.attributes["gen_ai.response.model"], "claude-sonnet-4-5-20250929");
    } finally {
      await later.close();
    }
  });
});

describe("an MCP server started by a traced run", () => {
  const agent = [
    "provider: script",
    "model: script-test",
    "script: ./s.yaml",
    `mcp_servers:\n  - name: test\n    command: ${process.execPath}\n    args: [${MCP_SERVER}]`,
  ];
  const script = "turns:\n  - tool_calls: [{ name: test__environment }]\n  - text: done\n";

  /** The environment the server reported through its `environment` tool, from the journal. */
  function serverEnvironment(dir: string, runId: string): Record<string, string> {
    const result = journalRecords(join(dir, "state", `${runId}.json`)).find((record) => record.protocol === "io.choria.fisk-ai.v1.session.tool_result");
    assert.ok(result !== undefined && result.protocol === "io.choria.fisk-ai.v1.session.tool_result");
    const { content } = result.tool_result.result;
    return JSON.parse(typeof content === "string" ? content : (content[0] as { text: string }).text) as Record<string, string>;
  }

  it("gets the TRACEPARENT of the run's part, and the TRACESTATE fisk-ai was given, so its spans join the session's trace", async () => {
    const dir = workspace(agent, script);
    const result = await cli(["run", "--checkpoint", "--name", "s1", "go"], { cwd: dir, env: traced(dir, { TRACESTATE: "vendor=abc" }) });
    assert.equal(result.code, 0, result.stderr);
    const env = serverEnvironment(dir, "s1");
    assert.equal(env.TRACEPARENT, traceparent("s1", partSpanId("s1", 1)));
    assert.equal(env.TRACESTATE, "vendor=abc");
    const part = ofSession("s1").find((span) => span.name === "invoke_agent") as ReceivedSpan;
    assert.equal(env.TRACEPARENT, `00-${part.traceId}-${part.spanId}-01`, "the part whose span the collector got");
  });

  it("on a run without --name, gets the trace of the session the run then journals", async () => {
    const dir = workspace(agent, script);
    const result = await cli(["run", "--checkpoint", "go"], { cwd: dir, env: traced(dir) });
    assert.equal(result.code, 0, result.stderr);
    const journals = readdirSync(join(dir, "state")).filter((name) => name.endsWith(".json"));
    assert.equal(journals.length, 1);
    const [meta] = journalRecords(join(dir, "state", journals[0] as string));
    assert.ok(meta !== undefined && meta.protocol === "io.choria.fisk-ai.v1.session.meta");
    const runId = meta.meta.run_id;
    assert.equal(serverEnvironment(dir, runId).TRACEPARENT, traceparent(runId, partSpanId(runId, 1)));
  });

  it("gets no TRACEPARENT when the run is not traced", async () => {
    const dir = workspace(agent, script);
    const result = await cli(["run", "--checkpoint", "--name", "s3", "go"], { cwd: dir, env: { PATH: process.env.PATH, HOME: dir } });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(serverEnvironment(dir, "s3").TRACEPARENT, undefined);
  });
});

describe("agent.yaml's telemetry block", () => {
  const script = "turns:\n  - tool_calls: [{ name: peek }]\n  - text: the answer\n";
  /** The block, and a tool that writes whether the header's variable reached it. */
  const agent = (block: string) => [
    "provider: script",
    "model: script-test",
    "script: ./s.yaml",
    block,
    `tools:\n  - { name: peek, description: Peek, command: [sh, -c, 'echo "\${TRACE_KEY:-none}|\${OTEL_EXPORTER_OTLP_HEADERS:-none}" > seen; echo looked'] }`,
  ];

  it("turns tracing on without any OTEL_ variable: endpoint, service name, a header from a variable, content capture", async () => {
    const dir = workspace(
      agent(`telemetry:\n  endpoint: ${receiver.url}\n  service_name: yaml-agent\n  headers_env: { x-trace-key: TRACE_KEY }\n  capture_content: true`),
      script,
    );
    const sent = receiver.headers.length;
    const result = await cli(["run", "--checkpoint", "--name", "y1", "go"], {
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: dir, TRACE_KEY: "key-from-the-environment" },
    });
    assert.equal(result.code, 0, result.stderr);
    const spans = ofSession("y1");
    assert.deepEqual(spans.map((span) => span.name).sort(), ["chat script-test", "chat script-test", "execute_tool peek", "invoke_agent"]);
    assert.ok(spans.every((span) => span.service === "yaml-agent"));
    assert.match(String(spans.find((span) => span.name === "execute_tool peek")?.attributes["gen_ai.tool.call.result"]), /looked/);
    assert.ok(receiver.headers.slice(sent).every((headers) => headers["x-trace-key"] === "key-from-the-environment"));
    assert.ok(receiver.headers.length > sent);
    // The header's variable is a backend's key: the tool got neither it nor the headers.
    assert.equal(readFileSync(join(dir, "seen"), "utf8").trim(), "none|none");
  });

  it("without capture_content sends no content, and an OTEL_ variable set wins over the block", async () => {
    const other = await startOtlpReceiver();
    try {
      const dir = workspace(agent(`telemetry: { endpoint: ${receiver.url} }`), script);
      const result = await cli(["run", "--checkpoint", "--name", "y2", "go"], {
        cwd: dir,
        env: { PATH: process.env.PATH, HOME: dir, OTEL_EXPORTER_OTLP_ENDPOINT: other.url },
      });
      assert.equal(result.code, 0, result.stderr);
      assert.equal(ofSession("y2").length, 0, "nothing went to the block's endpoint");
      const spans = ofSession("y2", other.spans);
      assert.equal(spans.length, 4);
      assert.ok(spans.every((span) => span.service === "fisk-ai" && span.attributes["gen_ai.tool.call.result"] === undefined));
    } finally {
      await other.close();
    }
  });

  it("refuses an unknown key in one line naming it, exit 2", async () => {
    const dir = workspace(agent(`telemetry: { endpoint: ${receiver.url}, servce_name: x }`), script);
    const result = await cli(["run", "--checkpoint", "--name", "y3", "go"], { cwd: dir, env: { PATH: process.env.PATH, HOME: dir } });
    assert.equal(result.code, 2);
    assert.equal(result.stderr.trim().split("\n").length, 1, result.stderr);
    assert.match(result.stderr, /telemetry: unknown key "servce_name"/);
    assert.match(result.stderr, /service_name/);
  });

  it("refuses an endpoint that is not an http URL, and a header whose variable is not set, each in one line, exit 2", async () => {
    for (const [block, expected] of [
      ["telemetry: { endpoint: localhost:4318 }", /telemetry\.endpoint: expected the collector's OTLP\/HTTP address/],
      [
        `telemetry: { endpoint: ${receiver.url}, headers_env: { x-trace-key: UNSET_TRACE_KEY } }`,
        /telemetry\.headers_env\.x-trace-key: UNSET_TRACE_KEY is not set/,
      ],
    ] as const) {
      const dir = workspace(agent(block), script);
      const result = await cli(["run", "--checkpoint", "go"], { cwd: dir, env: { PATH: process.env.PATH, HOME: dir } });
      assert.equal(result.code, 2, result.stderr);
      assert.equal(result.stderr.trim().split("\n").length, 1, result.stderr);
      assert.match(result.stderr, expected);
    }
  });
});
