// `fisk-ai session ls`: one row a session, newest first, from the summaries the store
// keeps (their title, where one was given, else the prompt). Also the source of what `run --continue` and the picker may resume.
import { sessionForest, sessionsOf, type SessionNode } from "../../ledger/session-tree.js";
import type { RunSummary, Store } from "../../runstate/store/store.js";
import { isOrphan, queuedRunIds } from "../../pool/orphans.js";
import type { RunQueue } from "../../queue/run-queue.js";
import { quarantineSummary } from "../../queue/quarantine.js";
import { cut, widthOf } from "./ledger.js";
import { nameText } from "../../transcript/session-name.js";
import { summaryJson } from "./summary-json.js";

const NOT_RESUMABLE = new Set(["completed", "running", "corrupt"]);

function newestFirst(summaries: readonly RunSummary[]): RunSummary[] {
  return [...summaries].sort((a, b) => (a.updated < b.updated ? 1 : a.updated > b.updated ? -1 : a.runId < b.runId ? -1 : 1));
}

/**
 * Sessions a resume could continue, most recently updated first: only those started in
 * `here` when it is given, and completed ones too when a follow-up would reopen them.
 */
export async function resumableSessions(store: Store, options: { here?: string; includeCompleted?: boolean } = {}): Promise<RunSummary[]> {
  const resumable = (summary: RunSummary) => !NOT_RESUMABLE.has(summary.status) || (options.includeCompleted === true && summary.status === "completed");
  return newestFirst((await store.list()).filter((summary) => resumable(summary) && startedIn(summary, options.here)));
}

/** Sessions that do not record where they started (older ones) are in no directory but everywhere, with --all. */
function startedIn(summary: RunSummary, here: string | undefined): boolean {
  return here === undefined || summary.meta?.cwd === here;
}

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

export async function listSessions(
  store: Store & { dir?: string },
  options: { json: boolean; here?: string; layout?: ListLayout; queue?: RunQueue | undefined; warn?: (line: string) => void },
  out: NodeJS.WritableStream & { isTTY?: boolean; columns?: number },
): Promise<void> {
  const layout = options.layout ?? "indented";
  const summaries = newestFirst((await store.list()).filter((summary) => startedIn(summary, options.here)));
  // Open sessions the pool has no entry for: what `worker --adopt` would take.
  const queue = options.queue;
  const queued = await queuedRunIds(queue);
  const setAside = (await queue?.quarantined()) ?? [];
  if (setAside.length > 0) options.warn?.(quarantineSummary(setAside));
  const orphaned = (summary: RunSummary) => isOrphan(summary, queued);
  const json = (summary: RunSummary) => ({ ...summaryJson(summary), orphaned: orphaned(summary) });
  const nested = (node: SessionNode): ReturnType<typeof json> & { children: unknown[] } => ({ ...json(node.summary), children: node.children.map(nested) });
  const forest = sessionForest(summaries);
  if (options.json) {
    const shown = layout === "tree" ? forest.map(nested) : summaries.map(json);
    out.write(`${JSON.stringify(shown, null, 2)}\n`);
    return;
  }
  if (summaries.length === 0) {
    out.write(`No sessions${options.here === undefined ? "" : ` started in ${options.here}`}${store.dir === undefined ? "" : ` in ${store.dir}`}.\n`);
    return;
  }
  const listed = layout === "flat" ? summaries.map((summary) => ({ summary, prefix: "" })) : forestRows(forest, layout === "tree");
  const rows = listed.map(({ summary, prefix }) => [
    prefix + summary.runId,
    statusText(summary, orphaned(summary)),
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
