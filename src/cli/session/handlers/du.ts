// `fisk-ai session du [--json]`: the bytes each session takes (its journal, and its lock
// file while there is one), largest first, and the total: from the summaries alone.
import type { Store } from "../../../runstate/store/store.js";
import { bytesText, nameText, table, widthOf } from "../../text/ledger.js";
import { statusText } from "../../text/session-list.js";
import { counted } from "../../text/counted.js";

export async function sessionDiskUse(
  store: Store,
  options: { json: boolean },
  out: NodeJS.WritableStream & { isTTY?: boolean; columns?: number },
): Promise<void> {
  const sessions = (await store.list()).map((summary) => ({ summary, bytes: summary.digest?.bytes ?? 0 }));
  sessions.sort((a, b) => b.bytes - a.bytes || (a.summary.runId < b.summary.runId ? -1 : 1));
  const total = sessions.reduce((sum, { bytes }) => sum + bytes, 0);
  if (options.json) {
    const rows = sessions.map(({ summary, bytes }) => ({
      id: summary.runId,
      bytes,
      status: summary.status,
      title: summary.digest?.title ?? null,
      prompt: summary.meta?.prompt ?? null,
    }));
    out.write(`${JSON.stringify({ sessions: rows, total_bytes: total }, null, 2)}\n`);
    return;
  }
  const rows = sessions.map(({ summary, bytes }) => [bytesText(bytes), summary.runId, statusText(summary), nameText(summary)]);
  out.write(
    table(
      [["SIZE", "ID", "STATUS", "TITLE/PROMPT"], ...rows, [bytesText(total), `total (${counted(sessions.length, "session")}, ${total} bytes)`]],
      widthOf(out),
    ),
  );
}
