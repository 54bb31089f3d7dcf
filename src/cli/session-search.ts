// `fisk-ai session search TEXT [--json]`: the sessions whose title, prompt or conversation
// holds TEXT, newest first, each with the line that holds it cut to the terminal's width.
import { searchJournal, SearchText, type SearchHit } from "../ledger/journal-search.js";
import type { RunSummary, Store } from "../runstate/store.js";
import { UsageError } from "./cli-errors.js";
import { cut, nameText, oneLine, widthOf } from "./ledger-text.js";
import { summaryJson } from "./session-json.js";
import { timeText } from "./session-list.js";

/** Journals read at once: enough to keep the disk or the server busy, few enough to hold little. */
const READS_AT_ONCE = 8;

export async function searchSessions(store: Store, text: string, options: { json: boolean }, out: NodeJS.WritableStream & { isTTY?: boolean; columns?: number }): Promise<number> {
  if (text.trim() === "") throw new UsageError("session search needs the text to find: fisk-ai session search TEXT");
  const search = new SearchText(text);
  const summaries = (await store.list())
    .filter((summary) => summary.status !== "corrupt")
    .sort((a, b) => (a.updated < b.updated ? 1 : a.updated > b.updated ? -1 : a.runId < b.runId ? -1 : 1));
  const hits: ({ summary: RunSummary; hit: SearchHit } | undefined)[] = new Array(summaries.length);
  let next = 0;
  const reader = async () => {
    for (let index = next++; index < summaries.length; index = next++) {
      const summary = summaries[index] as RunSummary;
      let bytes: Uint8Array;
      try {
        bytes = await store.readJournal(summary.runId);
      } catch {
        // Removed since it was listed: nothing to find in it.
        continue;
      }
      const hit = searchJournal(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), search);
      if (hit !== undefined) hits[index] = { summary, hit };
    }
  };
  await Promise.all(Array.from({ length: READS_AT_ONCE }, reader));
  const found = hits.filter((hit) => hit !== undefined);
  if (options.json) {
    out.write(`${JSON.stringify(found.map(({ summary, hit }) => ({ ...summaryJson(summary), seq: hit.seq, field: hit.field, line: hit.line })), null, 2)}\n`);
    return found.length;
  }
  const width = widthOf(out);
  const lines = found.flatMap(({ summary, hit }) => [cut(`${summary.runId}  ${timeText(summary.updated)}  ${nameText(summary)}`, width), cut(`  ${hit.field} (seq ${hit.seq}): ${around(hit, width)}`, width)]);
  out.write(found.length === 0 ? `No session holds ${JSON.stringify(text)}.\n` : `${lines.join("\n")}\n`);
  return found.length;
}

/** The matching line, starting a little before the match when the match would fall past `width`. */
function around(hit: SearchHit, width: number): string {
  const line = oneLine(hit.line);
  const lead = 24;
  if (!Number.isFinite(width) || hit.at < width - lead) return line;
  return `…${line.slice(Math.max(0, hit.at - lead))}`;
}
