// The calls a run waits on: those its journal parked for a person's decision and that no
// decision has reached yet. Read from the fold only, so the loop, the commands that decide
// and the listing of a whole store all see the same calls.
import type { RunState } from "../runstate/views/fold.js";
import type { ApprovalKind } from "../runstate/records/records.js";
import type { Store } from "../runstate/store/store.js";
import { countedDecision } from "../trust/counted-decisions.js";
import { installationKeys } from "../trust/installation-keys.js";
import type { Keyring } from "../trust/keyring.js";

/** A tool call parked for a decision: an approval (a `confirm` tool) or a question (`ask_user`). */
export interface WaitingCall {
  /** The session it belongs to. */
  runId: string;
  /** The call's id: what `approve`, `deny` and `answer` name. */
  toolUseId: string;
  /** The tool's name. */
  name: string;
  /** The input as the model sent it: exactly what runs once approved. */
  input: Record<string, unknown>;
  /** `approval` for a confirm tool, `question` for ask_user. */
  kind: ApprovalKind;
  /** When the run parked on it, RFC 3339. */
  requestedAt: string;
  /** Set for a call in a child session: the session ids from the top-level session down to `runId`, both included. */
  path?: string[];
}

/** The calls of a run's pending batch that wait for a decision that counts (verified with `keyring`), in the model's order. */
export function waitingCalls(state: RunState, keyring: Keyring): WaitingCall[] {
  const pending = state.pending;
  if (pending === undefined) return [];
  return pending.toolUses.flatMap((use) => {
    const parked = pending.approvals.get(use.id);
    if (parked === undefined || countedDecision(state, use.id, keyring) !== undefined) return [];
    const { name, input, kind, requested_at: requestedAt } = parked.request;
    return [{ runId: state.runId, toolUseId: use.id, name, input, kind, requestedAt }];
  });
}

/**
 * Every call waiting in the store, oldest request first. Only the sessions whose listed
 * status is `awaiting_approval` are read whole, so this costs what `list()` does plus
 * those journals.
 */
export async function listPending(store: Store, keyring: Keyring = installationKeys(store).trusted): Promise<WaitingCall[]> {
  const summaries = await store.list();
  const parentOf = new Map(summaries.flatMap((summary) => (summary.meta?.parent === undefined ? [] : [[summary.runId, summary.meta.parent.run_id] as const])));
  const parked = summaries.filter((summary) => summary.status === "awaiting_approval");
  const states = await Promise.all(parked.map((summary) => store.load(summary.runId)));
  return states
    .flatMap((state) => waitingCalls(state, keyring))
    .map((call) => (parentOf.has(call.runId) ? { ...call, path: pathFromRoot(call.runId, parentOf) } : call))
    .sort((a, b) => (a.requestedAt < b.requestedAt ? -1 : a.requestedAt > b.requestedAt ? 1 : 0));
}

/** The session ids from the top-level session down to `runId`; a parent no longer in the store ends the walk. */
function pathFromRoot(runId: string, parentOf: ReadonlyMap<string, string>): string[] {
  const path = [runId];
  // Bounded by the store's size: a hand-made loop of parents cannot spin forever.
  for (let parent = parentOf.get(runId); parent !== undefined && !path.includes(parent); parent = parentOf.get(parent)) path.unshift(parent);
  return path;
}
