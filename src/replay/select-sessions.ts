// Which sessions of a store a replay takes when it is not given their ids: `--all`, narrowed
// by `--since` and `--status` as `session prune` narrows. Child sessions are left out: their
// agent is the child's, not the one replayed, and their parent's replay answers their calls.
import type { RunStatus, RunSummary } from "../runstate/store/store.js";

export interface SessionFilters {
  /** Only sessions created at or after this time (milliseconds since the epoch). */
  since?: number;
  /** Only sessions in one of these statuses. */
  statuses?: readonly RunStatus[];
}

/** The ids of the top-level sessions `filters` keep, oldest first, so a report reads in the order they ran. */
export function selectSessions(summaries: readonly RunSummary[], filters: SessionFilters): string[] {
  return summaries
    .filter((summary) => summary.meta !== undefined && summary.meta.parent === undefined)
    .filter((summary) => filters.since === undefined || Date.parse(summary.meta?.created ?? "") >= filters.since)
    .filter((summary) => filters.statuses === undefined || filters.statuses.includes(summary.status))
    .sort((a, b) => (a.meta?.created ?? "").localeCompare(b.meta?.created ?? "") || a.runId.localeCompare(b.runId))
    .map((summary) => summary.runId);
}
