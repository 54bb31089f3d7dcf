// The bytes each session of a store takes (its journal, and its lock file while there is one),
// largest first, and their total: from the summaries alone, no journal read.
import type { RunSummary, Store } from "../runstate/store/store.js";

/** The bytes a store's sessions take, each and in total. */
export interface DiskUse {
  /** Largest first; equal sizes by id. */
  sessions: {
    /** The session's summary. */
    summary: RunSummary;
    /** The bytes it takes as stored (0 when its summary has no digest). */
    bytes: number;
  }[];
  /** The bytes of every session, summed. */
  totalBytes: number;
}

/** The bytes each session of `store` takes, largest first, and their total, from its summaries alone. */
export async function diskUse(store: Store): Promise<DiskUse> {
  const sessions = (await store.list()).map((summary) => ({ summary, bytes: summary.digest?.bytes ?? 0 }));
  sessions.sort((a, b) => b.bytes - a.bytes || (a.summary.runId < b.summary.runId ? -1 : 1));
  return { sessions, totalBytes: sessions.reduce((sum, { bytes }) => sum + bytes, 0) };
}
