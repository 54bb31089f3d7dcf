// Which sessions a prune removes: those matching every filter given, never one that can
// still go on (running, open, suspended, awaiting a decision, or unreadable) unless the
// statuses named include its own. Pure: the command lists, plans, then removes.
// A session and its child sessions are one tree, planned as one: the filters look at the
// root (and the tree's latest write), a session of it that can still go on keeps it all,
// and it goes whole or not at all, so a prune never leaves a child without its parent.
import type { RunStatus, RunSummary } from "../runstate/store/store.js";
import { sessionForest, sessionsOf } from "../ledger/session-tree.js";

/** The statuses a prune leaves alone unless told by name: a session in one can still go on, or be repaired. */
export const PROTECTED_STATUSES: readonly RunStatus[] = ["running", "open", "suspended", "awaiting_approval", "corrupt"];

/** What a prune removes: sessions matching all the filters given. */
export interface PruneFilters {
  /** Last written longer ago than this, in milliseconds. */
  olderThanMs?: number;
  /** In one of these statuses; a protected status is removed only when named here. */
  statuses?: readonly RunStatus[];
  /** Not among the this many most recently written sessions (trees: a session with its children counts once). */
  keepLast?: number;
}

/** A prune's plan: what goes, and what matched but was kept because it can still go on. */
export interface PrunePlan {
  /** The sessions to remove, the largest tree first, each root before its children. */
  remove: RunSummary[];
  /** Sessions every other filter matched, kept for their status: name it in the statuses to remove them. */
  protected: RunSummary[];
}

/** The plan of a prune of `summaries` with `filters` at `now` (milliseconds since the epoch). */
export function planPrune(summaries: readonly RunSummary[], filters: PruneFilters, now: number): PrunePlan {
  const trees = sessionForest(summaries).map((root) => {
    const sessions = sessionsOf(root).map((node) => node.summary);
    const updated = sessions.reduce((latest, summary) => (summary.updated > latest ? summary.updated : latest), root.summary.updated);
    return { root: root.summary, sessions, updated, bytes: sessions.reduce((sum, summary) => sum + (summary.digest?.bytes ?? 0), 0) };
  });
  trees.sort((a, b) => (a.updated < b.updated ? 1 : a.updated > b.updated ? -1 : a.root.runId < b.root.runId ? -1 : 1));
  const named = filters.statuses === undefined ? undefined : new Set<RunStatus>(filters.statuses);
  const remove: typeof trees = [];
  const guarded: RunSummary[] = [];
  for (const tree of trees.slice(filters.keepLast ?? 0)) {
    if (filters.olderThanMs !== undefined && Date.parse(tree.updated) > now - filters.olderThanMs) continue;
    if (named !== undefined && !named.has(tree.root.status)) continue;
    const goesOn = tree.sessions.some((summary) => PROTECTED_STATUSES.includes(summary.status) && named?.has(summary.status) !== true);
    if (goesOn) guarded.push(...tree.sessions);
    else remove.push(tree);
  }
  remove.sort((a, b) => b.bytes - a.bytes || (a.root.runId < b.root.runId ? -1 : 1));
  return { remove: remove.flatMap((tree) => tree.sessions), protected: guarded };
}
