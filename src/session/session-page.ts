// One page of a store's sessions, filtered: newest first (a session id is a KSUID, sorted
// by creation), the next page starting after the last id of this one, so a cursor stays
// right while sessions are added. Pure: it reads the summaries a listing holds.
import { parentIdOf } from "../ledger/session-tree.js";
import type { RunStatus, RunSummary } from "../runstate/store/store.js";

/** What a listing keeps; every field given must hold. */
export interface SessionFilter {
  /** Its status is one of these. */
  status?: readonly RunStatus[] | undefined;
  /** It was started with the agent.yaml at this absolute path. */
  config?: string | undefined;
  /** Its title or prompt holds this text, case ignored. */
  text?: string | undefined;
  /** It is a child session of this one. */
  parent?: string | undefined;
  /** It was last written at or after this time, RFC 3339. */
  updatedSince?: string | undefined;
}

/** A page of sessions, and the cursor of the next one (absent on the last page). */
export interface SessionPage {
  sessions: RunSummary[];
  next?: string;
}

/** The sessions of `summaries` that `filter` keeps, newest first, from after the id `cursor`, at most `limit`. */
export function sessionPage(summaries: readonly RunSummary[], filter: SessionFilter, page: { cursor?: string | undefined; limit: number }): SessionPage {
  const text = filter.text?.toLowerCase();
  const since = filter.updatedSince === undefined ? undefined : Date.parse(filter.updatedSince);
  const kept = summaries
    .filter(
      (summary) =>
        (page.cursor === undefined || summary.runId < page.cursor) &&
        (filter.status === undefined || filter.status.includes(summary.status)) &&
        (filter.config === undefined || summary.meta?.config === filter.config) &&
        (filter.parent === undefined || parentIdOf(summary) === filter.parent) &&
        (since === undefined || Date.parse(summary.updated) >= since) &&
        (text === undefined || [summary.digest?.title, summary.meta?.prompt].some((field) => field?.toLowerCase().includes(text) === true)),
    )
    .sort((a, b) => (a.runId < b.runId ? 1 : a.runId > b.runId ? -1 : 0));
  const sessions = kept.slice(0, page.limit);
  return kept.length > page.limit ? { sessions, next: (sessions.at(-1) as RunSummary).runId } : { sessions };
}
