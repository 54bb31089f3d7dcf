// Removing a session removes the child sessions its calls started, and theirs: a child
// without its parent is work no one can go on with. A child alone is kept while its parent
// can still resume into it (the parent's call that started it is unanswered), since that
// resume would find it gone and start the child over.
import type { RunSummary, Store } from "../runstate/store/store.js";
import { sessionsOf, treeOf } from "./session-tree.js";

/** The parent that can still resume into `child`, and its call; undefined when none can. */
export async function resumingParent(store: Store, child: RunSummary): Promise<{ runId: string; callId: string } | undefined> {
  const parent = child.meta?.parent;
  if (parent === undefined) return undefined;
  let pending;
  try {
    pending = (await store.load(parent.run_id)).pending;
  } catch {
    // A parent gone, or one that cannot be read, resumes into nothing.
    return undefined;
  }
  const waits = pending !== undefined && pending.toolUses.some((use) => use.id === parent.call_id) && !pending.answered.has(parent.call_id);
  return waits ? { runId: parent.run_id, callId: parent.call_id } : undefined;
}

/**
 * Removes `runId` and every session below it, the session itself first: refused (locked,
 * say) it leaves its children as they were, and once it is gone nothing resumes into them.
 * Returns the child sessions removed.
 */
export async function removeTree(store: Store, runId: string, summaries: readonly RunSummary[]): Promise<string[]> {
  const below = (treeOf(summaries, runId) ?? { summary: undefined, children: [] }).children.flatMap(sessionsOf).map((node) => node.summary.runId);
  await store.delete(runId);
  for (const child of below) await store.delete(child);
  return below;
}
