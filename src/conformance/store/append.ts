// Journal.append: the next seq's record, durable when the append resolves; a crash-retry
// at or below the last seq a no-op; a failed write the end of the journal until reopened.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fold } from "../../runstate/views/fold.js";
import type { Journal } from "../../runstate/store/store.js";
import { isRunStateError } from "../../runstate/errors.js";
import {
  approvalRequestEntry,
  assistantEntry,
  compactionEntry,
  compactionUndoEntry,
  completedRun,
  decisionEntry,
  metaPayload,
  metaRecord,
  terminalEntry,
  toolResultEntry,
} from "../record-builders.js";
import { appendCompletedRun, journalTakenOver, journalWithFailedWrite, rejectsWith, type Suite } from "./suite.js";

export function appendCases(suite: Suite): void {
  describe("Journal.append", () => {
    it("appends consecutive seqs and reads them back", async () => {
      const journal = await suite.store.create("append-1", metaPayload("append-1"));
      await appendCompletedRun(journal);
      assert.equal(journal.lastSeq, 6);
      assert.deepEqual(await journal.records(), completedRun("append-1"));
      await journal.close();
      assert.deepEqual(await suite.store.load("append-1"), fold(completedRun("append-1")));
    });

    it("is a no-op for a seq at or below the last one written", async () => {
      const journal = await suite.store.create("append-2", metaPayload("append-2"));
      await journal.append(2, assistantEntry(0, "one", ["t1"]));
      await journal.append(2, assistantEntry(0, "one", ["t1"]));
      await journal.append(1, terminalEntry("completed"));
      assert.equal(journal.lastSeq, 2);
      await journal.close();
      assert.equal((await suite.store.load("append-2")).lastSeq, 2);
    });

    it("refuses a seq that skips ahead with ERR_SEQ_GAP and writes nothing", async () => {
      const journal = await suite.store.create("append-3", metaPayload("append-3"));
      await rejectsWith(journal.append(3, terminalEntry("completed")), "ERR_SEQ_GAP", /seq 3.*last seq is 1/, { seq: 3, expectedSeq: 2 });
      assert.equal(journal.lastSeq, 1);
      await journal.close();
      assert.equal((await suite.store.load("append-3")).lastSeq, 1);
    });

    it("refuses an invalid record and writes nothing", async () => {
      const journal = await suite.store.create("append-4", metaPayload("append-4"));
      const invalid = { protocol: "io.choria.fisk-ai.v1.session.terminal", terminal: { reason: "exploded" } } as never;
      await rejectsWith(journal.append(2, invalid), "ERR_INVALID_RECORD", /terminal\.reason/);
      await rejectsWith(journal.append(2, { protocol: "io.choria.fisk-ai.v1.session.nope" } as never), "ERR_INVALID_RECORD");
      assert.equal(journal.lastSeq, 1);
      await journal.append(2, terminalEntry("completed"));
      await journal.close();
      assert.equal((await suite.store.load("append-4")).terminal?.reason, "completed");
    });

    it("takes appends issued together, in order, each resolving durable", async () => {
      const journal = await suite.store.create("append-5", metaPayload("append-5"));
      await journal.append(2, assistantEntry(0, "", ["t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8"]));
      const ids = ["t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8"];
      await Promise.all(ids.map((id, index) => journal.append(3 + index, toolResultEntry(id))));
      await journal.close();
      const reopened = await suite.store.open("append-5");
      assert.deepEqual(
        (await reopened.records()).map((record) => record.seq),
        [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
      );
      await reopened.close();
    });

    it("keeps a version 3 journal in version 3: what it takes is stored in that shape and read back as it was given", async () => {
      const journal = await suite.store.create("version-3", metaPayload("version-3", { version: 3 }));
      await appendCompletedRun(journal);
      await journal.close();
      const lines = Buffer.from(await suite.store.readJournal("version-3"))
        .toString("utf8")
        .split("\n")
        .slice(0, -1);
      const first = JSON.parse(lines[0] as string) as { meta: { version: number } };
      const turn = JSON.parse(lines[1] as string) as { assistant: { message: { content: object[] } } };
      assert.equal(first.meta.version, 3);
      assert.deepEqual(turn.assistant.message.content[0], { text: { text: "Let me look." } }, "a version 3 block has no type");
      assert.deepEqual(
        (await suite.store.load("version-3")).messages,
        fold(completedRun("version-3").map((record) => (record.seq === 1 ? metaRecord("version-3", { version: 3 }) : record))).messages,
      );
    });

    it("stores the records of version 4 (compaction, approvals) and folds them back as they were given, in versions 2 and 3", async () => {
      for (const version of [2, 3]) {
        const runId = `version-4-kinds-${version}`;
        const journal = await suite.store.create(runId, metaPayload(runId, { version }));
        const entries = [
          assistantEntry(0, "Looking.", ["toolu_1"]),
          toolResultEntry("toolu_1"),
          assistantEntry(1, "Then this.", ["toolu_2"]),
          approvalRequestEntry("toolu_2"),
          terminalEntry("awaiting_approval"),
          decisionEntry("toolu_2", "deny", "not on a Friday"),
          {
            ...toolResultEntry("toolu_2", "denied: not on a Friday"),
            tool_result: {
              tool_use_id: "toolu_2",
              result: { type: "tool_result" as const, tool_use_id: "toolu_2", content: "denied: not on a Friday", is_error: true },
            },
          },
          compactionEntry(1, 3),
          compactionUndoEntry(9),
        ];
        for (const [index, entry] of entries.entries()) await journal.append(index + 2, entry);
        await journal.close();
        const reopened = await suite.store.open(runId);
        const records = await reopened.records();
        await reopened.close();
        assert.deepEqual(
          records.slice(3),
          entries.slice(2).map((entry, index) => ({ seq: index + 4, ...entry })),
        );
        const state = await suite.store.load(runId);
        assert.equal(state.compactions.length, 1);
        assert.equal(state.compactions[0]?.undoneAt, 10);
        assert.equal(state.messages, state.history, "after the undo the model is sent the whole history");
      }
    });

    it("refuses to append to a version 3 journal what version 3 cannot hold, with ERR_INVALID_RECORD", async () => {
      const journal = await suite.store.create("version-3-image", metaPayload("version-3-image", { version: 3 }));
      await journal.append(2, assistantEntry(0, "Looking.", ["toolu_1"]));
      const image = { type: "image" as const, source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } };
      const result = {
        ...toolResultEntry("toolu_1"),
        tool_result: { tool_use_id: "toolu_1", result: { type: "tool_result" as const, tool_use_id: "toolu_1", content: [image] } },
      };
      await rejectsWith(journal.append(3, result), "ERR_INVALID_RECORD", /version 3 .*cannot hold this tool_result record/);
      await journal.append(3, toolResultEntry("toolu_1"));
      await journal.close();
      assert.equal((await suite.store.load("version-3-image")).lastSeq, 3);
    });

    it("never lets two writers both take one seq", async () => {
      const first = await suite.store.create("open-3", metaPayload("open-3"));
      const other = await suite.sameStorage(suite.store);
      let second: Journal;
      try {
        second = await other.open("open-3");
      } catch (error) {
        assert.ok(isRunStateError(error, "ERR_LOCKED"), `expected ERR_LOCKED, got ${String(error)}`);
        await first.close();
        return;
      }
      await first.append(2, assistantEntry(0, "first"));
      await rejectsWith(second.append(2, assistantEntry(0, "second")), "ERR_LOCKED");
      await Promise.all([first.close(), second.close()]);
      const reopened = await other.open("open-3");
      assert.deepEqual(
        (await reopened.records()).map((record) => record.protocol),
        [metaRecord("open-3").protocol, assistantEntry(0, "").protocol],
      );
      await reopened.close();
    });

    it("fails with ERR_IO when its write fails, and so do the appends written with it and every later one, a retry included", {
      skip: suite.skip.unlessFailingWrites,
    }, async () => {
      const { journal, heal } = await journalWithFailedWrite(suite, "append-failed-1");
      heal();
      // A retry of the failed seq, the next seq, and one that skips ahead: the journal refuses them all alike.
      await rejectsWith(journal.append(2, assistantEntry(0, "written?")), "ERR_IO");
      await rejectsWith(journal.append(3, terminalEntry("completed")), "ERR_IO");
      await rejectsWith(journal.append(9, terminalEntry("completed")), "ERR_IO");
      await journal.close();

      let failing = false;
      const store = await suite.failingWrites(() => failing);
      const together = await store.create("append-failed-2", metaPayload("append-failed-2"));
      failing = true;
      const outcomes = await Promise.allSettled([2, 3, 4].map((seq) => together.append(seq, assistantEntry(seq, `turn ${seq}`))));
      for (const outcome of outcomes) {
        assert.ok(outcome.status === "rejected" && isRunStateError(outcome.reason, "ERR_IO"), `expected ERR_IO, got ${JSON.stringify(outcome)}`);
      }
      await together.close();
    });

    it("fails with ERR_LOCKED once another writer took the run over, and so does every later append", { skip: suite.skip.unlessTakeOver }, async () => {
      const journal = await journalTakenOver(suite, "append-lost-1");
      await rejectsWith(journal.append(3, terminalEntry("suspended")), "ERR_LOCKED");
      await rejectsWith(journal.append(4, terminalEntry("suspended")), "ERR_LOCKED");
      await journal.close();
    });
  });
}
