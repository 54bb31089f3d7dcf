// A transcript entry as text: how the printed `session show --transcript` and the viewer
// write each thing said (a prompt, a tool call, its result folded to its first lines, a
// child session's head).
import type { TranscriptEntry } from "../../transcript/transcript-entries.js";
import { durationText } from "../../transcript/duration.js";

const FOLDED_RESULT_LINES = 4;

/** An entry as the plain print shows it: a result indented under its arrow, a long one folded to its first lines unless `full`. */
export function plainEntry(entry: TranscriptEntry, full: boolean): string {
  switch (entry.kind) {
    case "user":
      return `› ${entry.text}`;
    case "text":
    case "other":
      return entry.text;
    case "thinking":
      return entry.redacted ? "(thinking, redacted)" : `(thinking) ${entry.text}`;
    case "tool_call":
      return `→ ${entry.server ? "(server) " : ""}${entry.name} ${JSON.stringify(entry.input)}`;
    case "tool_result":
      return `← ${entry.name}${entry.error ? " (error)" : ""}${entry.ms === undefined ? "" : ` (${durationText(entry.ms)})`}: ${shownResult(entry.text, full)}`;
    case "model_call":
      return `(model call, ${durationText(entry.ms)})`;
    case "child":
      return `${childHead(entry)}${full ? "" : " (--full shows its work)"}`;
    case "marker":
      return entry.detail === undefined ? entry.text : `${entry.text}\n  ${entry.detail.split("\n").join("\n  ")}`;
  }
}

/** The line a child session's fold shows, open or closed. */
export function childHead(entry: Extract<TranscriptEntry, { kind: "child" }>): string {
  return `⤷ ${entry.name}: child session ${entry.runId} (${entry.status})`;
}

function shownResult(text: string, full: boolean): string {
  const lines = text.split("\n");
  if (full || lines.length <= FOLDED_RESULT_LINES) return lines.join("\n  ");
  return `${lines.slice(0, FOLDED_RESULT_LINES).join("\n  ")}\n  … ${lines.length - FOLDED_RESULT_LINES} more lines (--full shows them)`;
}
