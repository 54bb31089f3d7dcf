// `session stats` as printed: a table of the groups and the total, or JSON.
import type { Ledger } from "../../ledger/ledger.js";
import { PRICES_AS_OF } from "../../ledger/prices.js";
import type { SessionStats, StatsGroup } from "../../session/session-stats.js";
import { costText, table } from "./ledger.js";
import { usageJson } from "./session-ledger.js";

export function writeSessionStats(stats: SessionStats, options: { json: boolean; priced: boolean }, out: NodeJS.WritableStream): void {
  const { by, groups, total } = stats;
  if (options.json) {
    out.write(
      `${JSON.stringify({ since: stats.since ?? null, by: by ?? null, prices_as_of: PRICES_AS_OF, groups: groups.map(groupJson), total: groupJson(total) }, null, 2)}\n`,
    );
    return;
  }
  const header = [(by ?? "").toUpperCase() || "SESSIONS", "SESSIONS", "CALLS", "INPUT", "OUTPUT", "CACHE READ", "CACHE WRITE", "COST"];
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
  out.write(table(by === undefined ? [header.slice(1), ...rows.map((row) => row.slice(1))] : [header, ...rows]));
  out.write(
    `prices as of ${PRICES_AS_OF}${options.priced ? ", with agent.yaml's pricing:" : ""}; records a fork or an import copied are counted in the session they came from\n`,
  );
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

function groupJson({ key, sessions, ledger }: StatsGroup) {
  const anyPriced = ledger.lines.length === 0 || ledger.lines.some((line) => line.cost !== undefined);
  return { key, sessions, ...usageJson(ledger.usage), cost_usd: anyPriced ? ledger.cost : null, unpriced: ledger.unpriced };
}
