// Titling a session: a `title` record appended to its journal, so the title is the
// session's however many records follow, and travels with it through export and fork.
import { PROTOCOLS } from "../runstate/records/records.js";
import type { Store } from "../runstate/store/store.js";

/**
 * Gives the run `runId` the title `title`, appending a title record (ERR_LOCKED while a
 * writer holds the run; ERR_INVALID_RECORD for a title that is empty, longer than
 * TITLE_MAX_LENGTH or more than one line). Resolves to the record's seq.
 */
export async function titleSession(store: Store, runId: string, title: string): Promise<number> {
  const journal = await store.open(runId);
  try {
    const seq = journal.lastSeq + 1;
    await journal.append(seq, { protocol: PROTOCOLS.title, title: { title } });
    return seq;
  } finally {
    await journal.close();
  }
}
