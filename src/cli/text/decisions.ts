// How decisions read: each one journaled, and what waits after them.
import type { ApprovalDecisionPayload } from "../../runstate/records/records.js";
import type { DecisionResult } from "../../session/decide-calls.js";

const DONE: Record<ApprovalDecisionPayload["decision"], string> = { approve: "approved", deny: "denied", answer: "answered" };

export function decidedLine(decision: ApprovalDecisionPayload, runId: string): string {
  return `${DONE[decision.decision]} ${decision.tool_use_id} in session ${runId}`;
}

/** The calls that still wait, else how the session goes on: queued for the pool, or `resumeHint` (none when it resumes here). */
export function stillWaitingLine(result: DecisionResult, resumeHint: string | undefined): string | undefined {
  const { waiting } = result;
  if (waiting.length > 0)
    return `${waiting.length} more ${waiting.length === 1 ? "call waits" : "calls wait"}: ${waiting.map((call) => `${call.name} (${call.toolUseId})`).join(", ")}`;
  if (result.queued === true) return `no call waits now; session ${result.runId} is queued for the worker pool again`;
  return resumeHint === undefined ? undefined : `no call waits now; resume with: ${resumeHint}`;
}
