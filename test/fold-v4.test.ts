// covers: src/runstate/errors.ts, src/runstate/records/records.ts, src/runstate/views/fold.ts
// tier: quick
// process: shared
// The fold of version 4's records: compactions (the cut rules, trims, undo) and approvals
// (requests, decisions, the rules that keep an undecided or denied call from running).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fold, RunStateError, type JournalRecord, type Message } from "../src/index.js";
import { foldStep, PROTOCOLS, type RecordEntry } from "../src/journal.js";
import {
  approvalRequestEntry,
  assistantEntry,
  compactionEntry,
  compactionUndoEntry,
  decisionEntry,
  journalOf,
  originEntry,
  resumedEntry,
  terminalEntry,
  titleEntry,
  toolResultEntry,
  userEntry,
  twoBatchConversation,
} from "./helpers/record-builders.js";

function rejects(entries: RecordEntry[], seq: number, message: RegExp): void {
  assert.throws(
    () => fold(journalOf("r", ...entries)),
    (error: unknown) => error instanceof RunStateError && error.code === "ERR_CORRUPT" && error.seq === seq && message.test(error.message),
  );
}

const texts = (messages: readonly Message[]): string[] =>
  messages.map((message) =>
    message.content
      .map((block) =>
        block.type === "text"
          ? block.text
          : block.type === "tool_result"
            ? `result:${String(block.content)}`
            : block.type === "tool_use"
              ? `use:${block.id}`
              : block.type,
      )
      .join("|"),
  );

/** The prompt, then seqs 2 to 7: two batches around an answer and a follow-up (twoBatchConversation). */
const conversation: RecordEntry[] = twoBatchConversation();

