// Which sessions a prune removes: those matching every filter given, never one that can
// still go on (running, open, suspended, awaiting a decision, or unreadable) unless the
// statuses named include its own. Pure: the command lists, plans, then removes.
import type { RunStatus, RunSummary } from "../runstate/store/store.js";

/** The statuses a prune leaves alone unless told by name: a session in one can still go on, or be repaired. */
export const PROTECTED_STATUSES: readonly RunStatus[] = ["running", "open", "suspended", "awaiting_approval", "corrupt"];

/** What a prune removes: sessions matching all the filters given. */
export interface PruneFilters {
  /** Last written longer ago than this, in milliseconds. */
  olderThanMs?: number;
  /** In one of these statuses; a protected status is removed only when named here. */
  statuses?: readonly RunStatus[];
  /** Not among the this many most recently written sessions. */
  keepLast?: number;
}

/** A prune's plan: what goes, and what matched but was kept because it can still go on. */
export interface PrunePlan {
  /** The sessions to remove, largest first. */
  remove: RunSummary[];
  /** Sessions every other filter matched, kept for their status: name it in the statuses to remove them. */
  protected: RunSummary[];
}

/** The plan of a prune of `summaries` with `filters` at `now` (milliseconds since the epoch). */
export function planPrune(summaries: readonly RunSummary[], filters: PruneFilters, now: number): PrunePlan {
  const newest = [...summaries].sort((a, b) => (a.updated < b.updated ? 1 : a.updated > b.updated ? -1 : a.runId < b.runId ? -1 : 1));
  const kept = new Set(newest.slice(0, filters.keepLast ?? 0).map((summary) => summary.runId));
  const named = filters.statuses === undefined ? undefined : new Set<RunStatus>(filters.statuses);
  const remove: RunSummary[] = [];
  const guarded: RunSummary[] = [];
  for (const summary of newest) {
    if (kept.has(summary.runId)) continue;
    if (filters.olderThanMs !== undefined && Date.parse(summary.updated) > now - filters.olderThanMs) continue;
    if (named !== undefined && !named.has(summary.status)) continue;
    if (PROTECTED_STATUSES.includes(summary.status) && named?.has(summary.status) !== true) guarded.push(summary);
    else remove.push(summary);
  }
  remove.sort((a, b) => (b.digest?.bytes ?? 0) - (a.digest?.bytes ?? 0) || (a.runId < b.runId ? -1 : 1));
  return { remove, protected: guarded };
}
