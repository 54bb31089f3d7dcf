// covers: src/agent/compaction.ts, src/llm/model-provider.ts, src/runstate/views/fold.ts
// tier: quick
// process: shared
// The compaction planner: where a cut may fall (never between a tool call and its result,
// never inside a pending batch, keeping keep_recent messages and never none), which tool
// results are trimmed, and how the size before a call is measured.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { chooseCut, chooseTrims, ContextGauge, requestTokens, summarizingMessages } from "../src/agent/compaction.js";
import { SUMMARY_REQUEST } from "../src/llm/model-provider.js";
import { fold, type Message } from "../src/index.js";
import { assistantEntry, compactionEntry, journalOf, toolResultEntry, twoBatchConversation } from "./helpers/record-builders.js";

/** The prompt, then seqs 2 to 7: two batches around an answer and a follow-up (twoBatchConversation). */
const conversation = twoBatchConversation();
const NO_LIMIT = Number.POSITIVE_INFINITY;

describe("compaction planner: the cut", () => {
  it("never cuts between a tool call and its result: with one message kept, the cut falls before the call", () => {
    const state = fold(journalOf("r", ...conversation));
    assert.equal(state.history.length, 7);
    // Keeping only the result would separate it from its call: the cut moves back to keep both.
    assert.equal(chooseCut(state, 1, 0, NO_LIMIT), 5);
    assert.equal(chooseCut(state, 2, 0, NO_LIMIT), 5);
  });

  it("keeps at least keep_recent messages, and never none", () => {
    const state = fold(journalOf("r", ...conversation));
    assert.equal(chooseCut(state, 3, 0, NO_LIMIT), 4);
    assert.equal(chooseCut(state, 4, 0, NO_LIMIT), 3);
    // keep_recent 0 still keeps the latest message (and its call, here).
    assert.equal(chooseCut(state, 0, 0, NO_LIMIT), 5);
    // Cuts at 1 and 2 would keep a result without its call; none before the first message.
    assert.equal(chooseCut(state, 6, 0, NO_LIMIT), 1);
    assert.equal(chooseCut(state, 7, 0, NO_LIMIT), undefined);
  });

  it("picks an earlier cut when the part to summarize would not fit the summarizing call", () => {
    const state = fold(journalOf("r", ...conversation));
    // The planner adds up each message's estimate as it moves the cut.
    const upTo = (cut: number) => state.messages.slice(0, cut).reduce((sum, message) => sum + Math.ceil(JSON.stringify([message]).length / 4), 0);
    assert.equal(chooseCut(state, 1, 0, upTo(4)), 4);
    assert.equal(chooseCut(state, 1, 0, upTo(3)), 3);
    // Even the first allowed cut too long: it is taken, there being no other.
    assert.equal(chooseCut(state, 1, 0, 1), 1);
  });

  it("after a compaction, only cuts that summarize something new", () => {
    const state = fold(journalOf("r", ...conversation, compactionEntry(1, 3)));
    // Seq 3 ends history[2]: the next cut must be later than it, and before the last result.
    assert.equal(chooseCut(state, 1, 0, NO_LIMIT), 5);
    assert.equal(chooseCut(state, 3, 0, NO_LIMIT), 4);
    assert.equal(chooseCut(state, 4, 0, NO_LIMIT), undefined);
    const later = fold(journalOf("r", ...conversation, compactionEntry(1, 5)));
    assert.equal(chooseCut(later, 1, 0, NO_LIMIT), undefined, "only a call and its result are left, which stay together");
  });

  it("a fold of the record the cut leads to is accepted", () => {
    const state = fold(journalOf("r", ...conversation));
    for (let keep = 0; keep <= 6; keep++) {
      const cut = chooseCut(state, keep, 0, NO_LIMIT) as number;
      const through = state.historySeqs[cut - 1] as number;
      const compacted = fold(journalOf("r", ...conversation, compactionEntry(1, through)));
      assert.equal(compacted.messages[0]?.role, "user", `keep ${keep}`);
      assert.ok(compacted.messages.length <= state.messages.length, `keep ${keep}`);
    }
  });
});

describe("compaction planner: the summarizing request", () => {
  it("asks in a user message of its own after an assistant turn, and joins a user message the part ends with", () => {
    const state = fold(journalOf("r", ...conversation));
    const afterAnswer = summarizingMessages(state.messages.slice(0, 4));
    assert.equal(afterAnswer.length, 5);
    assert.deepEqual(afterAnswer.at(-1), { role: "user", content: [{ type: "text", text: SUMMARY_REQUEST }] });
    const afterFollowUp = summarizingMessages(state.messages.slice(0, 5));
    assert.equal(afterFollowUp.length, 5, "the request joins the follow-up, so roles alternate");
    assert.deepEqual(
      afterFollowUp.at(-1)?.content.map((block) => (block.type === "text" ? block.text : block.type)),
      ["and then?", SUMMARY_REQUEST],
    );
  });
});

describe("compaction planner: trims", () => {
  it("cuts the oldest large results of what is sent until enough is saved, leaving small and already trimmed ones", () => {
    const big = [
      assistantEntry(0, "a", ["toolu_1"]),
      toolResultEntry("toolu_1", "a".repeat(5000)),
      assistantEntry(1, "b", ["toolu_2"]),
      toolResultEntry("toolu_2", "small"),
      assistantEntry(2, "c", ["toolu_3"]),
      toolResultEntry("toolu_3", "c".repeat(6000)),
    ];
    const state = fold(journalOf("r", ...big));
    const { trims, saved } = chooseTrims(state, 100);
    assert.deepEqual(trims, [{ tool_use_id: "toolu_1", kept_chars: 1000, cut_chars: 4000 }]);
    assert.ok(saved >= 900 && saved <= 1000, `saved ${saved}`);
    assert.deepEqual(
      chooseTrims(state, 5000).trims.map((trim) => trim.tool_use_id),
      ["toolu_1", "toolu_3"],
    );
    const trimmed = fold(journalOf("r", ...big, compactionEntry(1, 0, { summary: "", trimmed: trims })));
    assert.deepEqual(
      chooseTrims(trimmed, 5000).trims.map((trim) => trim.tool_use_id),
      ["toolu_3"],
      "an already trimmed result is left alone",
    );
  });
});

describe("compaction planner: the gauge", () => {
  it("is the last reported input plus about a token per four characters added since; a new array is estimated whole", () => {
    const state = fold(journalOf("r", ...conversation.slice(0, 2)));
    const gauge = new ContextGauge();
    assert.equal(gauge.estimate(state, "sys", []), requestTokens("sys", [], state.messages), "nothing reported: the whole is estimated");
    gauge.observe(state.messages, { in_tokens: 700, out_tokens: 5, cache_read_tokens: 300 });
    const added: Message = { role: "assistant", content: [{ type: "text", text: "z".repeat(400) }] };
    state.messages.push(added);
    assert.equal(gauge.estimate(state, "sys", []), 1000 + Math.ceil(JSON.stringify([added]).length / 4));
    const compacted = fold(journalOf("r", ...conversation, compactionEntry(1, 5)));
    assert.equal(gauge.estimate(compacted, "sys", []), requestTokens("sys", [], compacted.messages));
  });
});