describe("fold: compaction", () => {
  it("sends the summary, then every message after the cut; history keeps them all", () => {
    const state = fold(journalOf("r", ...conversation, compactionEntry(1, 4)));
    assert.deepEqual(texts(state.messages), [
      "[The conversation so far was compacted to save space. This summary, written from it, stands for it:]\n\nthe conversation through seq 4|and then?",
      "looking again|use:toolu_2",
      `result:${"y".repeat(40)}`,
    ]);
    assert.equal(state.history.length, 7);
    assert.equal(state.counters.compactionCalls, 1);
    assert.equal(state.counters.compactionInTokens, 900);
    assert.equal(state.counters.modelCalls, 3, "the summarizing call is counted apart");
  });

  it("puts the summary before a kept assistant turn as a user message, so roles alternate", () => {
    const state = fold(journalOf("r", ...conversation, compactionEntry(1, 5)));
    assert.deepEqual(
      state.messages.map((message) => message.role),
      ["user", "assistant", "user"],
    );
  });

  it("keeps every later message in both the view and the history", () => {
    const state = fold(journalOf("r", ...conversation, compactionEntry(1, 4), assistantEntry(3, "done")));
    assert.equal(state.messages.at(-1)?.role, "assistant");
    assert.equal(state.history.at(-1), state.messages.at(-1));
    assert.equal(state.history.length, 8);
    assert.equal(state.messages.length, 4);
  });

  it("chains compactions: the later summary replaces the earlier one, from the earlier cut on", () => {
    const state = fold(journalOf("r", ...conversation, compactionEntry(1, 3), compactionEntry(4, 5)));
    assert.match(texts(state.messages)[0] ?? "", /through seq 5$/);
    assert.equal(state.messages.length, 3);
  });

  it("undo brings the messages of the latest compaction back, and the one before stays in effect", () => {
    const once = fold(journalOf("r", ...conversation, compactionEntry(1, 3), compactionEntry(4, 5), compactionUndoEntry(9)));
    assert.match(texts(once.messages)[0] ?? "", /through seq 3$/);
    assert.equal(once.compactions[1]?.undoneAt, 10);
    const twice = fold(journalOf("r", ...conversation, compactionEntry(1, 3), compactionEntry(4, 5), compactionUndoEntry(9), compactionUndoEntry(8)));
    assert.equal(twice.messages, twice.history);
    assert.deepEqual(texts(twice.messages), texts(fold(journalOf("r", ...conversation)).messages));
  });

  it("trims a kept result to a marker saying how much was cut, in the view only", () => {
    const trimmed = [{ tool_use_id: "toolu_2", kept_chars: 10, cut_chars: 30 }];
    const state = fold(journalOf("r", ...conversation, compactionEntry(1, 4, { trimmed })));
    assert.equal(texts(state.messages)[2], `result:${"y".repeat(10)}\n[fisk-ai cut 30 of 40 characters of this result to fit the model's context window]`);
    assert.equal(texts(state.history)[6], `result:${"y".repeat(40)}`);
  });

  it("trims without summarizing anything new: an empty summary through the earlier cut", () => {
    const trimmed = [{ tool_use_id: "toolu_1", kept_chars: 0, cut_chars: 50 }];
    const state = fold(journalOf("r", ...conversation, compactionEntry(1, 0, { summary: "", trimmed, in_tokens: 0, out_tokens: 0 })));
    assert.match(texts(state.messages)[2] ?? "", /^result:\n\[fisk-ai cut 50 of 50 characters/);
    assert.equal(state.messages[0], state.history[0], "no summary: the prompt is sent as it was");
    assert.equal(state.counters.compactionCalls, 0);
  });

  it("summarizes past a result an earlier compaction trimmed, and an undo of that summary brings the trim back", () => {
    const trimmed = [{ tool_use_id: "toolu_1", kept_chars: 0, cut_chars: 50 }];
    const entries = [...conversation, compactionEntry(1, 0, { summary: "", trimmed, in_tokens: 0, out_tokens: 0 }), compactionEntry(1, 4)];
    const state = fold(journalOf("r", ...entries));
    assert.match(texts(state.messages)[0] ?? "", /through seq 4\|and then\?$/);
    const undone = fold(journalOf("r", ...entries, compactionUndoEntry(9)));
    assert.match(texts(undone.messages)[2] ?? "", /^result:\n\[fisk-ai cut 50 of 50 characters/);
  });

  it("leaves the state as it was when a compaction or an undo does not fold", () => {
    const state = fold(journalOf("r", ...conversation, compactionEntry(1, 3)));
    const before = { messages: state.messages, compactions: state.compactions.length };
    assert.throws(
      () => foldStep(state, { seq: 9, ...compactionEntry(4, 5, { trimmed: [{ tool_use_id: "toolu_9", kept_chars: 1, cut_chars: 1 }] }) } as JournalRecord),
      /no kept message holds/,
    );
    assert.deepEqual({ messages: state.messages, compactions: state.compactions.length }, before);
    // The compaction at seq 8 is still the latest in effect: a later one starts after it.
    foldStep(state, { seq: 9, ...compactionEntry(4, 5) } as JournalRecord);
    assert.equal(state.compactions.length, 2);
  });

  describe("refuses", () => {
    it("a cut that separates tool calls from their results", () =>
      rejects([...conversation, compactionEntry(1, 2)], 8, /separates tool calls from their results/));
    it("a cut that keeps no message", () => rejects([...conversation, compactionEntry(1, 7)], 8, /keeps no message/));
    it("a cut at a record that ends no message", () =>
      rejects(
        [assistantEntry(0, "a", ["t1", "t2"]), toolResultEntry("t1"), toolResultEntry("t2"), assistantEntry(1, "b"), userEntry("c"), compactionEntry(1, 3)],
        7,
        /does not end a message/,
      ));
    it("a cut inside a pending batch", () =>
      rejects([assistantEntry(0, "a", ["t1"]), compactionEntry(1, 1)], 3, /inside the pending batch of the turn at seq 2/));
    it("a compaction that does not start where the one in effect ends", () =>
      rejects([...conversation, compactionEntry(1, 3), compactionEntry(1, 5)], 9, /must start at seq 4/));
    it("a cut after the compaction itself", () => rejects([...conversation, compactionEntry(1, 9)], 8, /outside seqs 0 to 7/));
    it("an empty summary that trims nothing", () => rejects([...conversation, compactionEntry(1, 0, { summary: "" })], 8, /must only trim results/));
    it("a summary that is empty though it covers records", () => rejects([...conversation, compactionEntry(1, 4, { summary: "" })], 8, /empty summary/));
    it("a trim of a result the view does not hold", () =>
      rejects([...conversation, compactionEntry(1, 4, { trimmed: [{ tool_use_id: "toolu_1", kept_chars: 1, cut_chars: 49 }] })], 8, /no kept message holds/));
    it("a trim that miscounts the result", () =>
      rejects(
        [...conversation, compactionEntry(1, 4, { trimmed: [{ tool_use_id: "toolu_2", kept_chars: 1, cut_chars: 1 }] })],
        8,
        /counts 2 characters where it has 40/,
      ));
    it("an undo of a compaction that is not the latest in effect", () =>
      rejects([...conversation, compactionEntry(1, 3), compactionEntry(4, 5), compactionUndoEntry(8)], 10, /latest in effect is at seq 9/));
    it("an undo with none in effect", () => rejects([...conversation, compactionUndoEntry(3)], 8, /latest in effect is none/));
  });
});

describe("fold: approvals", () => {
  const parked: RecordEntry[] = [
    assistantEntry(0, "may I?", ["toolu_1", "toolu_2"]),
    toolResultEntry("toolu_1"),
    approvalRequestEntry("toolu_2"),
    terminalEntry("awaiting_approval"),
  ];

  it("keeps the request and the decision on the pending batch", () => {
    const waiting = fold(journalOf("r", ...parked));
    assert.equal(waiting.terminal?.reason, "awaiting_approval");
    assert.deepEqual([...(waiting.pending?.approvals.keys() ?? [])], ["toolu_2"]);
    const decided = fold(journalOf("r", ...parked, decisionEntry("toolu_2", "approve")));
    assert.equal(decided.terminal, undefined, "a decision reopens the run");
    assert.equal(decided.pending?.decisions.get("toolu_2")?.at(-1)?.decision.decision, "approve");
    const done = fold(journalOf("r", ...parked, decisionEntry("toolu_2", "approve"), toolResultEntry("toolu_2")));
    assert.equal(done.pending, undefined);
  });

  it("takes a resume marker over a batch at rest under a terminal record, which reopens the run", () => {
    const state = fold(journalOf("r", ...parked, decisionEntry("toolu_2", "approve"), terminalEntry("suspended"), resumedEntry()));
    assert.equal(state.terminal, undefined);
    assert.equal(state.pending?.seq, 2);
  });

  it("takes a decision made on the terminal without a request", () => {
    const state = fold(journalOf("r", assistantEntry(0, "may I?", ["toolu_1"]), decisionEntry("toolu_1", "approve")));
    assert.equal(state.pending?.decisions.size, 1);
  });

  it("answers a question", () => {
    const question = { ...approvalRequestEntry("toolu_1") };
    question.approval_request = { ...question.approval_request, kind: "question" };
    const state = fold(journalOf("r", assistantEntry(0, "asking", ["toolu_1"]), question, decisionEntry("toolu_1", "answer", "blue")));
    assert.equal(state.pending?.decisions.get("toolu_1")?.at(-1)?.decision.text, "blue");
  });

  it("keeps a second decision after an approval, which may not count where it is read (its signature), in journal order", () => {
    const state = fold(journalOf("r", ...parked, decisionEntry("toolu_2", "approve"), decisionEntry("toolu_2", "deny", "no")));
    assert.deepEqual(
      state.pending?.decisions.get("toolu_2")?.map(({ seq, decision }) => [seq, decision.decision]),
      [
        [6, "approve"],
        [7, "deny"],
      ],
    );
  });

  describe("refuses", () => {
    it("a decision after a denial, which always counts", () =>
      rejects([...parked, decisionEntry("toolu_2", "deny", "no"), decisionEntry("toolu_2", "approve")], 7, /denied at seq 6: a denial is final/));
    it("a result for a call that waits for a decision", () =>
      rejects([...parked, toolResultEntry("toolu_2")], 6, /waits for a decision: an undecided call never runs/));
    it("a denied call's result that is not an error", () =>
      rejects([...parked, decisionEntry("toolu_2", "deny", "no"), toolResultEntry("toolu_2")], 7, /denied, that is not an error/));
    it("a request for a call that already has its result", () =>
      rejects([assistantEntry(0, "a", ["toolu_1", "toolu_2"]), toolResultEntry("toolu_1"), approvalRequestEntry("toolu_1")], 4, /already has its result/));
    it("a request outside a pending batch", () =>
      rejects([assistantEntry(0, "a"), approvalRequestEntry("toolu_1")], 3, /no tool_use of the pending batch has/));
    it("a request whose input is not the call's", () => {
      const request = approvalRequestEntry("toolu_1");
      request.approval_request = { ...request.approval_request, input: { text: "something else" } };
      rejects([assistantEntry(0, "a", ["toolu_1"]), request], 3, /tool or input differs from the call's/);
    });
    it("an answer to an approval", () =>
      rejects([assistantEntry(0, "a", ["toolu_1"]), approvalRequestEntry("toolu_1"), decisionEntry("toolu_1", "answer", "x")], 4, /waits for an approval/));
    it("a run awaiting approval with nothing waiting", () =>
      rejects([assistantEntry(0, "a", ["toolu_1"]), toolResultEntry("toolu_1"), terminalEntry("awaiting_approval")], 4, /no call waiting for a decision/));
    it("a run awaiting approval whose unanswered calls are all decided", () =>
      rejects(
        [assistantEntry(0, "a", ["toolu_1"]), approvalRequestEntry("toolu_1"), decisionEntry("toolu_1", "deny", "no"), terminalEntry("awaiting_approval")],
        5,
        /no call waiting for a decision/,
      ));
    it("a resume marker with no batch at rest", () =>
      rejects([assistantEntry(0, "a", ["toolu_1"]), resumedEntry()], 3, /no batch is at rest under a terminal record/));
    it("a resume marker after a finished batch", () => rejects([...conversation, terminalEntry("suspended"), resumedEntry()], 9, /no batch is at rest/));
    it("a compaction while calls wait", () => rejects([...parked, compactionEntry(1, 1)], 6, /inside the pending batch/));
  });
});

describe("fold: a kind this version does not know", () => {
  it("is refused as newer, naming the record", () => {
    const records = [...journalOf("r", ...conversation), { seq: 8, protocol: `${PROTOCOLS.meta.slice(0, -"meta".length)}bookmark`, bookmark: { text: "x" } }];
    assert.throws(
      () => fold(records as JournalRecord[]),
      (error: unknown) =>
        error instanceof RunStateError &&
        error.code === "ERR_VERSION" &&
        error.seq === 8 &&
        /record seq 8 is a bookmark record, which a newer fisk-ai wrote/.test(error.message),
    );
  });
});

describe("fold: titles and origins", () => {
  it("keeps the latest title through every later record, and a title after a terminal leaves the run as it stopped", () => {
    const titled = fold(
      journalOf("r", titleEntry("first"), ...conversation, titleEntry("second"), assistantEntry(3, "done"), terminalEntry("completed"), titleEntry("third")),
    );
    assert.equal(titled.title, "third");
    assert.equal(titled.terminal?.reason, "completed", "a title annotates, it does not reopen");
    const reopened = fold(journalOf("r", titleEntry("kept"), assistantEntry(0, "done"), terminalEntry("completed"), userEntry("more")));
    assert.equal(reopened.title, "kept");
    assert.equal(reopened.terminal, undefined, "a follow-up still reopens");
  });

  it("takes a title inside a pending batch without disturbing it", () => {
    const state = fold(journalOf("r", assistantEntry(0, "looking", ["toolu_1"]), titleEntry("mid-batch"), toolResultEntry("toolu_1")));
    assert.equal(state.title, "mid-batch");
    assert.equal(state.pending, undefined);
    assert.equal(state.messages.length, 3);
  });

  it("records where copied records came from", () => {
    const state = fold(journalOf("fork-1", ...conversation, originEntry("r", 7)));
    assert.deepEqual(state.origin, { run_id: "r", through_seq: 7, kind: "fork" });
    assert.equal(state.counters.modelCalls, 3, "the counters still count every record: the budget is the run's");
  });

  it("refuses an origin that does not follow the copied records, or that names the session itself", () => {
    rejects([...conversation, originEntry("other", 5)], 8, /an origin through seq 5, which must be the seq just before it \(7\)/);
    rejects([...conversation, originEntry("r", 7)], 8, /an origin naming the session itself \(r\)/);
  });
});
