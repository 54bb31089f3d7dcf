// The stable JSON shapes of `session ls --json` and `session show --json`, documented in
// docs/cli-and-sessions.md. Field names here are a contract with scripts: add, never rename.
import type { ApprovalState, CompactionState, Counters, DecisionState, RunState } from "../../runstate/views/fold.js";
import type { CompactionPayload } from "../../runstate/records/records.js";
import type { RunSummary } from "../../runstate/store/store.js";
import { summaryJson } from "./summary-json.js";
import { countedDecision, uncountedDecisions } from "../../trust/counted-decisions.js";
import type { Keyring } from "../../trust/keyring.js";

/** What `show --json` says of a run's state: a whole fold, or a tally of it with the messages written after (show-json.ts). */
type ShownState = Pick<RunState, "counters" | "nextIteration" | "terminal" | "meta" | "messages"> & {
  compactions: readonly Pick<CompactionState, "seq" | "compaction" | "undoneAt">[];
  pending:
    | {
        seq: number;
        toolUses: readonly { id: string; name: string; input: unknown }[];
        answered: Iterable<string>;
        approvals: ReadonlyMap<string, Pick<ApprovalState, "request">>;
        decisions: ReadonlyMap<string, readonly Pick<DecisionState, "seq" | "decision">[]>;
      }
    | undefined;
};

/** A compaction as `show --json` and stream-json's `compaction` event give it. */
export function compactionJson(seq: number, compaction: CompactionPayload) {
  return {
    seq,
    from_seq: compaction.from_seq,
    through_seq: compaction.through_seq,
    trigger: compaction.trigger,
    model: compaction.model,
    summary: compaction.summary,
    tokens_before: compaction.tokens_before,
    tokens_after: compaction.tokens_after,
    in_tokens: compaction.in_tokens,
    out_tokens: compaction.out_tokens,
    trimmed: compaction.trimmed ?? [],
  };
}

/** `messages` comes last: show-json.ts writes them after the rest, as it reads them. */
export function stateJson(state: ShownState, summary: RunSummary, keyring: Keyring) {
  const batch = { runId: state.meta.run_id, pending: state.pending };
  return {
    ...summaryJson(summary),
    next_iteration: state.nextIteration,
    counters: countersJson(state.counters),
    pending:
      state.pending === undefined
        ? null
        : {
            seq: state.pending.seq,
            tool_uses: state.pending.toolUses.map(({ id, name, input }) => ({ id, name, input })),
            answered: [...state.pending.answered],
          },
    approvals: [...(state.pending?.approvals.values() ?? [])].map(({ request }) => {
      const decided = countedDecision(batch, request.tool_use_id, keyring);
      return {
        ...request,
        decision:
          decided === undefined
            ? null
            : { decision: decided.decision, text: decided.text ?? null, decided_by: decided.decided_by, decided_at: decided.decided_at },
      };
    }),
    // Journaled approvals and answers that do not count: their calls wait for a decision again.
    uncounted_decisions: uncountedDecisions(batch, keyring).map(({ seq, toolUseId, decision, reason }) => ({
      seq,
      tool_use_id: toolUseId,
      decision: decision.decision,
      decided_by: decision.decided_by,
      reason,
    })),
    terminal: state.terminal ?? null,
    fingerprint: state.meta.fingerprint,
    compactions: state.compactions.map(({ seq, compaction, undoneAt }) => ({
      ...compactionJson(seq, compaction),
      undone: undoneAt !== undefined,
      undone_at: undoneAt ?? null,
    })),
    messages: state.messages,
  };
}

/** A session's counters as its JSON names them: `session show --json` and stream-json's terminal event. */
export function countersJson(counters: Counters): Record<string, number> {
  return {
    model_calls: counters.modelCalls,
    tool_calls: counters.toolCalls,
    remote_tool_calls: counters.remoteToolCalls,
    in_tokens: counters.inTokens,
    out_tokens: counters.outTokens,
    cache_read_tokens: counters.cacheReadTokens,
    cache_create_tokens: counters.cacheCreateTokens,
    compaction_calls: counters.compactionCalls,
    compaction_in_tokens: counters.compactionInTokens,
    compaction_out_tokens: counters.compactionOutTokens,
  };
}
