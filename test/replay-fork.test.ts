// covers: src/replay/replay-fork.ts, src/replay/replay-session.ts, src/replay/recording.ts
// replaySession's `fork` on the script provider, over the generated recordings of every shape
// (parallel batches, approvals, compactions, follow-ups, children): a candidate that changes
// the last tool turn departs there, and the fork holds the recording's records before that
// turn, an origin of kind `replay`, the candidate's turn and a suspension; it folds, and a
// resume runs the candidate's call for real, once. An early answer forks as completed; a run
// that stops before its next turn forks before the recorded one; the recording is untouched.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it, type TestContext } from "node:test";
import { MemoryStore, runAgent, type JournalRecord } from "../src/index.js";
import { replaySession } from "../src/replay/replay-session.js";
import { agentOf, recordShape, scriptOf, shapeOf, toolRuns } from "./helpers/replay-recordings.js";

async function recordsOf(store: MemoryStore, runId: string): Promise<JournalRecord[]> {
  const records: JournalRecord[] = [];
  for await (const record of store.readRecords(runId)) records.push(record);
  return records;
}

async function recorded(t: TestContext, n: number) {
  const dir = mkdtempSync(join(tmpdir(), "fisk-replay-fork-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const markFile = join(dir, "marks");
  const store = new MemoryStore();
  const shape = shapeOf(n);
  const runId = await recordShape(store, shape, markFile, `replay-${n}`);
  return { markFile, store, shape, runId, records: await recordsOf(store, runId) };
}

const kindOf = (record: JournalRecord | undefined): string | undefined => record?.protocol.split(".").at(-1);

describe("replaySession's fork", () => {
  it("forks every shape at its departure; the fork folds and resumes with the candidate's call run once", async (t) => {
    for (let n = 0; n < 20; n++) {
      const session = await recorded(t, n);
      const script = scriptOf(session.shape);
      const last = script.findLastIndex((turn) => turn.tool_calls !== undefined);
      const changed = scriptOf(session.shape, (turn, calls) => (turn === last + 1 ? [{ name: "lookup", input: { q: "changed" } }] : calls));
      const report = await replaySession({ store: session.store, runId: session.runId }, agentOf(changed, session.markFile, session.shape), {
        fork: { store: session.store },
      });
      assert.equal(report.result, "departs", `shape ${n}`);
      const forkId = report.fork?.runId as string;
      assert.ok(forkId !== undefined, `shape ${n}: ${JSON.stringify(report.fork)}`);
      assert.deepEqual(await recordsOf(session.store, session.runId), session.records, `shape ${n}: the recording is untouched`);

      const fork = await recordsOf(session.store, forkId);
      const origin = fork.findIndex((record) => kindOf(record) === "origin");
      const departed = session.records[origin];
      assert.equal(kindOf(departed), "assistant", `shape ${n}: the fork stops before a recorded turn`);
      assert.deepEqual(fork.slice(1, origin), session.records.slice(1, origin), `shape ${n}: the records before it are the recording's`);
      assert.deepEqual((fork[origin] as { origin: unknown }).origin, { run_id: session.runId, through_seq: origin, kind: "replay" });
      const turn = (fork[origin + 1] as { assistant: { message: { content: { type: string; input?: unknown }[] } } }).assistant;
      assert.deepEqual(
        turn.message.content.filter((block) => block.type === "tool_use").map((block) => block.input),
        [{ q: "changed" }],
      );
      assert.deepEqual((fork[origin + 2] as { terminal: { reason: string } }).terminal.reason, "suspended");
      assert.equal((await session.store.load(forkId)).terminal?.reason, "suspended", `shape ${n}: the fork folds`);

      if (n % 5 !== 0) continue;
      const before = toolRuns.lookup;
      const outcome = await runAgent({ ...agentOf(changed, session.markFile, session.shape), store: session.store, resume: forkId });
      assert.equal(toolRuns.lookup, before + 1, `shape ${n}: the resume ran the candidate's call, once`);
      assert.ok(["completed", "suspended"].includes(outcome.reason), `shape ${n}: ${outcome.reason} ${outcome.message ?? ""}`);
    }
  });

  it("an answer where the recording called tools forks as completed", async (t) => {
    const session = await recorded(t, 5);
    const turns = scriptOf(session.shape);
    turns.splice(session.shape.toolTurns - 1, 1);
    const report = await replaySession({ store: session.store, runId: session.runId }, agentOf(turns, session.markFile, session.shape), {
      fork: { store: session.store, name: "early" },
    });
    assert.equal(report.departures[0]?.kind, "answer-at-another-turn");
    assert.deepEqual(report.fork, { runId: "early" });
    const fork = await recordsOf(session.store, "early");
    assert.deepEqual(fork.slice(-3).map(kindOf), ["origin", "assistant", "terminal"]);
    assert.equal((await session.store.load("early")).terminal?.reason, "completed");
  });

  it("a run that stops before its next turn forks before the recorded one, suspended, with no turn of its own", async (t) => {
    const session = await recorded(t, 4);
    assert.ok(session.shape.toolTurns >= 2);
    const agent = { ...agentOf(scriptOf(session.shape), session.markFile, session.shape), budget: { maxIterations: 1 } };
    const report = await replaySession({ store: session.store, runId: session.runId }, agent, { fork: { store: session.store, name: "stopped" } });
    assert.equal(report.departures[0]?.kind, "stopped");
    assert.deepEqual(report.fork, { runId: "stopped" });
    const fork = await recordsOf(session.store, "stopped");
    const origin = fork.length - 2;
    assert.equal(kindOf(session.records[origin]), "assistant");
    assert.deepEqual(fork.slice(-2).map(kindOf), ["origin", "terminal"]);
    assert.equal((await session.store.load("stopped")).terminal?.reason, "suspended");
  });

  it("a same replay forks nothing", async (t) => {
    const session = await recorded(t, 2);
    const report = await replaySession({ store: session.store, runId: session.runId }, agentOf(scriptOf(session.shape), session.markFile, session.shape), {
      fork: { store: session.store },
    });
    assert.equal(report.result, "same");
    assert.equal(report.fork, undefined);
    assert.equal((await session.store.list()).length, session.shape.child ? 2 : 1);
  });
});
