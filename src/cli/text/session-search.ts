// `session search` as printed: each session found and the line that holds the text, cut to the terminal's width; or JSON.
import type { SearchHit } from "../../session/journal-search.js";
import type { FoundSession } from "../../session/search-sessions.js";
import { cut, widthOf } from "./ledger.js";
import { nameText, oneLine } from "../../transcript/session-name.js";
import { timeText } from "./session-list.js";
import { summaryJson } from "./summary-json.js";

export function writeSearchResults(
  found: readonly FoundSession[],
  text: string,
  options: { json: boolean },
  out: NodeJS.WritableStream & { isTTY?: boolean; columns?: number },
): void {
  if (options.json) {
    out.write(
      `${JSON.stringify(
        found.map(({ summary, hit }) => ({ ...summaryJson(summary), seq: hit.seq, field: hit.field, line: hit.line })),
        null,
        2,
      )}\n`,
    );
    return;
  }
  const width = widthOf(out);
  const lines = found.flatMap(({ summary, hit }) => [
    cut(`${summary.runId}  ${timeText(summary.updated)}  ${nameText(summary)}`, width),
    cut(`  ${hit.field} (seq ${hit.seq}): ${around(hit, width)}`, width),
  ]);
  out.write(found.length === 0 ? `No session holds ${JSON.stringify(text)}.\n` : `${lines.join("\n")}\n`);
}

/** The matching line, starting a little before the match when the match would fall past `width`. */
function around(hit: SearchHit, width: number): string {
  const line = oneLine(hit.line);
  const lead = 24;
  if (!Number.isFinite(width) || hit.at < width - lead) return line;
  return `…${line.slice(Math.max(0, hit.at - lead))}`;
}
