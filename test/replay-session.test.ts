// covers: src/replay/replay-session.ts, src/replay/recording.ts, src/replay/call-matching.ts, src/replay/recorded-view.ts
// covers: src/replay/replay-tools.ts, src/replay/replay-usage.ts, src/replay/replay-report.ts, src/replay/replay-judge.ts
// Replays of recorded sessions on the script provider: twenty recordings made from a generator
// (parallel batches, approvals, compactions, follow-ups, children) replay as `same` against
// the agent that made them, and no tool runs (the side-effect file is never written again, no
// in-process tool or child model is called); a changed call, a new argument (and relaxing it),
// a departure kept going past, and the bad inputs: a journal that does not fold, a session
// still running, an input the new tool's schema refuses.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it, type TestContext } from "node:test";
import * as z from "zod";
import { defineTool, MemoryStore, ModelCallError, ScriptProvider, type JournalRecord, type ModelProvider } from "../src/index.js";
import { replaySession } from "../src/replay/replay-session.js";
import { canonicalArguments } from "../src/replay/call-matching.js";
import { agentOf, recordShape, scriptOf, shapeOf, toolRuns, toolsOf } from "./helpers/replay-recordings.js";

const SESSIONS = 20;

async function recordsOf(store: MemoryStore, runId: string): Promise<JournalRecord[]> {
  const records: JournalRecord[] = [];
  for await (const record of store.readRecords(runId)) records.push(record);
  return records;
}

