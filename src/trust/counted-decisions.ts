// Which journaled decisions count. A denial always does (refusing is always safe); an
// approval or an answer counts only when its signature verifies with a key this
// installation trusts, over the call exactly as the batch holds it. One that does not is
// kept in the journal and shown with why, and its call waits for a decision again.
import type { ApprovalDecisionPayload } from "../runstate/records/records.js";
import type { Keyring } from "./keyring.js";
import { decisionSignatureProblem } from "./signatures.js";

/** A journaled decision that does not count, and why. */
export interface UncountedDecision {
  /** The call it would decide. */
  toolUseId: string;
  /** Its record's seq. */
  seq: number;
  /** The decision as journaled. */
  decision: ApprovalDecisionPayload;
  /** Why it does not count, one phrase. */
  reason: string;
}

/** A call of the pending batch as the checks need it. */
interface BatchCall {
  id: string;
  name: string;
  input: unknown;
}

/** What the checks need of a run: its id and its pending batch (a fold's, or a tally's). */
export interface DecidedBatch {
  runId: string;
  pending:
    | {
        toolUses: readonly BatchCall[];
        decisions: ReadonlyMap<string, readonly { seq: number; decision: ApprovalDecisionPayload }[]>;
      }
    | undefined;
}

/** The decision that counts for call `id`: the latest that does; undefined when none does. */
export function countedDecision(state: DecidedBatch, id: string, keyring: Keyring): ApprovalDecisionPayload | undefined {
  const use = state.pending?.toolUses.find((candidate) => candidate.id === id);
  const decisions = state.pending?.decisions.get(id) ?? [];
  for (let at = decisions.length - 1; at >= 0; at--) {
    const { decision } = decisions[at] as { decision: ApprovalDecisionPayload };
    if (use !== undefined && whyNotCounted(state.runId, use, decision, keyring) === undefined) return decision;
  }
  return undefined;
}

/** Every decision of the pending batch that does not count, in journal order. */
export function uncountedDecisions(state: DecidedBatch, keyring: Keyring): UncountedDecision[] {
  const pending = state.pending;
  if (pending === undefined) return [];
  return pending.toolUses.flatMap((use) =>
    (pending.decisions.get(use.id) ?? []).flatMap(({ seq, decision }) => {
      const reason = whyNotCounted(state.runId, use, decision, keyring);
      return reason === undefined ? [] : [{ toolUseId: use.id, seq, decision, reason }];
    }),
  );
}

function whyNotCounted(runId: string, use: BatchCall, decision: ApprovalDecisionPayload, keyring: Keyring): string | undefined {
  if (decision.decision === "deny") return undefined;
  return decisionSignatureProblem(keyring, { runId, name: use.name, input: use.input }, decision);
}
