// covers: src/telemetry/tree-spans.ts, src/runstate/store/records-of.ts
// process: shared
// One trace per tree of sessions (docs/traces.md): a sub-agent's session sends its spans,
// live, into the trace of the session at the top of its tree, its first part under the
// caller's execute_tool span, and its tools' processes get that trace's TRACEPARENT; after a
// crash of the whole tree and a resume, the child's parts stay there, the crashed one sent by
// the resume. From the journals afterwards, `session trace` builds the same tree.
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { InMemorySpanExporter, RandomIdGenerator, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from "@opentelemetry/sdk-trace";
import * as z from "zod";
import { agentTool, defineTool, MemoryStore, runAgent, ScriptProvider, type Store } from "../src/index.js";
import { childRunId } from "../src/journal.js";
import { emitSpan, runTracing, sessionIdGenerator, sessionTraceId, traceparent } from "../src/telemetry/index.js";
import { partSpanId } from "../src/telemetry/session-spans.js";
import { toolSpanId } from "../src/telemetry/trace-ids.js";
import { treeSpans } from "../src/telemetry/tree-spans.js";
import { commandsInProcess } from "./helpers/in-process-cli.js";
import { startOtlpReceiver, type ReceivedSpan } from "./helpers/otlp-receiver.js";

const LEAD_CALL = "toolu_script_1_1";
const CHILD_CALL = "toolu_script_1_1";

function inMemoryProvider() {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ idGenerator: sessionIdGenerator(new RandomIdGenerator()), spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  return { exporter, provider };
}

/** A lead whose researcher tool is a child agent with a `note` tool; `crash` aborts the whole tree at the note's first call. */
function tree(crash?: AbortController) {
  const seen: string[] = [];
  const note = defineTool({
    name: "note",
    description: "Notes.",
    input: z.object({}),
    run: async (_input, context) => {
      seen.push(context.env?.TRACEPARENT ?? "none");
      if (crash !== undefined && !crash.signal.aborted) crash.abort();
      return "noted";
    },
  });
  const researcher = agentTool({
    name: "researcher",
    description: "Researches.",
    agent: {
      provider: new ScriptProvider({ turns: [{ tool_calls: [{ name: "note", input: {} }] }, { text: "child done" }] }),
      model: "child-model",
      tools: [note],
    },
  });
  const lead = {
    provider: new ScriptProvider({ turns: [{ tool_calls: [{ name: "researcher", input: { prompt: "go" } }] }, { text: "lead done" }] }),
    model: "lead-model",
    tools: [researcher],
  };
  return { lead, seen };
}

function traced(provider: TracerProvider, journal: Awaited<ReturnType<typeof recordsOf>> = []) {
  const tracing = runTracing({ tracerProvider: provider, provider: "script", model: "lead-model", journal });
  return { events: tracing.events, callEnvironment: tracing.callEnvironment, childRuns: tracing.childRuns };
}

async function recordsOf(store: Store, runId: string) {
  const records = [];
  for await (const record of store.readRecords(runId)) records.push(record);
  return records;
}

/** What a collector shows of a span: its ids, name and session. */
function shape(span: ReadableSpan) {
  return {
    traceId: span.spanContext().traceId,
    spanId: span.spanContext().spanId,
    parentSpanId: span.parentSpanContext?.spanId,
    name: span.name,
    session: span.attributes["fisk_ai.session.id"],
  };
}

function byId(spans: readonly ReadableSpan[]) {
  return spans.map(shape).sort((a, b) => a.spanId.localeCompare(b.spanId));
}

describe("traces of a tree of sessions", () => {
  it("sends a child's spans live into the lead's trace, its first part under the lead's execute_tool span", async () => {
    const { exporter, provider } = inMemoryProvider();
    const store = new MemoryStore();
    const { lead, seen } = tree();
    const outcome = await runAgent({ ...lead, store, runId: "lead", prompt: "Lead", ...traced(provider) });
    assert.equal(outcome.answer, "lead done");
    const child = childRunId("lead", LEAD_CALL);
    const spans = exporter.getFinishedSpans().map(shape);
    assert.deepEqual(
      spans.map((span) => `${span.session} ${span.name}`).sort(),
      [
        `${child} chat child-model`,
        `${child} chat child-model`,
        `${child} execute_tool note`,
        `${child} invoke_agent`,
        "lead chat lead-model",
        "lead chat lead-model",
        "lead execute_tool researcher",
        "lead invoke_agent",
      ].sort(),
    );
    assert.ok(
      spans.every((span) => span.traceId === sessionTraceId("lead")),
      "every span is in the lead's trace",
    );
    const childPart = spans.find((span) => span.session === child && span.name === "invoke_agent");
    assert.equal(childPart?.parentSpanId, toolSpanId("lead", LEAD_CALL), "the child's part sits under the call that started it");
    assert.ok(spans.some((span) => span.spanId === toolSpanId("lead", LEAD_CALL) && span.name === "execute_tool researcher"));
    for (const span of spans.filter((span) => span.session === child && span.name !== "invoke_agent"))
      assert.equal(span.parentSpanId, childPart?.spanId, span.name);
    assert.deepEqual(seen, [traceparent("lead", toolSpanId(child, CHILD_CALL))], "the child's tool is handed the tree's trace");
    const child0 = exporter.getFinishedSpans().find((span) => span.name === "chat child-model");
    assert.equal(child0?.attributes["gen_ai.request.model"], "child-model", "a child's spans name its own model");

    // From the journals, the lead's tree and the child alone give the same spans, in the same trace.
    for (const from of ["lead", child]) {
      const again = inMemoryProvider();
      const sent = await treeSpans(store, from, false);
      assert.equal(sent.traceRunId, "lead");
      for (const span of sent.spans) emitSpan(again.provider.getTracer("t"), sent.traceRunId, span);
      const expected = byId(exporter.getFinishedSpans()).filter((span) => from === "lead" || span.session === child);
      assert.deepEqual(byId(again.exporter.getFinishedSpans()), expected, from);
    }
  });

  it("keeps a child's parts in the lead's trace across a crash of the whole tree and a resume", async () => {
    const { exporter, provider } = inMemoryProvider();
    const store = new MemoryStore();
    const crash = new AbortController();
    const { lead } = tree(crash);
    await assert.rejects(runAgent({ ...lead, store, runId: "crashed", prompt: "Lead", abortSignal: crash.signal, ...traced(provider) }));
    const child = childRunId("crashed", LEAD_CALL);
    const outcome = await runAgent({ ...lead, store, resume: "crashed", ...traced(provider, await recordsOf(store, "crashed")) });
    assert.equal(outcome.answer, "lead done");
    const spans = exporter.getFinishedSpans();
    assert.ok(
      spans.every((span) => span.spanContext().traceId === sessionTraceId("crashed")),
      "every span of both processes is in the lead's trace",
    );
    const parts = spans.filter((span) => span.name === "invoke_agent" && span.attributes["fisk_ai.session.id"] === child);
    assert.deepEqual(parts.map((span) => span.attributes["fisk_ai.seq.first"]).sort(), [1, parts[1]?.attributes["fisk_ai.seq.first"]].sort());
    const [first, second] = [...parts].sort((a, b) => Number(a.attributes["fisk_ai.seq.first"]) - Number(b.attributes["fisk_ai.seq.first"]));
    assert.equal(first?.attributes["fisk_ai.status"], "ended without a terminal record", "the crashed part, sent by the resume");
    assert.equal(first?.parentSpanContext?.spanId, toolSpanId("crashed", LEAD_CALL));
    assert.equal(second?.attributes["fisk_ai.resumed_after_crash"], true);
    assert.equal(second?.parentSpanContext?.spanId, partSpanId(child, 1));
    assert.deepEqual(
      second?.links.map((link) => link.context.spanId),
      [partSpanId(child, 1)],
    );
    // The call the crash cut short ran again under the resumed lead: one execute_tool span for it.
    assert.equal(spans.filter((span) => span.spanContext().spanId === toolSpanId("crashed", LEAD_CALL)).length, 1);
  });

  it("the CLI sends a lead's and its children's spans live as one trace, and `session trace` sends the same tree again", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fisk-ai-traces-tree-"));
    const [live, later] = [await startOtlpReceiver(), await startOtlpReceiver()];
    try {
      cpSync(join(import.meta.dirname, "..", "..", "examples", "sub-agents"), dir, { recursive: true });
      const cli = commandsInProcess(["session", "run"]);
      const env = {
        PATH: process.env.PATH,
        HOME: dir,
        XDG_STATE_HOME: join(dir, "state"),
        OTEL_EXPORTER_OTLP_ENDPOINT: live.url,
        OTEL_BSP_SCHEDULE_DELAY: "20",
      };
      const ran = await cli(["run", "--checkpoint", "--name", "team", "Compare prices"], { cwd: dir, env });
      assert.equal(ran.code, 0, ran.stderr);
      const children = ["toolu_script_1_1", "toolu_script_1_2"].map((call) => childRunId("team", call));
      const sessions = new Set(live.spans.map((span) => span.attributes["fisk_ai.session.id"]));
      assert.deepEqual([...sessions].sort(), ["team", ...children].sort(), "the children's spans were sent too");
      assert.ok(
        live.spans.every((span) => span.traceId === sessionTraceId("team")),
        "one trace for the tree",
      );
      for (const [i, child] of children.entries()) {
        const part = live.spans.find((span) => span.name === "invoke_agent" && span.attributes["fisk_ai.session.id"] === child);
        assert.equal(part?.parentSpanId, toolSpanId("team", `toolu_script_1_${i + 1}`), child);
      }
      const again = await cli(["session", "trace", "team", "--endpoint", later.url], {
        cwd: dir,
        env: { PATH: process.env.PATH, HOME: dir, XDG_STATE_HOME: join(dir, "state") },
      });
      assert.equal(again.code, 0, again.stderr);
      assert.equal(again.stdout, `sent ${live.spans.length} spans of session team and the 2 sessions below it\n`);
      const ids = (spans: ReceivedSpan[]) =>
        spans.map(({ traceId, spanId, parentSpanId, name }) => ({ traceId, spanId, parentSpanId, name })).sort((a, b) => a.spanId.localeCompare(b.spanId));
      assert.deepEqual(ids(later.spans), ids(live.spans));
    } finally {
      await Promise.all([live.close(), later.close()]);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
