// Removing one session from a service: with its child sessions, as `session rm` does, but
// never a session the worker pool holds an entry for (the entry would outlive it), nor a
// child whose parent can still resume into it.
import { removeTree, resumingParent } from "../ledger/tree-removal.js";
import type { RunQueue } from "../queue/run-queue.js";
import { RunStateError } from "../runstate/errors.js";
import type { Store } from "../runstate/store/store.js";

/** Removes `runId` and the sessions below it; returns the children removed. ERR_LOCKED while it is queued, running, or a child its parent needs. */
export async function removeSession(store: Store, queue: RunQueue, runId: string): Promise<string[]> {
  if ((await queue.get(runId)) !== undefined)
    throw new RunStateError("ERR_LOCKED", `session ${runId} is queued for the worker pool: withdraw it (fisk-ai queue rm) or let it end first`, { runId });
  const summaries = await store.list();
  const summary = summaries.find((each) => each.runId === runId);
  if (summary === undefined) throw new RunStateError("ERR_NOT_FOUND", `no session ${runId}`, { runId });
  const parent = await resumingParent(store, summary);
  if (parent !== undefined)
    throw new RunStateError(
      "ERR_LOCKED",
      `session ${runId} is a child of session ${parent.runId}, whose call ${parent.callId} can still resume into it: remove ${parent.runId}`,
      { runId },
    );
  return removeTree(store, runId, summaries);
}
