// How sessions read in a list: their status, times and ages, and `session ls`'s table of one row
// a session (its title, where one was given, else the prompt), from the library's listSessions.
import { sessionsOf, type SessionNode } from "../../ledger/session-tree.js";
import type { RunSummary } from "../../runstate/store/store.js";
import type { SessionListing } from "../../session/list-sessions.js";
import { cut, widthOf } from "./ledger.js";
import { nameText } from "../../transcript/session-name.js";
import { summaryJson } from "./summary-json.js";

export function statusText(summary: RunSummary, orphaned = false): string {
  if (orphaned) return `${summary.status} (orphaned)`;
  return summary.holder === undefined ? summary.status : `${summary.status} ${summary.holder.pid}@${summary.holder.host}`;
}

/**
 * Local time to the second, `2026-01-02 03:04:05`: what a person scanning a list wants.
 * Put together by hand: a locale's formatter (toLocaleString) costs more to load than a
 * listing of thousands of sessions takes.
 */
export function timeText(iso: string): string {
  const time = new Date(iso);
  const two = (value: number) => String(value).padStart(2, "0");
  return `${time.getFullYear()}-${two(time.getMonth() + 1)}-${two(time.getDate())} ${two(time.getHours())}:${two(time.getMinutes())}:${two(time.getSeconds())}`;
}

/** How long, in the largest unit that fits: 45s, 12m, 3h, 2d. */
export function ageText(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

/**
 * How ls lays child sessions out: `indented` under their parent (the default), `tree` with
 * the lines of a tree drawn (and nested in JSON), `flat` one row a session, as before children.
 */
export type ListLayout = "indented" | "tree" | "flat";

/** Writes a listing (the library's listSessions) as `session ls` prints it: a table, or JSON. */
export function writeSessionList(
  listing: SessionListing,
  options: { json: boolean; layout: ListLayout; here?: string | undefined; dir?: string | undefined },
  out: NodeJS.WritableStream & { isTTY?: boolean; columns?: number },
): void {
  const { sessions, forest, orphaned } = listing;
  const isOrphaned = (summary: RunSummary) => orphaned.has(summary.runId);
  const json = (summary: RunSummary) => ({ ...summaryJson(summary), orphaned: isOrphaned(summary) });
  const nested = (node: SessionNode): ReturnType<typeof json> & { children: unknown[] } => ({ ...json(node.summary), children: node.children.map(nested) });
  if (options.json) {
    const shown = options.layout === "tree" ? forest.map(nested) : sessions.map(json);
    out.write(`${JSON.stringify(shown, null, 2)}\n`);
    return;
  }
  if (sessions.length === 0) {
    out.write(`No sessions${options.here === undefined ? "" : ` started in ${options.here}`}${options.dir === undefined ? "" : ` in ${options.dir}`}.\n`);
    return;
  }
  const listed = options.layout === "flat" ? sessions.map((summary) => ({ summary, prefix: "" })) : forestRows(forest, options.layout === "tree");
  const rows = listed.map(({ summary, prefix }) => [
    prefix + summary.runId,
    statusText(summary, isOrphaned(summary)),
    summary.meta?.fingerprint.model ?? "-",
    timeText(summary.updated),
    nameText(summary),
  ]);
  const header = ["ID", "STATUS", "MODEL", "UPDATED", "TITLE/PROMPT"];
  const widths = header.slice(0, -1).map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] as string).length)));
  const width = widthOf(out);
  const lines = [header, ...rows].map((row) =>
    cut(row.map((cell, column) => (column < widths.length ? cell.padEnd(widths[column] as number) : cell)).join("  "), width),
  );
  // One write: ten thousand rows written one by one cost more than building them.
  out.write(`${lines.join("\n")}\n`);
}

/** Each session after its parent, its id prefixed by its depth: two spaces a level, or the lines of a tree. */
function forestRows(forest: readonly SessionNode[], drawn: boolean): { summary: RunSummary; prefix: string }[] {
  if (!drawn) return forest.flatMap(sessionsOf).map((node) => ({ summary: node.summary, prefix: "  ".repeat(node.depth) }));
  const rows: { summary: RunSummary; prefix: string }[] = [];
  const walk = (node: SessionNode, lead: string, last: boolean) => {
    rows.push({ summary: node.summary, prefix: node.depth === 0 ? "" : `${lead}${last ? "└─ " : "├─ "}` });
    const below = node.depth === 0 ? "" : `${lead}${last ? "   " : "│  "}`;
    node.children.forEach((child, index) => walk(child, below, index === node.children.length - 1));
  };
  for (const root of forest) walk(root, "", true);
  return rows;
}
