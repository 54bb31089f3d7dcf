// covers: src/backends/file/file-store.ts
// process: shared
// The summary cache of the file store notices a journal that lost bytes it had listed (a
// listing between a write and its sync, then a power cut) and reads it again: a listing,
// a truncation, a listing again, against what folding the journal says.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, statSync, truncateSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { FileStore, type RunSummary } from "../src/index.js";
import { assistantEntry, metaPayload, terminalEntry, toolResultEntry, userEntry } from "./helpers/record-builders.js";

const ROOT = mkdtempSync(join(tmpdir(), "fisk-ai-cache-truncation-"));
after(() => rmSync(ROOT, { recursive: true, force: true }));

/** What a listing says of the run, and what folding its journal says. */
async function listedAndLoaded(store: FileStore, runId: string): Promise<{ listed: RunSummary | undefined; lastSeq: number; modelCalls: number }> {
  const listed = (await store.list()).find((summary) => summary.runId === runId);
  const state = await store.load(runId);
  return { listed, lastSeq: state.lastSeq, modelCalls: state.counters.modelCalls };
}

describe("the summary cache and a journal shorter than it remembers", () => {
  it("lists, loses the unsynced tail, lists again: the second listing reads the journal again", async () => {
    const dir = join(ROOT, "shorter");
    const store = new FileStore({ dir });
    const journal = await store.create("run", metaPayload("run"));
    await journal.append(2, assistantEntry(0, "first turn", ["toolu_1"]));
    await journal.append(3, toolResultEntry("toolu_1"));
    const durable = statSync(join(dir, "run.json")).size;
    await journal.append(4, assistantEntry(1, "second turn"));
    await journal.append(5, terminalEntry("completed"));
    await journal.close();
    const before = await listedAndLoaded(store, "run");
    assert.equal(before.listed?.status, "completed");
    assert.equal(Object.values(before.listed?.digest?.calls ?? {})[0]?.calls, 2);
    // A power cut takes back what was not synced; the file keeps its inode.
    truncateSync(join(dir, "run.json"), durable);
    const after = await listedAndLoaded(store, "run");
    assert.equal(after.listed?.status, "open");
    assert.equal(after.listed?.lastSeq, 3);
    assert.equal(Object.values(after.listed?.digest?.calls ?? {})[0]?.calls, after.modelCalls);
    assert.equal(after.listed?.digest?.bytes, durable);
  });

  it("lists, loses the tail, takes other records past the old end with the old mtime: the listing is the journal's, not a read from the old end", async () => {
    const dir = join(ROOT, "regrown");
    const path = join(dir, "run.json");
    const store = new FileStore({ dir });
    const first = await store.create("run", metaPayload("run"));
    await first.append(2, assistantEntry(0, "a", ["toolu_1"]));
    await first.append(3, toolResultEntry("toolu_1"));
    const durable = statSync(path).size;
    await first.append(4, assistantEntry(1, "lost"));
    await first.close();
    const listed = (await store.list())[0];
    assert.equal(listed?.lastSeq, 4);
    const { mtime } = statSync(path);
    truncateSync(path, durable);
    // The resumed run writes different, longer records after the surviving ones.
    const resumed = await store.open("run");
    await resumed.append(4, userEntry("a follow-up long enough to carry the journal past where the lost record ended"));
    await resumed.append(5, assistantEntry(1, "the answer to the follow-up"));
    await resumed.append(6, terminalEntry("completed"));
    await resumed.close();
    utimesSync(path, mtime, mtime);
    const again = await listedAndLoaded(store, "run");
    assert.equal(again.listed?.status, "completed", JSON.stringify(again.listed));
    assert.equal(again.listed?.lastSeq, 6);
    assert.equal(again.lastSeq, 6);
    assert.equal(Object.values(again.listed?.digest?.calls ?? {})[0]?.calls, again.modelCalls);
  });
});
