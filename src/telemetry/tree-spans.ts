// A journaled tree of sessions as one trace: what `session trace` sends. A session's trace
// is that of the session at the top of its tree, found by following the parents the metas
// name; the spans sent are the session's and those of every session below it.
import { parentIdOf, sessionsOf, treeOf } from "../ledger/session-tree.js";
import { recordsOf } from "../runstate/store/records-of.js";
import type { RunSummary, Store } from "../runstate/store/store.js";
import { journalSpans } from "./journal-spans.js";
import type { SessionSpan } from "./session-spans.js";

/** The session at the top of `runId`'s tree: its parents followed as far as the summaries hold them. */
export function traceRootOf(summaries: readonly RunSummary[], runId: string): string {
  const byId = new Map(summaries.map((summary) => [summary.runId, summary]));
  const seen = new Set([runId]);
  let current = runId;
  for (;;) {
    const summary = byId.get(current);
    const parent = summary === undefined ? undefined : parentIdOf(summary);
    if (parent === undefined || seen.has(parent) || !byId.has(parent)) return current;
    seen.add(parent);
    current = parent;
  }
}

/** Every span of session `runId` and of the sessions below it, from their journals, and the session whose trace they are in. */
export async function treeSpans(store: Store, runId: string, captureContent: boolean): Promise<{ traceRunId: string; sessions: number; spans: SessionSpan[] }> {
  const summaries = await store.list();
  const node = treeOf(summaries, runId);
  const below = node === undefined ? [runId] : sessionsOf(node).map((session) => session.summary.runId);
  const spans: SessionSpan[] = [];
  for (const id of below) spans.push(...journalSpans(await recordsOf(store, id), captureContent));
  return { traceRunId: traceRootOf(summaries, runId), sessions: below.length, spans };
}
