// `fisk-ai session stats [--since AGE] [--by model|day|cwd] [--json]`: tokens and cost
// over the store, from the digests kept beside the summaries: no journal is read.
import { ageMs, AGE_FORM } from "../../../config/age.js";
import { ledgerOf, type Ledger } from "../../../ledger/ledger.js";
import { PRICES_AS_OF, type PriceTable } from "../../../ledger/prices.js";
import type { RunDigest } from "../../../runstate/views/run-digest.js";
import type { RunSummary, Store } from "../../../runstate/store/store.js";
import { UsageError } from "../../cli-errors.js";
import { costText, table } from "../../text/ledger.js";
import { usageJson } from "../../text/session-ledger.js";
import { storedDigest } from "../../../ledger/tree-ledger.js";
import { timeText } from "../../text/session-list.js";

/** How stats groups the sessions. */
export type StatsBy = "model" | "day" | "cwd";

/** One row of the stats: a group's sessions and their ledger. */
interface Group {
  key: string;
  sessions: number;
  ledger: Ledger;
}

export function checkStatsFlags(flags: { since?: string; by?: string }): { sinceMs: number | undefined; by: StatsBy | undefined } {
  const sinceMs = flags.since === undefined ? undefined : ageMs(flags.since);
  if (flags.since !== undefined && sinceMs === undefined) throw new UsageError(`--since ${JSON.stringify(flags.since)}: expected ${AGE_FORM}`);
  if (flags.by !== undefined && flags.by !== "model" && flags.by !== "day" && flags.by !== "cwd")
    throw new UsageError(`--by is model, day or cwd, not '${flags.by}'`);
  return { sinceMs, by: flags.by as StatsBy | undefined };
}

export async function sessionStats(
  store: Store,
  options: { sinceMs: number | undefined; by: StatsBy | undefined; json: boolean; prices: PriceTable; now: number },
  out: NodeJS.WritableStream,
): Promise<void> {
  const since = options.sinceMs === undefined ? undefined : new Date(options.now - options.sinceMs).toISOString();
  const summaries = (await store.list()).filter((summary) => summary.status !== "corrupt" && (since === undefined || summary.updated >= since));
  const digests = new Map<RunSummary, RunDigest>();
  for (const summary of summaries) digests.set(summary, await storedDigest(store, summary));
  const total: Group = { key: "total", sessions: summaries.length, ledger: ledgerOf(digests.values(), options.prices) };
  const groups = options.by === undefined ? [] : groupsBy(options.by, digests, options.prices);
  if (options.json) {
    out.write(
      `${JSON.stringify({ since: since ?? null, by: options.by ?? null, prices_as_of: PRICES_AS_OF, groups: groups.map(groupJson), total: groupJson(total) }, null, 2)}\n`,
    );
    return;
  }
  const header = [(options.by ?? "").toUpperCase() || "SESSIONS", "SESSIONS", "CALLS", "INPUT", "OUTPUT", "CACHE READ", "CACHE WRITE", "COST"];
  const rows = [...groups, total].map((group) => [
    group.key,
    String(group.sessions),
    String(group.ledger.usage.calls),
    String(group.ledger.usage.inTokens),
    String(group.ledger.usage.outTokens),
    String(group.ledger.usage.cacheReadTokens),
    String(group.ledger.usage.cacheWriteTokens),
    groupCost(group.ledger),
  ]);
  out.write(table(options.by === undefined ? [header.slice(1), ...rows.map((row) => row.slice(1))] : [header, ...rows]));
  out.write(
    `prices as of ${PRICES_AS_OF}${Object.keys(options.prices).length > 0 ? ", with agent.yaml's pricing:" : ""}; records a fork or an import copied are counted in the session they came from\n`,
  );
}

function groupsBy(by: StatsBy, digests: Map<RunSummary, RunDigest>, prices: PriceTable): Group[] {
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
  const keyOf = (summary: RunSummary) => (by === "day" ? timeText(summary.updated).slice(0, 10) : (summary.meta?.cwd ?? "-"));
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

function groupCost(ledger: Ledger): string {
  return ledger.lines.length === 0
    ? "$0.0000"
    : costText(
        ledger.cost,
        ledger.unpriced,
        ledger.lines.some((line) => line.cost !== undefined),
      );
}

function groupJson({ key, sessions, ledger }: Group) {
  const anyPriced = ledger.lines.length === 0 || ledger.lines.some((line) => line.cost !== undefined);
  return { key, sessions, ...usageJson(ledger.usage), cost_usd: anyPriced ? ledger.cost : null, unpriced: ledger.unpriced };
}
