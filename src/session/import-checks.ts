// What an import can check of a child session it is handed (docs/security.md, Imports): a
// child names its parent and the call that started it, and its tokens count into its
// parent's cost and it is removed with it, so a forged child could charge a session
// anything. Its id must be the one that call gives its child, the parent must be in the
// store and hold the call, and its tokens must fit the budget it counted against.
import { isRunStateError } from "../runstate/errors.js";
import type { JournalRecord, MetaPayload } from "../runstate/records/records.js";
import { childRunId } from "../runstate/records/run-id.js";
import type { Store } from "../runstate/store/store.js";
import { TrustError } from "../trust/trust-error.js";

/**
 * Refuses (TrustError ERR_IMPORT_REFUSED) a child session whose parent link does not hold; a
 * top-level session passes. `used`: the tokens its records carry (recordTokens of each).
 */
export async function checkImportedChild(store: Store, runId: string, meta: MetaPayload, used: number, from: string): Promise<void> {
  const parent = meta.parent;
  if (parent === undefined) return;
  const refuse = (why: string) =>
    new TrustError("ERR_IMPORT_REFUSED", `${from}: session ${runId} is not a child of ${parent.run_id}: ${why}; nothing was imported`);
  if (childRunId(parent.run_id, parent.call_id) !== runId)
    throw refuse(`call ${parent.call_id} of it starts session ${childRunId(parent.run_id, parent.call_id)}`);
  let parentRecords: JournalRecord[] = [];
  try {
    for await (const record of store.readRecords(parent.run_id)) parentRecords.push(record);
  } catch (error) {
    if (isRunStateError(error, "ERR_NOT_FOUND")) throw refuse("that session is not in this store (import the parent first)");
    throw error;
  }
  const calls = parentRecords.flatMap((record) => (record.protocol.endsWith(".assistant") && "assistant" in record ? record.assistant.message.content : []));
  if (!calls.some((block) => block.type === "tool_use" && block.id === parent.call_id)) throw refuse(`it has no call ${parent.call_id}`);
  const parentMeta = parentRecords[0] !== undefined && "meta" in parentRecords[0] ? parentRecords[0].meta : undefined;
  parentRecords = [];
  const budget = parentMeta?.fingerprint.max_tokens;
  // A run stops once its tree's tokens reach the budget; the call that crosses it is allowed a
  // second budget's worth (its input is the conversation so far), and nothing past that.
  if (budget !== undefined && budget > 0 && used > 2 * budget) {
    throw refuse(`its records claim ${used} tokens, more than twice the parent's budget of ${budget} that they counted against`);
  }
}

/** The tokens a record carries: a model call's or a summarizing call's, every tier. */
export function recordTokens(record: JournalRecord): number {
  if ("assistant" in record) {
    const turn = record.assistant;
    return turn.in_tokens + turn.out_tokens + (turn.cache_read_tokens ?? 0) + (turn.cache_create_tokens ?? 0);
  }
  return "compaction" in record ? record.compaction.in_tokens + record.compaction.out_tokens : 0;
}
