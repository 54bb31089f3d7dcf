// A parent's max_tokens bounds its whole tree (docs/sub-agents.md): a child's tokens count
// against its own budget and against each session above it. What a session's children spent,
// read from the store, so that it holds across resumes and processes; the agent loop's
// TreeTally (src/agent/tree-tally.ts) starts from it.
import type { Store } from "../runstate/store/store.js";
import { tokensOf } from "./ledger.js";
import { sessionsOf, treeOf } from "./session-tree.js";
import { storedDigest } from "./tree-ledger.js";

/**
 * The tokens every session below `runId` spent (all four tiers and their compactions'
 * summarizing calls, as the budget counts a run's own): added to the session's own tokens,
 * what its max_tokens is checked against.
 */
export async function childTokens(store: Store, runId: string): Promise<number> {
  const summaries = await store.list();
  let spent = 0;
  for (const node of (treeOf(summaries, runId)?.children ?? []).flatMap(sessionsOf)) {
    const digest = await storedDigest(store, node.summary);
    for (const usage of [...Object.values(digest.calls), ...Object.values(digest.compactions)]) spent += tokensOf(usage);
  }
  return spent;
}
