// covers: src/cli/text/paced-output.ts, src/cli/text/session-json.ts, src/cli/text/summary-json.ts, src/cli/text/show-json.ts
// covers: src/backends/memory/memory-store.ts, src/runstate/views/fold.ts
// covers: src/runstate/views/message-stream.ts, src/runstate/views/run-tally.ts
// process: shared
// `session show --json` streamed (a tally pass, then the messages written one at a time as
// they are read) says exactly what the folded state says, byte for byte: on generated runs
// cut at every kind of point, and on the compactions, trims, undos and approvals of version 4.
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { describe, it } from "node:test";
import { fold, MemoryStore, type JournalRecord, type RunSummary } from "../src/index.js";
import type { RecordEntry } from "../src/journal.js";
import { tallyRecords } from "../src/runstate/views/run-tally.js";
import { PacedOutput } from "../src/cli/text/paced-output.js";
import { stateJson } from "../src/cli/text/session-json.js";
import { writeStateJson } from "../src/cli/text/show-json.js";
import { trustedKeys } from "../src/trust/keyring.js";
import {
  approvalRequestEntry,
  assistantEntry,
  compactionEntry,
  compactionUndoEntry,
  decisionEntry,
  journalOf,
  terminalEntry,
  toolResultEntry,
  userEntry,
  twoBatchConversation,
} from "./helpers/record-builders.js";
import { deriveSeed, simulateRun } from "./helpers/simulated-runs.js";

const SUMMARY: RunSummary = { runId: "x", status: "open", meta: undefined, lastSeq: 0, updated: "2026-12-05T00:00:00.000Z" };

async function streamed(records: readonly JournalRecord[]): Promise<string> {
  const runId = (records[0] as Extract<JournalRecord, { meta: unknown }>).meta.run_id;
  const store = new MemoryStore();
  await store.importJournal(runId, Buffer.from(records.map((record) => `${JSON.stringify(record)}\n`).join("")));
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on("data", (chunk: Buffer) => chunks.push(chunk));
  await writeStateJson(store, await tallyRecords(runId, store.readRecords(runId)), SUMMARY, new PacedOutput(sink));
  return Buffer.concat(chunks).toString("utf8");
}

const folded = (records: readonly JournalRecord[]) => `${JSON.stringify(stateJson(fold(records), SUMMARY, trustedKeys()), null, 2)}\n`;

/** The prompt, then seqs 2 to 7: two batches around an answer and a follow-up (twoBatchConversation). */
const conversation: RecordEntry[] = twoBatchConversation();

const SHAPES: Record<string, RecordEntry[]> = {
  "a compaction through a user message": [...conversation, compactionEntry(1, 4)],
  "a compaction through an answer, before a kept follow-up": [...conversation, compactionEntry(1, 5)],
  "messages after a compaction": [...conversation, compactionEntry(1, 4), assistantEntry(3, "done"), userEntry("more?"), userEntry("and more")],
  "chained compactions": [...conversation, compactionEntry(1, 3), compactionEntry(4, 5)],
  "an undone compaction": [...conversation, compactionEntry(1, 3), compactionEntry(4, 5), compactionUndoEntry(9)],
  "every compaction undone": [...conversation, compactionEntry(1, 3), compactionEntry(4, 5), compactionUndoEntry(9), compactionUndoEntry(8)],
  "a trimmed result": [...conversation, compactionEntry(1, 4, { trimmed: [{ tool_use_id: "toolu_2", kept_chars: 10, cut_chars: 30 }] })],
  "a trim alone": [
    ...conversation,
    compactionEntry(1, 0, { summary: "", trimmed: [{ tool_use_id: "toolu_1", kept_chars: 0, cut_chars: 50 }], in_tokens: 0, out_tokens: 0 }),
  ],
  "calls parked for approval": [
    assistantEntry(0, "a", ["toolu_1", "toolu_2"]),
    toolResultEntry("toolu_1"),
    approvalRequestEntry("toolu_2"),
    terminalEntry("awaiting_approval"),
  ],
  "a decided call of a batch still pending": [
    assistantEntry(0, "a", ["toolu_1", "toolu_2"]),
    approvalRequestEntry("toolu_2"),
    decisionEntry("toolu_2", "approve"),
    toolResultEntry("toolu_1"),
  ],
  "a denied call": [
    assistantEntry(0, "a", ["toolu_1"]),
    approvalRequestEntry("toolu_1"),
    decisionEntry("toolu_1", "deny", "no"),
    {
      ...toolResultEntry("toolu_1"),
      tool_result: { tool_use_id: "toolu_1", result: { type: "tool_result", tool_use_id: "toolu_1", content: "denied", is_error: true } },
    },
  ],
  "a follow-up after a failed call": [userEntry("are you there?"), terminalEntry("error", "model call failed")],
  "no records after the meta": [],
};

describe("session show --json, streamed", () => {
  for (const [name, entries] of Object.entries(SHAPES)) {
    it(`says what the folded state says: ${name}`, async () => {
      const records = journalOf("x", ...entries);
      assert.equal(await streamed(records), folded(records));
    });
  }

  it("says what the folded state says on generated runs, cut after every record of each", async () => {
    let compared = 0;
    for (let index = 0; index < 40; index++) {
      const { records } = simulateRun(deriveSeed(0x5170e, index), index);
      for (let length = 1; length <= records.length; length++) {
        const prefix = records.slice(0, length);
        assert.equal(await streamed(prefix), folded(prefix), `run ${index}, ${length} records`);
        compared++;
      }
    }
    assert.ok(compared > 400, `compared ${compared} journals`);
  });
});