/** The nth generated recording, in a store of its own; its side-effect file's directory goes after the test. */
async function recorded(t: TestContext, n: number) {
  const dir = mkdtempSync(join(tmpdir(), "fisk-replay-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const markFile = join(dir, "marks");
  const store = new MemoryStore();
  const shape = shapeOf(n);
  const sent: unknown[] = [];
  const runId = await recordShape(store, shape, markFile, `replay-${n}`, sent);
  return { markFile, store, shape, runId, sent };
}

describe("replaySession: the agent that recorded a session replays it as same", () => {
  it(`holds for ${SESSIONS} generated recordings, and no tool, side effect or child runs`, async (t) => {
    const shapes = new Set<string>();
    for (let n = 0; n < SESSIONS; n++) {
      const session = await recorded(t, n);
      assert.equal(readFileSync(session.markFile, "utf8"), "ran\n", `recording ${n} ran its side-effect tool once`);
      rmSync(session.markFile);
      const records = await recordsOf(session.store, session.runId);
      const kinds = new Set(records.map((record) => record.protocol.split(".").at(-1)));
      shapes.add([...kinds].sort().join(","));
      const before = { ...toolRuns };
      const lastSeq = records.length;
      const sent: unknown[] = [];
      const report = await replaySession(
        { store: session.store, runId: session.runId },
        agentOf(scriptOf(session.shape), session.markFile, session.shape, sent),
      );
      // Compactions included: the new model is sent what the recording's model was.
      assert.deepEqual(sent, session.sent, `replay ${n} sends the recorded conversation`);
      assert.equal(report.result, "same", `recording ${n} (${JSON.stringify(session.shape)}): ${JSON.stringify(report.departures[0] ?? report.end)}`);
      assert.equal(report.turns.replayed, report.turns.recorded);
      assert.equal(report.replayed.modelCalls, report.recorded.modelCalls);
      assert.equal(report.textDiffers, undefined);
      assert.equal(existsSync(session.markFile), false, `replay ${n} never wrote the side-effect file`);
      assert.deepEqual(toolRuns, before, `replay ${n} ran no in-process tool and no child model`);
      assert.equal((await recordsOf(session.store, session.runId)).length, lastSeq, `replay ${n} wrote nothing to the recording`);
      assert.equal((await session.store.list()).length, session.shape.child ? 2 : 1, `replay ${n} made no session`);
    }
    // The generator's shapes do cover what they claim: approvals, compactions, follow-ups.
    for (const kind of ["approval_request", "approval_decision", "compaction", "user", "tool_result"]) {
      assert.ok(
        [...shapes].some((set) => set.split(",").includes(kind)),
        `some recording has a ${kind} record`,
      );
    }
  });
});

describe("replaySession: departures", () => {
  it("a different tool called departs at exactly that turn, with both sides", async (t) => {
    const session = await recorded(t, 4);
    const turns = scriptOf(session.shape, (turn, calls) => (turn === 2 ? [{ name: "lookup", input: { q: "something else" } }] : calls));
    const report = await replaySession({ store: session.store, runId: session.runId }, agentOf(turns, session.markFile, session.shape));
    assert.equal(report.result, "departs");
    assert.equal(report.turn, 2);
    const kinds = report.departures.map((departure) => departure.kind).sort();
    assert.ok(kinds.includes("call-not-recorded"), JSON.stringify(report.departures));
    assert.deepEqual(report.departures[0]?.replayed.calls, [{ name: "lookup", input: { q: "something else" } }]);
    assert.ok((report.departures[0]?.recorded.calls.length ?? 0) >= 1);
    assert.equal(report.turns.replayed, 2, "the replay stopped at the departure");
    assert.equal(existsSync(session.markFile), true);
  });

  it("a new argument departs; relaxing it for the tool makes the replay same", async (t) => {
    const session = await recorded(t, 7);
    const stamped = scriptOf(session.shape, (turn, calls) =>
      calls.map((call) => (call.name === "lookup" ? { ...call, input: { ...call.input, at: `t${turn}` } } : call)),
    );
    const agent = agentOf(stamped, session.markFile, session.shape);
    const departs = await replaySession({ store: session.store, runId: session.runId }, agent);
    assert.equal(departs.result, "departs");
    assert.equal(departs.turn, 1);
    const relaxed = await replaySession({ store: session.store, runId: session.runId }, agentOf(stamped, session.markFile, session.shape), {
      relax: { lookup: ["at"] },
    });
    assert.equal(relaxed.result, "same", JSON.stringify(relaxed.departures));
  });

  it("an answer at another turn departs; --keep-going goes on to the follow-ups and marks each departure", async (t) => {
    const session = await recorded(t, 5);
    assert.ok(session.shape.followUps >= 1 && session.shape.toolTurns >= 2);
    // The first prompt answered a turn early: the script loses its last tool turn of segment 0.
    const turns = scriptOf(session.shape);
    turns.splice(session.shape.toolTurns - 1, 1);
    const stops = await replaySession({ store: session.store, runId: session.runId }, agentOf(turns, session.markFile, session.shape));
    assert.equal(stops.result, "departs");
    assert.equal(stops.turn, session.shape.toolTurns);
    assert.equal(stops.departures.length, 1);
    assert.equal(stops.departures[0]?.kind, "answer-at-another-turn");
    const goes = await replaySession({ store: session.store, runId: session.runId }, agentOf(turns, session.markFile, session.shape), { keepGoing: true });
    assert.equal(goes.turn, session.shape.toolTurns);
    assert.ok(goes.turns.replayed > stops.turns.replayed, "kept going past the departure");
  });
});

describe("replaySession: bad input is a clear result, never a crash or a tool run", () => {
  it("refuses a journal with a record that does not fold, naming its seq", async (t) => {
    const session = await recorded(t, 1);
    const records = await recordsOf(session.store, session.runId);
    const broken = records.map((record) => (record.seq === 3 ? { ...record, seq: 9 } : record));
    const report = await replaySession(broken, agentOf(scriptOf(session.shape), session.markFile, session.shape));
    assert.equal(report.result, "refused");
    assert.match(report.refusal ?? "", /record seq 9/);
    assert.equal(report.runId, session.runId);
    assert.equal(report.replayed.modelCalls, 0);
  });

  it("refuses a journal with no records", async () => {
    const report = await replaySession([], agentOf(scriptOf(shapeOf(0)), "/nonexistent/marks", shapeOf(0)));
    assert.equal(report.result, "refused");
    assert.match(report.refusal ?? "", /holds no records/);
  });

  it("refuses a session still running", async (t) => {
    const session = await recorded(t, 1);
    const held = await session.store.open(session.runId);
    t.after(() => held.close());
    const report = await replaySession({ store: session.store, runId: session.runId }, agentOf(scriptOf(session.shape), session.markFile, session.shape));
    assert.equal(report.result, "refused");
    assert.match(report.refusal ?? "", /still running/);
  });

  it("reports a recorded input the new tool's schema refuses, and runs nothing", async (t) => {
    const session = await recorded(t, 1);
    const strict = defineTool({ name: "lookup", description: "Look a term up", input: z.object({ q: z.string().max(3) }), run: () => "never" });
    const tools = [strict, ...toolsOf(session.markFile).filter((tool) => tool.name !== "lookup")];
    const agent = { ...agentOf(scriptOf(session.shape), session.markFile, session.shape), tools };
    const report = await replaySession({ store: session.store, runId: session.runId }, agent);
    assert.equal(report.result, "departs");
    assert.equal(report.departures[0]?.kind, "input-refused");
    assert.match(report.departures[0]?.detail ?? "", /input schema of lookup refuses the recorded input/);
    assert.equal(existsSync(session.markFile), true);
  });

  it("a recording cut off mid-batch ends the replay there, same so far", async (t) => {
    const session = await recorded(t, 1);
    const records = await recordsOf(session.store, session.runId);
    const firstResult = records.findIndex((record) => record.protocol.endsWith(".tool_result"));
    const report = await replaySession(records.slice(0, firstResult), agentOf(scriptOf(session.shape), session.markFile, session.shape));
    assert.equal(report.result, "same");
    assert.match(report.end, /the recording ends after turn 1/);
  });
});

describe("replaySession with a judge", () => {
  /** A judge that answers `reply` (or fails, without one) and keeps what it was asked. */
  function judge(reply: string | undefined) {
    const asked: string[] = [];
    const script = new ScriptProvider({ turns: reply === undefined ? [{ tool_calls: [{ name: "x", input: {} }] }] : [{ text: reply }] });
    const provider: ModelProvider = {
      name: "script",
      complete: (request, signal) => {
        asked.push(`${request.system}\n${JSON.stringify(request.messages)}`);
        return reply === undefined ? Promise.reject(new ModelCallError("the judge is down", { retryable: false })) : script.complete(request, signal);
      },
    };
    return { judge: { provider, model: "claude-sonnet-4-5" }, asked };
  }

  it("asks about the final answers, once, and reports its verdict, reason and cost beside the exact result", async (t) => {
    const session = await recorded(t, 4);
    const turns = scriptOf(session.shape);
    turns[turns.length - 1] = { text: "a different final answer" };
    const cases: [string | undefined, string, RegExp][] = [
      ["PASS\nBoth say the same.", "pass", /^Both say the same\.$/],
      ["FAIL\nThe new one leaves beta out.", "fail", /^The new one leaves beta out\.$/],
      ["It depends.", "unclear", /^It depends\.$/],
      [undefined, "unclear", /^the judge's call failed: the judge is down$/],
    ];
    for (const [reply, verdict, reason] of cases) {
      const { judge: given, asked } = judge(reply);
      const report = await replaySession({ store: session.store, runId: session.runId }, agentOf(turns, session.markFile, session.shape), { judge: given });
      assert.equal(report.result, "same", "a judge never changes the exact comparison");
      assert.equal(report.judge?.verdict, verdict);
      assert.match(report.judge?.reason ?? "", reason);
      assert.equal(asked.length, 1);
      assert.match(asked[0] ?? "", /Reply with PASS or FAIL/);
      assert.match(asked[0] ?? "", /Find things out/);
      assert.ok(asked[0]?.includes(`<recorded_answer>\\nanswer ${session.shape.followUps}\\n`), "the recorded final answer");
      assert.match(asked[0] ?? "", /<new_answer>\\na different final answer\\n/);
      assert.equal(report.judge?.usage.modelCalls, reply === undefined ? 0 : 1);
      if (reply !== undefined) assert.ok((report.judge?.usage.cost ?? 0) > 0, "the judge's call is priced");
    }
  });

  it("asks nothing when the replay departs before the final answer", async (t) => {
    const session = await recorded(t, 4);
    const { judge: given, asked } = judge("PASS\nfine");
    const turns = scriptOf(session.shape, (turn, calls) => (turn === 1 ? [{ name: "lookup", input: { q: "other" } }] : calls));
    const report = await replaySession({ store: session.store, runId: session.runId }, agentOf(turns, session.markFile, session.shape), { judge: given });
    assert.equal(report.result, "departs");
    assert.equal(report.judge, undefined);
    assert.equal(asked.length, 0);
  });
});

describe("canonical arguments", () => {
  it("sorts keys at every depth and leaves relaxed paths out, `*` for any key or index", () => {
    assert.equal(canonicalArguments({ b: 1, a: { d: [2, { y: 1, x: 2 }], c: null } }), '{"a":{"c":null,"d":[2,{"x":2,"y":1}]},"b":1}');
    assert.equal(canonicalArguments({ q: "x", at: "now" }, ["at"]), '{"q":"x"}');
    assert.equal(
      canonicalArguments(
        {
          items: [
            { id: 1, v: 2 },
            { id: 3, v: 4 },
          ],
        },
        ["items.*.id"],
      ),
      '{"items":[{"v":2},{"v":4}]}',
    );
    assert.equal(canonicalArguments({ q: "x" }, ["missing.path"]), '{"q":"x"}');
  });
});
