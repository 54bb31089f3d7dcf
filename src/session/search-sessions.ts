// The sessions whose title, prompt or conversation holds a text, newest first, each with the
// first place it is found: `session search`, and an HTTP handler's search.
import { RunStateError } from "../runstate/errors.js";
import type { RunSummary, Store } from "../runstate/store/store.js";
import { searchJournal, SearchText, type SearchHit } from "./journal-search.js";
import { newestFirst } from "./list-sessions.js";

/** Journals read at once: enough to keep the disk or the server busy, few enough to hold little. */
const READS_AT_ONCE = 8;

/** A session found, and where: its first hit by seq. */
export interface FoundSession {
  /** The session's summary. */
  summary: RunSummary;
  /** The first place, by seq, its journal holds the text. */
  hit: SearchHit;
}

/**
 * Searches every journal of `store` for `text` (any case when it is lower case); a text of
 * only spaces finds nothing. A session found that cannot be read is refused (ERR_CORRUPT),
 * as every reader refuses it.
 */
export async function searchSessions(store: Store, text: string): Promise<FoundSession[]> {
  if (text.trim() === "") return [];
  const search = new SearchText(text);
  const hits = new Map<string, SearchHit>();
  // A run's first hit is the one kept: a store may hand a run's records in pieces, and not always in seq order.
  const visit = (runId: string, lines: Buffer) => {
    const hit = searchJournal(lines, search);
    if (hit === undefined) return false;
    const seen = hits.get(runId);
    if (seen === undefined || hit.seq < seen.seq) hits.set(runId, hit);
    return true;
  };
  await (store.readJournals?.(visit) ?? readEach(store, visit));
  // Only the sessions found are summarized.
  const found: FoundSession[] = [];
  for (const [runId, hit] of hits) {
    try {
      found.push({ summary: await store.summarize(runId), hit });
    } catch {
      // Removed since it was read.
    }
  }
  const broken = found.find(({ summary }) => summary.status === "corrupt");
  if (broken !== undefined)
    throw new RunStateError("ERR_CORRUPT", broken.summary.problem ?? `session ${broken.summary.runId} cannot be read`, { runId: broken.summary.runId });
  return newestFirst(found);
}

/** Every run listed, a readJournal each, a few at once: for a store that reads no faster in bulk. */
async function readEach(store: Store, visit: (runId: string, lines: Buffer) => boolean): Promise<void> {
  const runIds = (await store.list()).map((summary) => summary.runId);
  let next = 0;
  const reader = async () => {
    for (let index = next++; index < runIds.length; index = next++) {
      const runId = runIds[index] as string;
      let bytes: Uint8Array;
      try {
        bytes = await store.readJournal(runId);
      } catch {
        // Removed since it was listed: nothing to find in it.
        continue;
      }
      visit(runId, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    }
  };
  await Promise.all(Array.from({ length: READS_AT_ONCE }, reader));
}
