// The ledger of a session with child sessions: its own calls, each child's (and theirs),
// and the total, which is the sum of the tree's sessions, each counted once. A fork of a
// parent copies the calls that started children: those children are shared, shown beside
// the fork and counted in the session whose calls started them, never twice.
import { decodeJournal } from "../runstate/records/journal-codec.js";
import { PROTOCOLS } from "../runstate/records/records.js";
import { digestOf, type RunDigest } from "../runstate/views/run-digest.js";
import type { RunStatus, RunSummary, Store } from "../runstate/store/store.js";
import { ledgerOf, type Ledger } from "./ledger.js";
import type { PriceTable } from "./prices.js";
import { parentIdOf, sessionsOf, treeOf, type SessionNode } from "./session-tree.js";

/** A run's digest: the store's, or (from a store that keeps none) read from its journal. */
export async function storedDigest(store: Store, summary: RunSummary): Promise<RunDigest> {
  if (summary.digest !== undefined) return summary.digest;
  const bytes = await store.readJournal(summary.runId);
  return digestOf(decodeJournal(Buffer.from(bytes)).records, bytes.byteLength);
}

/** One session below the one shown, and its own ledger. */
export interface ChildCost {
  /** The child session's id. */
  runId: string;
  /** 1 for a child of the session shown, 2 for its child, ... */
  depth: number;
  /** The child session's status, from its summary. */
  status: RunStatus;
  /** Its own calls' ledger. */
  ledger: Ledger;
}

/** What a session and the sessions below it cost. */
export interface TreeCost {
  /** Every session below it, each after its parent. */
  children: ChildCost[];
  /** The sessions below a forked session's origin whose calls the fork copied: counted there, not in `total`. */
  shared: ChildCost[];
  /** The session's own ledger and its children's, summed. */
  total: Ledger;
}

/**
 * The tree cost of `runId` from the store's summaries. `copiedResults`: for a fork, the
 * tool_use ids its copied records answer, whose children belong to the session it came from.
 */
export async function treeCostOf(
  summaries: readonly RunSummary[],
  runId: string,
  prices: PriceTable,
  digestFor: (summary: RunSummary) => Promise<RunDigest>,
  copied: { from: string; results: ReadonlySet<string> } | undefined,
): Promise<TreeCost> {
  const tree = treeOf(summaries, runId);
  const cost = (node: SessionNode, digest: RunDigest): ChildCost => ({
    runId: node.summary.runId,
    depth: node.depth,
    status: node.summary.status,
    ledger: ledgerOf([digest], prices),
  });
  // Each session's digest is got once: a store that keeps none reads the journal for it.
  const own = tree === undefined ? [] : sessionsOf(tree);
  const digests: RunDigest[] = [];
  for (const node of own) digests.push(await digestFor(node.summary));
  const origin = copied === undefined ? undefined : treeOf(summaries, copied.from);
  const sharedRoots = (origin?.children ?? []).filter((child) => copied?.results.has(child.summary.meta?.parent?.call_id ?? "") === true);
  const shared: ChildCost[] = [];
  for (const node of sharedRoots.flatMap(sessionsOf)) shared.push(cost(node, await digestFor(node.summary)));
  return {
    children: own.slice(1).map((node, index) => cost(node, digests[index + 1] as RunDigest)),
    shared,
    total: ledgerOf(digests, prices),
  };
}

/** Whether the store holds sessions below `runId`, or ones a fork of it shares: whether a tree cost says more than the session's own. */
export function hasTree(summaries: readonly RunSummary[], runId: string, originId: string | undefined): boolean {
  return summaries.some((summary) => {
    const parent = parentIdOf(summary);
    return parent !== undefined && (parent === runId || parent === originId);
  });
}

/**
 * What the session and its child sessions cost, or undefined when it has none (and, a fork,
 * shares none): a fork's children are those of the calls whose results it copied.
 */
export async function treeCostFor(store: Store, summary: RunSummary, digest: RunDigest, prices: PriceTable): Promise<TreeCost | undefined> {
  const summaries = await store.list();
  const origin = digest.origin;
  if (!hasTree(summaries, summary.runId, origin?.run_id)) return undefined;
  let copied: { from: string; results: Set<string> } | undefined;
  if (origin !== undefined) {
    copied = { from: origin.run_id, results: new Set() };
    for await (const record of store.readRecords(summary.runId)) {
      if (record.seq > origin.through_seq) break;
      if (record.protocol === PROTOCOLS.tool_result) copied.results.add(record.tool_result.tool_use_id);
    }
  }
  return treeCostOf(summaries, summary.runId, prices, (each) => storedDigest(store, each), copied);
}
