// The sessions of a store, newest first: what `session ls` prints and an HTTP listing returns,
// and the ones a resume could continue (`run --continue`, the picker).
import { sessionForest, type SessionNode } from "../ledger/session-tree.js";
import { isOrphan, queuedRunIds } from "../queue/orphans.js";
import type { QuarantinedEntry } from "../queue/quarantine.js";
import type { RunQueue } from "../queue/run-queue.js";
import type { RunSummary, Store } from "../runstate/store/store.js";

/** A store's sessions as a listing shows them. */
export interface SessionListing {
  /** Every session (started in `here`, when given), most recently updated first. */
  sessions: RunSummary[];
  /** The same sessions, each child under its parent. */
  forest: SessionNode[];
  /** Open sessions the pool has no entry for: what `worker --adopt` would take. */
  orphaned: ReadonlySet<string>;
  /** Queue entries set aside as unreadable; none without a queue. */
  quarantined: readonly QuarantinedEntry[];
}

/** Lists the sessions of `store`, those started in the directory `here` only when it is given; `queue` tells orphans apart. */
export async function listSessions(store: Store, options: { here?: string | undefined; queue?: RunQueue | undefined } = {}): Promise<SessionListing> {
  const sessions = newestFirst((await store.list()).filter((summary) => startedIn(summary, options.here)));
  const queued = await queuedRunIds(options.queue);
  const quarantined = (await options.queue?.quarantined()) ?? [];
  const orphaned = new Set(sessions.filter((summary) => isOrphan(summary, queued)).map((summary) => summary.runId));
  return { sessions, forest: sessionForest(sessions), orphaned, quarantined };
}

const NOT_RESUMABLE = new Set(["completed", "running", "corrupt", "moved"]);

/**
 * Sessions a resume could continue, most recently updated first: only those started in
 * `here` when it is given, and completed ones too when a follow-up would reopen them.
 */
export async function resumableSessions(
  store: Store,
  options: { here?: string | undefined; includeCompleted?: boolean | undefined } = {},
): Promise<RunSummary[]> {
  const resumable = (summary: RunSummary) => !NOT_RESUMABLE.has(summary.status) || (options.includeCompleted === true && summary.status === "completed");
  return newestFirst((await store.list()).filter((summary) => resumable(summary) && startedIn(summary, options.here)));
}

/** Most recently updated first, ties by id. */
export function newestFirst<T extends { summary: RunSummary } | RunSummary>(items: readonly T[]): T[] {
  const summaryOf = (item: T): RunSummary => ("summary" in item ? item.summary : item);
  return [...items].sort((x, y) => {
    const a = summaryOf(x);
    const b = summaryOf(y);
    return a.updated < b.updated ? 1 : a.updated > b.updated ? -1 : a.runId < b.runId ? -1 : 1;
  });
}

/** Sessions that do not record where they started (older ones) are in no directory but everywhere, with --all. */
function startedIn(summary: RunSummary, here: string | undefined): boolean {
  return here === undefined || summary.meta?.cwd === here;
}
