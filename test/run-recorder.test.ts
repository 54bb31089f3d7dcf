// covers: src/agent/run-recorder.ts, src/backends/memory/memory-store.ts, src/runstate/records/records.ts
// covers: src/runstate/views/fold.ts
// process: shared
// The recorder advances the run's state by the one record it appends: over a long run
// the fold does one step per record, so recording costs grow linearly, not quadratically.
import assert from "node:assert/strict";
import test from "node:test";
import { fold, MemoryStore, type JournalRecord } from "../src/index.js";
import { PROTOCOLS, RECORD_VERSION, type MetaPayload, type RecordEntry } from "../src/journal.js";
import { RunRecorder } from "../src/agent/run-recorder.js";

const meta = (runId: string): MetaPayload => ({
  version: RECORD_VERSION,
  run_id: runId,
  created: "2026-01-01T00:00:00Z",
  fingerprint: {
    model: "m",
    system_hash: "s",
    tools_hash: "t",
    thinking_mode: "off",
    max_tokens: 0,
    max_iterations: 0,
  },
  prompt: "go",
});

/**
 * The payload wrapped so that every read of `field` is counted: fold reads it exactly
 * once per step over the record, so the count is the number of steps taken over it.
 */
function counted<T extends object>(payload: T, field: keyof T, steps: { count: number }): T {
  return new Proxy(payload, {
    get(target, key, receiver) {
      if (key === field) steps.count++;
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
}

/** Drives `iterations` tool-using turns through the recorder, reading its state the way the loop does. */
async function recordLongRun(recorder: RunRecorder, iterations: number, steps: { count: number }): Promise<RecordEntry[]> {
  const entries: RecordEntry[] = [];
  const record = async (entry: RecordEntry) => {
    entries.push(entry);
    await recorder.append(entry);
  };
  for (let i = 0; i < iterations; i++) {
    assert.equal(recorder.state().nextIteration, i);
    const id = `toolu_${i}`;
    const message = { role: "assistant" as const, content: [{ type: "tool_use" as const, id, name: "shell", input: { i } }] };
    const assistant = { iteration: i, message, stop_reason: "tool_use", in_tokens: 10, out_tokens: 5 };
    await record({ protocol: PROTOCOLS.assistant, assistant: counted(assistant, "in_tokens", steps) });
    assert.ok(recorder.state().pending !== undefined, `turn ${i} waits for its tool`);
    const toolResult = { tool_use_id: id, result: { type: "tool_result" as const, tool_use_id: id, content: `ran ${i}` } };
    await record({ protocol: PROTOCOLS.tool_result, tool_result: counted(toolResult, "tool_use_id", steps) });
    assert.equal(recorder.state().pending, undefined);
  }
  await record({ protocol: PROTOCOLS.terminal, terminal: { reason: "completed" } });
  return entries;
}

test("recording a run of N records takes N fold steps, whatever the run's length", async () => {
  for (const iterations of [500, 2_000]) {
    const steps = { count: 0 };
    const recorder = await RunRecorder.create(undefined, meta("long"));
    const entries = await recordLongRun(recorder, iterations, steps);
    // One step per assistant and tool_result record: refolding the journal after each
    // append would read the early records again every time (about iterations^2 steps).
    assert.equal(steps.count, 2 * iterations, `steps over ${iterations} iterations`);
    const records = [{ seq: 1, protocol: PROTOCOLS.meta, meta: meta("long") }, ...entries.map((entry, i) => ({ seq: i + 2, ...entry }))];
    assert.deepEqual(recorder.state(), fold(records as JournalRecord[]), "the recorder's state is the fold of what it recorded");
    assert.equal(recorder.state().counters.modelCalls, iterations);
    assert.equal(recorder.state().messages.length, 1 + 2 * iterations);
  }
});

test("a journaled recorder reads each record a fixed number of times and reopens to the same state", async () => {
  const counts: number[] = [];
  for (const iterations of [100, 400]) {
    const store = new MemoryStore();
    const steps = { count: 0 };
    const recorder = await RunRecorder.create(store, meta("journaled"));
    await recordLongRun(recorder, iterations, steps);
    const recorded = recorder.state();
    await recorder.close();
    counts.push(steps.count);
    const reopened = await RunRecorder.open(store, "journaled");
    try {
      assert.deepEqual(reopened.state(), recorded);
      assert.deepEqual(reopened.state(), await store.load("journaled"));
    } finally {
      await reopened.close();
    }
  }
  // The store reads each record too (to check and encode it), but only as it is appended.
  assert.equal(counts[1], 4 * (counts[0] as number), `reads over 100 and 400 iterations: ${counts.join(", ")}`);
});

test("an entry that does not fold is refused before it reaches the journal, and the state is kept", async () => {
  const store = new MemoryStore();
  const recorder = await RunRecorder.create(store, meta("refused"));
  try {
    const before = structuredClone(recorder.state());
    await assert.rejects(
      recorder.append({ protocol: PROTOCOLS.tool_result, tool_result: { tool_use_id: "x", result: { type: "tool_result", tool_use_id: "x", content: "" } } }),
      { code: "ERR_CORRUPT", message: /record seq 2: a tool result for x before any assistant turn/ },
    );
    assert.deepEqual(recorder.state(), before);
    assert.equal((await store.load("refused")).lastSeq, 1);
  } finally {
    await recorder.close();
  }
});
