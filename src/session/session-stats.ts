// Tokens and cost over a store, from the digests kept beside the summaries (no journal is
// read where the store keeps them): `session stats`, and an HTTP handler's totals.
import { ledgerOf, type Ledger } from "../ledger/ledger.js";
import type { PriceTable } from "../ledger/prices.js";
import { storedDigest } from "../ledger/tree-ledger.js";
import type { RunSummary, Store } from "../runstate/store/store.js";
import type { RunDigest } from "../runstate/views/run-digest.js";

/** How the sessions are grouped: by model, by the local day they were last written, or by the directory they started in. */
export type StatsBy = "model" | "day" | "cwd";

/** One group of sessions and its ledger. */
export interface StatsGroup {
  /** The group's model, day (`YYYY-MM-DD`) or directory; `total` for the total. */
  key: string;
  /** How many sessions are counted in it. */
  sessions: number;
  /** Their tokens and cost by model. */
  ledger: Ledger;
}

/** The tokens and cost of a store's sessions, as `sessionStats` gives them. */
export interface SessionStats {
  /** The earliest last write counted (ISO 8601), when the sessions were limited to recent ones. */
  since: string | undefined;
  /** How the groups are made, or undefined when the sessions are not grouped. */
  by: StatsBy | undefined;
  /** One per model, day or directory, when grouped: models in the ledger's order, days newest first, directories sorted. */
  groups: StatsGroup[];
  /** Every session counted, in one group keyed `total`. */
  total: StatsGroup;
}

/** Which sessions `sessionStats` counts, how it groups them and the prices it costs them with. */
export interface SessionStatsOptions {
  /** Only sessions last written in this many milliseconds before `now`. */
  sinceMs?: number | undefined;
  /** Group the sessions by model, day or directory (default: not grouped). */
  by?: StatsBy | undefined;
  /** Prices over the shipped table. */
  prices?: PriceTable;
  /** Milliseconds since the epoch (default: now). */
  now?: number;
}

/** The tokens and cost of the readable sessions of `store`, totalled and, with `by`, grouped. */
export async function sessionStats(store: Store, options: SessionStatsOptions = {}): Promise<SessionStats> {
  const prices = options.prices ?? {};
  const now = options.now ?? Date.now();
  const since = options.sinceMs === undefined ? undefined : new Date(now - options.sinceMs).toISOString();
  const summaries = (await store.list()).filter((summary) => summary.status !== "corrupt" && (since === undefined || summary.updated >= since));
  const digests = new Map<RunSummary, RunDigest>();
  for (const summary of summaries) digests.set(summary, await storedDigest(store, summary));
  const total: StatsGroup = { key: "total", sessions: summaries.length, ledger: ledgerOf(digests.values(), prices) };
  const groups = options.by === undefined ? [] : groupsBy(options.by, digests, prices);
  return { since, by: options.by, groups, total };
}

function groupsBy(by: StatsBy, digests: Map<RunSummary, RunDigest>, prices: PriceTable): StatsGroup[] {
  if (by === "model") {
    // A model's row: its lines of the whole ledger, the sessions that used it.
    const ledger = ledgerOf(digests.values(), prices);
    return ledger.lines.map((line) => {
      const used = [...digests.values()].filter((digest) => (line.kind === "agent" ? digest.calls : digest.compactions)[line.model] !== undefined);
      return {
        key: line.kind === "agent" ? line.model : `${line.model} (compaction)`,
        sessions: used.length,
        ledger: { lines: [line], usage: line.usage, cost: line.cost ?? 0, unpriced: line.cost === undefined ? [line.model] : [] },
      };
    });
  }
  const keyOf = (summary: RunSummary) => (by === "day" ? localDay(summary.updated) : (summary.meta?.cwd ?? "-"));
  const byKey = new Map<string, RunDigest[]>();
  for (const [summary, digest] of digests) {
    const key = keyOf(summary);
    byKey.set(key, [...(byKey.get(key) ?? []), digest]);
  }
  const keys = [...byKey.keys()].sort();
  if (by === "day") keys.reverse();
  return keys.map((key) => {
    const group = byKey.get(key) as RunDigest[];
    return { key, sessions: group.length, ledger: ledgerOf(group, prices) };
  });
}

/** The local date of an ISO time, `2026-01-02`. */
function localDay(iso: string): string {
  const time = new Date(iso);
  const two = (value: number) => String(value).padStart(2, "0");
  return `${time.getFullYear()}-${two(time.getMonth() + 1)}-${two(time.getDate())}`;
}
