// `fisk-ai session search TEXT [--json]`: the sessions whose title, prompt or conversation
// holds TEXT, newest first, each with the line that holds it cut to the terminal's width.
import { searchJournal, SearchText, type SearchHit } from "../../../session/journal-search.js";
import { RunStateError } from "../../../runstate/errors.js";
import type { RunSummary, Store } from "../../../runstate/store/store.js";
import { UsageError } from "../../cli-errors.js";
import { cut, widthOf } from "../../text/ledger.js";
import { nameText, oneLine } from "../../../transcript/session-name.js";
import { summaryJson } from "../../text/summary-json.js";
import { timeText } from "../../text/session-list.js";

/** Journals read at once: enough to keep the disk or the server busy, few enough to hold little. */
const READS_AT_ONCE = 8;

export async function searchSessions(
  store: Store,
  text: string,
  options: { json: boolean },
  out: NodeJS.WritableStream & { isTTY?: boolean; columns?: number },
): Promise<number> {
  if (text.trim() === "") throw new UsageError("session search needs the text to find: fisk-ai session search TEXT");
  const search = new SearchText(text);
  const hits = new Map<string, SearchHit>();
  // A run's first hit is the one shown: a store may hand a run's records in pieces, and not always in seq order.
  const visit = (runId: string, lines: Buffer) => {
    const hit = searchJournal(lines, search);
    if (hit === undefined) return false;
    const seen = hits.get(runId);
    if (seen === undefined || hit.seq < seen.seq) hits.set(runId, hit);
    return true;
  };
  await (store.readJournals?.(visit) ?? readEach(store, visit));
  // Only the sessions found are summarized: newest first.
  const found: { summary: RunSummary; hit: SearchHit }[] = [];
  for (const [runId, hit] of hits) {
    try {
      found.push({ summary: await store.summarize(runId), hit });
    } catch {
      // Removed since it was read.
    }
  }
  // A session the text was found in is read as a session: one that does not fold is refused, naming its line, as every reader does.
  const broken = found.find(({ summary }) => summary.status === "corrupt");
  if (broken !== undefined)
    throw new RunStateError("ERR_CORRUPT", broken.summary.problem ?? `session ${broken.summary.runId} cannot be read`, { runId: broken.summary.runId });
  found.sort((a, b) => (a.summary.updated < b.summary.updated ? 1 : a.summary.updated > b.summary.updated ? -1 : a.summary.runId < b.summary.runId ? -1 : 1));
  if (options.json) {
    out.write(
      `${JSON.stringify(
        found.map(({ summary, hit }) => ({ ...summaryJson(summary), seq: hit.seq, field: hit.field, line: hit.line })),
        null,
        2,
      )}\n`,
    );
    return found.length;
  }
  const width = widthOf(out);
  const lines = found.flatMap(({ summary, hit }) => [
    cut(`${summary.runId}  ${timeText(summary.updated)}  ${nameText(summary)}`, width),
    cut(`  ${hit.field} (seq ${hit.seq}): ${around(hit, width)}`, width),
  ]);
  out.write(found.length === 0 ? `No session holds ${JSON.stringify(text)}.\n` : `${lines.join("\n")}\n`);
  return found.length;
}

/** Every run listed, a readJournal each, a few at once: for a store that reads no faster in bulk. */
async function readEach(store: Store, visit: (runId: string, lines: Buffer) => boolean): Promise<void> {
  const runIds = (await store.list()).map((summary) => summary.runId);
  let next = 0;
  const reader = async () => {
    for (let index = next++; index < runIds.length; index = next++) {
      const runId = runIds[index] as string;
      let bytes: Uint8Array;
      try {
        bytes = await store.readJournal(runId);
      } catch {
        // Removed since it was listed: nothing to find in it.
        continue;
      }
      visit(runId, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    }
  };
  await Promise.all(Array.from({ length: READS_AT_ONCE }, reader));
}

/** The matching line, starting a little before the match when the match would fall past `width`. */
function around(hit: SearchHit, width: number): string {
  const line = oneLine(hit.line);
  const lead = 24;
  if (!Number.isFinite(width) || hit.at < width - lead) return line;
  return `…${line.slice(Math.max(0, hit.at - lead))}`;
}
