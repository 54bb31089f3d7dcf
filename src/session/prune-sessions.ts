// Removing the sessions a prune plan names (prune-plan.ts): `session prune`, and an HTTP
// handler's. Nothing is removed but by a call of this: fisk-ai never prunes by itself.
import type { RunSummary, Store } from "../runstate/store/store.js";
import { planPrune, type PruneFilters } from "./prune-plan.js";

/** What a prune did (or, a dry run, would do). */
export interface PruneResult {
  /** The sessions removed (a dry run: that would be), the largest tree first. */
  removed: RunSummary[];
  /** Their bytes: for a real prune, the bytes freed. */
  bytes: number;
  /** Sessions every other filter matched, kept for their status: name it in the filters' statuses to remove them. */
  protected: RunSummary[];
  /** Sessions the store failed to remove, and its error; not counted in `removed` or `bytes`. */
  failed: {
    /** The session that was not removed. */
    summary: RunSummary;
    /** What the store threw when removing it. */
    error: unknown;
  }[];
}

/** Removes the sessions of `store` matching every one of `filters` at `now` (default: now); with `dryRun`, removes nothing. */
export async function pruneSessions(store: Store, filters: PruneFilters, options: { dryRun?: boolean; now?: number } = {}): Promise<PruneResult> {
  const plan = planPrune(await store.list(), filters, options.now ?? Date.now());
  const removed: RunSummary[] = [];
  const failed: PruneResult["failed"] = [];
  for (const summary of plan.remove) {
    if (options.dryRun === true) {
      removed.push(summary);
      continue;
    }
    try {
      await store.delete(summary.runId);
      removed.push(summary);
    } catch (error) {
      failed.push({ summary, error });
    }
  }
  const bytes = removed.reduce((sum, summary) => sum + (summary.digest?.bytes ?? 0), 0);
  return { removed, bytes, protected: plan.protected, failed };
}
