// Store.readJournals (optional): every run's stored bytes in pieces of whole lines, for a
// reader of the whole store (`session search`) whose memory must not hold a journal.
import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import { encodeRecord } from "../../runstate/records/journal-codec.js";
import type { Store } from "../../runstate/store/store.js";
import { completedRun, metaPayload, userEntry } from "../record-builders.js";
import { appendCompletedRun, type Suite } from "./suite.js";

type BulkStore = Store & Required<Pick<Store, "readJournals">>;

/** The suite's store if it has readJournals; else undefined, and the case skipped saying why. */
function bulkStore(suite: Suite, t: TestContext): BulkStore | undefined {
  if (suite.store.readJournals !== undefined) return suite.store as BulkStore;
  t.skip("the backend has no readJournals (it is optional: search reads a journal a run)");
  return undefined;
}

async function completedRuns(store: Store, runIds: readonly string[]): Promise<void> {
  for (const runId of runIds) {
    const journal = await store.create(runId, metaPayload(runId));
    await appendCompletedRun(journal);
    await journal.close();
  }
}

/**
 * The lines of this file's runs (the store holds other cases' runs too, corrupt ones
 * among them) as the pieces gave them, every piece copied: its memory is the store's
 * only during the call.
 */
async function linesOf(store: BulkStore, stopAfterFirst = new Set<string>()): Promise<Map<string, string[]>> {
  const lines = new Map<string, string[]>();
  await store.readJournals((runId, piece) => {
    if (!runId.startsWith("journals-")) return false;
    const text = Buffer.from(piece).toString("utf8");
    const whole = text.endsWith("\n") ? text.slice(0, -1) : text;
    const runLines = lines.get(runId) ?? [];
    lines.set(runId, runLines);
    for (const line of whole.split("\n")) {
      // A piece holds whole lines: every one of them is a record, never a part of one.
      assert.doesNotThrow(() => JSON.parse(line), `a piece of ${runId} ends inside a line: ${line.slice(0, 80)}`);
      runLines.push(line);
    }
    return stopAfterFirst.has(runId);
  });
  return lines;
}

/** A run's lines as readJournal gives them, in the order of their seq. */
async function journalLines(store: Store, runId: string): Promise<string[]> {
  return Buffer.from(await store.readJournal(runId))
    .toString("utf8")
    .split("\n")
    .filter((line) => line !== "");
}

export function readJournalsCases(suite: Suite): void {
  describe("Store.readJournals", () => {
    it("hands every run's lines, made, appended to or imported, each run's in the order stored", async (t) => {
      const store = bulkStore(suite, t);
      if (store === undefined) return;
      await completedRuns(store, ["journals-a", "journals-b"]);
      const imported = completedRun("journals-imported");
      await store.importJournal("journals-imported", Buffer.from(imported.map(encodeRecord).join("")));
      const open = await store.create("journals-open", metaPayload("journals-open"));
      await open.append(2, userEntry("still going"));
      const read = await linesOf(store);
      for (const runId of ["journals-a", "journals-b", "journals-open"]) assert.deepEqual(read.get(runId), await journalLines(store, runId), runId);
      // An import may be stored in another order (a JetStream store publishes its meta last): the same lines.
      assert.deepEqual([...(read.get("journals-imported") ?? [])].sort(), (await journalLines(store, "journals-imported")).sort());
      await open.append(3, userEntry("and more"));
      assert.deepEqual((await linesOf(store)).get("journals-open"), await journalLines(store, "journals-open"));
      await open.close();
    });

    it("hands a removed run's lines no more, and never a line twice when the reader stops early", async (t) => {
      const store = bulkStore(suite, t);
      if (store === undefined) return;
      await completedRuns(store, ["journals-gone", "journals-stop"]);
      await store.delete("journals-gone");
      const read = await linesOf(store, new Set(["journals-stop"]));
      assert.equal(read.has("journals-gone"), false);
      // A store may skip the rest of a run its reader stopped on, or hand it all: never more than the journal.
      const stopped = read.get("journals-stop") ?? [];
      const whole = await journalLines(store, "journals-stop");
      assert.ok(stopped.length >= 1 && stopped.length <= whole.length, `${stopped.length} of ${whole.length} lines`);
      assert.deepEqual(stopped, whole.slice(0, stopped.length));
    });
  });
}
