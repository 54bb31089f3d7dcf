// covers: src/runstate/errors.ts, src/runstate/records/records.ts, src/runstate/views/fold.ts
// tier: quick
// process: shared
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fold, RunStateError, type JournalRecord, type RunStateErrorCode } from "../src/index.js";
import { PROTOCOLS } from "../src/journal.js";
import { assistantEntry, completedRun, journalOf, metaRecord, terminalEntry, toolResultEntry, userEntry } from "./helpers/record-builders.js";

function assertFoldRejects(records: unknown[], code: RunStateErrorCode, seq: number | undefined, message: RegExp): void {
  assert.throws(
    () => fold(records as JournalRecord[]),
    (error: unknown) => {
      assert.ok(error instanceof RunStateError, `expected a RunStateError, got ${String(error)}`);
      assert.equal(error.code, code);
      assert.equal(error.seq, seq);
      assert.match(error.message, message);
      return true;
    },
  );
}

describe("fold", () => {
  it("rebuilds a completed run: messages, counters, next iteration and terminal", () => {
    const state = fold(completedRun("r1"));
    assert.equal(state.runId, "r1");
    assert.deepEqual(
      state.messages.map((message) => [message.role, message.content.map((block) => block.type)]),
      [
        ["user", ["text"]],
        ["assistant", ["text", "tool_use", "tool_use"]],
        ["user", ["tool_result", "tool_result"]],
        ["assistant", ["text"]],
      ],
    );
    const results = state.messages[2]?.content.map((block) => (block.type === "tool_result" ? block.tool_use_id : ""));
    assert.deepEqual(results, ["toolu_2", "toolu_1"], "results go back in journal order");
    assert.deepEqual(state.counters, {
      modelCalls: 2,
      toolCalls: 2,
      remoteToolCalls: 0,
      inTokens: 200,
      outTokens: 40,
      cacheReadTokens: 10,
      cacheCreateTokens: 14,
      compactionCalls: 0,
      compactionInTokens: 0,
      compactionOutTokens: 0,
    });
    assert.equal(state.nextIteration, 2);
    assert.equal(state.pending, undefined);
    assert.deepEqual(state.terminal, { reason: "completed" });
    assert.equal(state.lastSeq, 6);
  });

  it("keeps a half-answered batch in pending, out of the committed messages", () => {
    const state = fold(completedRun("r1").slice(0, 3));
    assert.equal(state.messages.length, 1, "only the prompt is committed");
    assert.ok(state.pending);
    assert.equal(state.pending.seq, 2);
    assert.deepEqual(
      state.pending.toolUses.map((use) => use.id),
      ["toolu_1", "toolu_2"],
    );
    assert.deepEqual([...state.pending.answered], ["toolu_2"]);
    assert.deepEqual(
      state.pending.results.map((result) => result.tool_use_id),
      ["toolu_2"],
    );
    assert.equal(state.nextIteration, 1, "the model call of the pending turn is not made again");
    assert.equal(state.counters.toolCalls, 1);
  });

  describe("paused turns (pause_turn)", () => {
    const paused = () => {
      const entry = assistantEntry(0, "searching");
      entry.assistant.stop_reason = "pause_turn";
      return entry;
    };

    it("joins the continuation to the paused message, counting both model calls", () => {
      const ended = fold(journalOf("r1", paused()));
      assert.equal(ended.paused, true, "a journal ending on a paused turn is to be continued");
      assert.equal(ended.messages.at(-1)?.role, "assistant");

      const state = fold(journalOf("r1", paused(), assistantEntry(1, "found"), terminalEntry("completed")));
      assert.equal(state.paused, false);
      assert.deepEqual(state.messages.slice(1), [
        {
          role: "assistant",
          content: [
            { type: "text", text: "searching" },
            { type: "text", text: "found" },
          ],
        },
      ]);
      assert.equal(state.counters.modelCalls, 2);
      assert.equal(state.nextIteration, 2);
    });

    it("puts the whole turn in the pending batch when the continuation calls tools", () => {
      const state = fold(journalOf("r1", paused(), assistantEntry(1, "noting", ["toolu_1"])));
      assert.equal(state.messages.length, 1, "only the prompt is committed");
      assert.deepEqual(
        state.pending?.turn.message.content.map((block) => block.type),
        ["text", "text", "tool_use"],
      );
      const answered = fold(journalOf("r1", paused(), assistantEntry(1, "noting", ["toolu_1"]), toolResultEntry("toolu_1")));
      assert.deepEqual(
        answered.messages.map((message) => message.role),
        ["user", "assistant", "user"],
      );
    });

    it("still refuses an assistant turn after one that was not paused", () =>
      assertFoldRejects(
        journalOf("r1", assistantEntry(0, "one"), assistantEntry(1, "two")),
        "ERR_CORRUPT",
        3,
        /does not follow a user message or a paused turn/,
      ));
  });

  it("keeps the pending batch of a run stopped by its budget before the tools ran", () => {
    const state = fold(journalOf("r1", assistantEntry(0, "", ["toolu_1"]), terminalEntry("budget")));
    assert.deepEqual(state.terminal, { reason: "budget" });
    assert.deepEqual([...(state.pending?.answered ?? ["missing"])], []);
  });

  it("reopens the run when a record follows a terminal one", () => {
    const records = journalOf("r1", assistantEntry(0, "", ["toolu_1"]), toolResultEntry("toolu_1"), terminalEntry("suspended"));
    assert.deepEqual(fold(records).terminal, { reason: "suspended" });
    const resumed = [...records, { seq: 5, ...assistantEntry(1, "done") } as JournalRecord];
    const state = fold(resumed);
    assert.equal(state.terminal, undefined);
    assert.equal(state.messages.at(-1)?.role, "assistant");
  });

  it("counts remote tool calls", () => {
    const remote = toolResultEntry("toolu_1");
    remote.tool_result.remote = true;
    const state = fold(journalOf("r1", assistantEntry(0, "", ["toolu_1", "toolu_2"]), remote, toolResultEntry("toolu_2")));
    assert.equal(state.counters.toolCalls, 2);
    assert.equal(state.counters.remoteToolCalls, 1);
  });

  it("joins a follow-up to a user message that never got its reply, so roles alternate", () => {
    const state = fold(
      journalOf("r1", assistantEntry(0, "", ["toolu_1"]), toolResultEntry("toolu_1"), terminalEntry("error", "model call failed"), userEntry("try again")),
    );
    assert.deepEqual(
      state.messages.map((message) => message.role),
      ["user", "assistant", "user"],
    );
    assert.deepEqual(
      state.messages[2]?.content.map((block) => block.type),
      ["tool_result", "text"],
    );
  });

  it("starts a chat run without a prompt from its first follow-up", () => {
    const records = [metaRecord("r1", { prompt: "", interactive: true }), { seq: 2, ...userEntry("hello") } as JournalRecord];
    assert.deepEqual(fold(records).messages, [{ role: "user", content: [{ type: "text", text: "hello" }] }]);
  });

  it("reads a version 1 journal: no provider, no cache token fields", () => {
    const meta = metaRecord("r1", { version: 1 });
    delete meta.meta.fingerprint.provider;
    const turn = assistantEntry(0, "hi");
    delete turn.assistant.cache_read_tokens;
    delete turn.assistant.cache_create_tokens;
    const state = fold([meta, { seq: 2, ...turn } as JournalRecord]);
    assert.equal(state.counters.cacheReadTokens, 0);
    assert.equal(state.meta.fingerprint.provider, undefined);
  });

  it("refuses a newer version, naming both versions", () => {
    assertFoldRejects([metaRecord("r1", { version: 6 })], "ERR_VERSION", 1, /version 6.*version 5/);
  });

  it("does not mutate its input", () => {
    const records = completedRun("r1");
    const before = structuredClone(records);
    fold(records);
    assert.deepEqual(records, before);
  });

  describe("rejects", () => {
    it("an empty set", () => assertFoldRejects([], "ERR_EMPTY", undefined, /no records/));

    it("a first record that is not meta", () => assertFoldRejects([{ seq: 1, ...terminalEntry("completed") }], "ERR_NO_META", 1, /not the meta record/));

    it("a meta record that is not at seq 1", () => assertFoldRejects([{ ...metaRecord("r1"), seq: 2 }], "ERR_NO_META", 2, /not the meta record at seq 1/));

    it("seqs that do not increase", () => {
      const records: unknown[] = completedRun("r1");
      records[2] = { ...(records[2] as JournalRecord), seq: 2 };
      assertFoldRejects(records, "ERR_CORRUPT", 2, /seq 2: follows seq 2/);
    });

    it("a seq that skips ahead", () => {
      const records: unknown[] = completedRun("r1");
      records[2] = { ...(records[2] as JournalRecord), seq: 5 };
      assertFoldRejects(records, "ERR_CORRUPT", 5, /follows seq 2/);
    });

    it("a second meta", () => assertFoldRejects([metaRecord("r1"), { ...metaRecord("r1"), seq: 2 }], "ERR_CORRUPT", 2, /second meta/));

    it("an unknown protocol", () =>
      assertFoldRejects([metaRecord("r1"), { seq: 2, protocol: "io.example.session.bogus", bogus: {} }], "ERR_CORRUPT", 2, /unknown protocol/));

    it("a kind a newer fisk-ai added, as newer", () =>
      assertFoldRejects(
        [metaRecord("r1"), { seq: 2, protocol: "io.choria.fisk-ai.v1.session.bogus", bogus: {} }],
        "ERR_VERSION",
        2,
        /record seq 2 is a bogus record, which a newer fisk-ai wrote: this one reads record versions up to 5; upgrade fisk-ai/,
      ));

    it("a missing payload", () =>
      assertFoldRejects([metaRecord("r1"), { seq: 2, protocol: PROTOCOLS.assistant }], "ERR_CORRUPT", 2, /assistant payload is missing/));

    it("a tool result before any assistant turn", () =>
      assertFoldRejects(journalOf("r1", toolResultEntry("toolu_1")), "ERR_CORRUPT", 2, /before any assistant turn/));

    it("a tool result whose id matches no tool_use of the current turn", () =>
      assertFoldRejects(
        journalOf("r1", assistantEntry(0, "", ["toolu_1"]), toolResultEntry("toolu_9")),
        "ERR_CORRUPT",
        3,
        /toolu_9, which no tool_use of the current turn has/,
      ));

    it("a tool result answering a tool_use of an earlier turn", () =>
      assertFoldRejects(
        journalOf("r1", assistantEntry(0, "", ["toolu_1"]), toolResultEntry("toolu_1"), assistantEntry(1, "", ["toolu_2"]), toolResultEntry("toolu_1")),
        "ERR_CORRUPT",
        5,
        /toolu_1, which no tool_use of the current turn has/,
      ));

    it("a second result for the same id, mid-batch and after the batch completed", () => {
      assertFoldRejects(
        journalOf("r1", assistantEntry(0, "", ["toolu_1", "toolu_2"]), toolResultEntry("toolu_1"), toolResultEntry("toolu_1")),
        "ERR_CORRUPT",
        4,
        /second result for tool_use toolu_1/,
      );
      assertFoldRejects(
        journalOf("r1", assistantEntry(0, "", ["toolu_1"]), toolResultEntry("toolu_1"), toolResultEntry("toolu_1")),
        "ERR_CORRUPT",
        4,
        /second result for tool_use toolu_1/,
      );
    });

    it("a record whose block answers another id than the record names", () => {
      const mismatched = toolResultEntry("toolu_1");
      mismatched.tool_result.result.tool_use_id = "toolu_2";
      assertFoldRejects(journalOf("r1", assistantEntry(0, "", ["toolu_1", "toolu_2"]), mismatched), "ERR_CORRUPT", 3, /answers toolu_2/);
    });

    it("a new assistant turn while the tools of the last one are unanswered", () =>
      assertFoldRejects(
        journalOf("r1", assistantEntry(0, "", ["toolu_1"]), assistantEntry(1, "again")),
        "ERR_CORRUPT",
        3,
        /tools of the turn at seq 2 are unanswered/,
      ));

    it("an assistant turn right after another, which the model API would refuse", () =>
      assertFoldRejects(journalOf("r1", assistantEntry(0, "one"), assistantEntry(1, "two")), "ERR_CORRUPT", 3, /does not follow a user message/));

    it("a follow-up while tools are unanswered", () =>
      assertFoldRejects(journalOf("r1", assistantEntry(0, "", ["toolu_1"]), userEntry("hello?")), "ERR_CORRUPT", 3, /follow-up while the tools/));
  });
});
