// covers: src/runstate/views/fold.ts
// process: shared
// The key figures of bench/compaction.bench.ts, asserted as counts on a shorter run of the
// same scripted chat: every request under the window, the chat completes, each compaction
// adds its summary and less than 1 KB more, and leaves fewer tokens than it found.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fold } from "../src/index.js";
import { runCompactingChat } from "./helpers/compacting-chat.js";

const dir = mkdtempSync(join(tmpdir(), "fisk-ai-compaction-figures-"));
after(() => rmSync(dir, { recursive: true, force: true }));

describe("compaction: the scripted chat's figures", () => {
  it("60 follow-ups of 4 KB results in a 20,000-token window: no request refused, the journal grows by the summaries and under 1 KB each", async () => {
    const figures = await runCompactingChat({ followUps: 60, window: 20_000, pageBytes: 4000, dir });
    assert.deepEqual([figures.outcome.reason, figures.outcome.message], ["suspended", "the chat ended"]);
    assert.equal(figures.refused, 0);
    assert.ok(figures.largestRequest <= 20_000, `largest request ${figures.largestRequest} tokens`);
    // 61 prompts, each a tool call and an answer: 122 calls, and one summarizing call per compaction.
    assert.equal(figures.outcome.counters.modelCalls, 122);
    assert.equal(figures.summarizingRequests, figures.compactions.length);
    assert.equal(figures.outcome.counters.compactionCalls, figures.compactions.length);
    assert.ok(figures.compactions.length >= 3, `${figures.compactions.length} compactions`);
    for (const compaction of figures.compactions) {
      assert.ok(
        compaction.recordBytes <= compaction.summaryBytes + 1024,
        `compaction at seq ${compaction.seq}: ${compaction.recordBytes} bytes for a ${compaction.summaryBytes}-byte summary`,
      );
      assert.ok(
        compaction.recordBytes < compaction.replacedBytes / 10,
        `compaction at seq ${compaction.seq}: ${compaction.recordBytes} of ${compaction.replacedBytes} bytes`,
      );
      assert.ok(
        compaction.tokensAfter < compaction.tokensBefore,
        `compaction at seq ${compaction.seq}: ${compaction.tokensAfter} < ${compaction.tokensBefore}`,
      );
    }
    // Nothing else was added for them: every record but the compactions is a turn, a result, a prompt or the end.
    const state = fold(figures.records);
    assert.equal(figures.records.length, 1 + 60 + 122 + 61 + figures.compactions.length + 1);
    assert.equal(state.history.length, 61 * 4, "each prompt, its tool call, the result and the answer");
  });
});
