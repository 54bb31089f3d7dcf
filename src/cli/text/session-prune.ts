// `session prune` as printed: what went (or would go) and its bytes, and what was kept; or JSON.
import { PROTECTED_STATUSES } from "../../session/prune-plan.js";
import type { PruneResult } from "../../session/prune-sessions.js";
import { counted } from "../../transcript/counted.js";
import { bytesText, table } from "./ledger.js";
import { nameText } from "../../transcript/session-name.js";

export function writePruneResult(
  { removed, bytes, protected: kept }: PruneResult,
  options: { dryRun: boolean; json: boolean },
  out: NodeJS.WritableStream,
): void {
  if (options.json) {
    const rows = removed.map((summary) => ({
      id: summary.runId,
      status: summary.status,
      bytes: summary.digest?.bytes ?? 0,
      title: summary.digest?.title ?? null,
      updated: summary.updated,
    }));
    const shownKept = kept.map((summary) => ({ id: summary.runId, status: summary.status }));
    out.write(`${JSON.stringify({ dry_run: options.dryRun, removed: rows, bytes, protected: shownKept }, null, 2)}\n`);
    return;
  }
  const verb = options.dryRun ? "would remove" : "removed";
  if (removed.length > 0)
    out.write(table(removed.map((summary) => [verb, summary.runId, summary.status, bytesText(summary.digest?.bytes ?? 0), nameText(summary)])));
  out.write(`${verb} ${counted(removed.length, "session")}, ${bytes} bytes (${bytesText(bytes)})${options.dryRun ? "" : " freed"}\n`);
  if (kept.length > 0) {
    // A tree is kept whole for the one session of it that can go on: its status is the one to name.
    const statuses = [...new Set(kept.map((summary) => summary.status).filter((status) => PROTECTED_STATUSES.includes(status)))].join(",");
    out.write(`kept ${kept.length} matching sessions that can still go on or be repaired (${statuses}): name their status in --status to remove them\n`);
  }
}
