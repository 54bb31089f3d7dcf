// Sessions as trees: a child session (docs/sub-agents.md) names its parent in its meta, so
// the trees are read from the summaries a listing already holds, no journal opened. A
// child whose parent is not in the store (removed with --force, moved) is a root here.
// Pure: ls, show, rm, prune and the budget read the same trees from it.
import type { RunSummary } from "../runstate/store/store.js";

/** One session and the sessions its tool calls started, and theirs. */
export interface SessionNode {
  /** The session's summary. */
  summary: RunSummary;
  /** Its children in the order they were created. */
  children: SessionNode[];
  /** 0 for a root, 1 for its children, and so on. */
  depth: number;
}

/** The parent session a summary names, when it is a child session. */
export function parentIdOf(summary: RunSummary): string | undefined {
  return summary.meta?.parent?.run_id;
}

/** The sessions as trees: the roots in the order given, each child under its parent, oldest first. */
export function sessionForest(summaries: readonly RunSummary[]): SessionNode[] {
  const ids = new Set(summaries.map((summary) => summary.runId));
  const byParent = new Map<string, RunSummary[]>();
  const roots: RunSummary[] = [];
  for (const summary of summaries) {
    const parent = parentIdOf(summary);
    if (parent === undefined || !ids.has(parent) || parent === summary.runId) roots.push(summary);
    else {
      const siblings = byParent.get(parent);
      if (siblings === undefined) byParent.set(parent, [summary]);
      else siblings.push(summary);
    }
  }
  const seen = new Set<string>();
  const node = (summary: RunSummary, depth: number): SessionNode => {
    seen.add(summary.runId);
    const children = (byParent.get(summary.runId) ?? []).filter((child) => !seen.has(child.runId)).sort(olderFirst);
    return { summary, depth, children: children.map((child) => node(child, depth + 1)) };
  };
  const forest = roots.map((root) => node(root, 0));
  // Parent links that go round in a circle reach no root: each such session stands alone.
  for (const summary of summaries) if (!seen.has(summary.runId)) forest.push(node(summary, 0));
  return forest;
}

/** Every session of the tree, the root first and each child after its parent. */
export function sessionsOf(node: SessionNode): SessionNode[] {
  return [node, ...node.children.flatMap(sessionsOf)];
}

/** The tree `runId` is the root of (a child's own subtree), or undefined when no summary has that id. */
export function treeOf(summaries: readonly RunSummary[], runId: string): SessionNode | undefined {
  const find = (nodes: readonly SessionNode[]): SessionNode | undefined => {
    for (const node of nodes) {
      if (node.summary.runId === runId) return node;
      const below = find(node.children);
      if (below !== undefined) return below;
    }
    return undefined;
  };
  const found = find(sessionForest(summaries));
  return found === undefined ? undefined : rebased(found, 0);
}

/** The node with depths counted from `depth`. */
function rebased(node: SessionNode, depth: number): SessionNode {
  return { summary: node.summary, depth, children: node.children.map((child) => rebased(child, depth + 1)) };
}

function olderFirst(a: RunSummary, b: RunSummary): number {
  const [x, y] = [a.meta?.created ?? "", b.meta?.created ?? ""];
  return x < y ? -1 : x > y ? 1 : a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0;
}
