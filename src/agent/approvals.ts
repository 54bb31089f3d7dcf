// What the loop does with a call that needs a person: a `confirm` tool's call, or an
// ask_user question. Where someone can be asked on the spot (a terminal, the library's
// callbacks) they are, and their decision is journaled before the call runs, so a crash
// after "yes" never asks again. Where no one can, a checkpointed run parks: each such call
// of the batch is journaled as an approval_request, the others finish, and the run stops
// awaiting approval until `approve`, `deny` or `answer` journal a decision. A run that is
// not checkpointed cannot wait, so there such a call is denied.
import type { PendingBatch } from "../runstate/views/fold.js";
import { PROTOCOLS, type ApprovalDecisionPayload, type ApprovalKind, type ToolResultBlock, type ToolUseBlock } from "../runstate/records/records.js";
import { questionOf } from "../tools/ask-user.js";
import { toolResultBlock } from "../tools/tool.js";
import type { ConfirmToolCall, ToolSet } from "../tools/tool-set.js";
import type { AgentEvents } from "./events.js";
import type { RunRecorder } from "./run-recorder.js";
import type { WaitingCall } from "./waiting-calls.js";
import { countedDecision } from "../trust/counted-decisions.js";
import type { InstallationKeys } from "../trust/installation-keys.js";
import { signDecision } from "../trust/signatures.js";

/** Answers an ask_user question on the spot (on a terminal); resolves to the answer. */
export type AskUser = (question: string) => Promise<string>;

/** Who can decide a call while the run goes on; each absent one means "no one here", and the run parks. */
export interface Deciders {
  /** Asked whether a `confirm: true` tool's call may run. */
  confirm?: ConfirmToolCall | undefined;
  /** Asked an ask_user question. */
  askUser?: AskUser | undefined;
  /** Who they speak for, journaled as the decision's `decided_by` (default `callback`; the CLI's terminal says `terminal`). */
  decidedBy?: string | undefined;
}

/** What deciding the calls of one batch works with. */
export interface BatchApprovals {
  recorder: RunRecorder;
  tools: ToolSet;
  events: AgentEvents;
  deciders: Deciders;
  /** What decisions are verified and signed with. */
  keys: InstallationKeys;
  /** Every call of the batch needs a decision, as a `confirm` tool's does: a foreign session's batch, taken up here. */
  decideEvery?: boolean;
  /** A request undecided this long is denied ("timed out") when a resume finds it. */
  timeoutMs: number | undefined;
  /** Journals a call's result, as the loop does for a call it ran. */
  journalResult(use: ToolUseBlock, result: ToolResultBlock): Promise<void>;
}

/**
 * Before a batch's calls run: journals a denial for each request undecided longer than the
 * timeout, and a request for each call that needs a person no one here can be asked about
 * (a checkpointed run only). The ids of the calls that wait, which must not run.
 */
export async function parkCalls(batch: BatchApprovals, uses: readonly ToolUseBlock[]): Promise<ReadonlySet<string>> {
  const waiting = new Set<string>();
  const now = Date.now();
  for (const use of uses) {
    const pending = batchOf(batch);
    const request = pending.approvals.get(use.id)?.request;
    const kind = request?.kind ?? kindOf(batch, use);
    if (kind === undefined || counted(batch, use.id) !== undefined || askerFor(batch.deciders, kind) !== undefined) continue;
    if (request !== undefined) {
      if (batch.timeoutMs !== undefined && now - Date.parse(request.requested_at) >= batch.timeoutMs) {
        await journalDecision(batch, {
          tool_use_id: use.id,
          decision: "deny",
          text: "timed out",
          decided_by: "timeout",
          decided_at: new Date(now).toISOString(),
        });
      } else {
        waiting.add(use.id);
      }
    } else if (batch.recorder.checkpointed) {
      const parked = { tool_use_id: use.id, name: use.name, input: use.input, kind, requested_at: new Date(now).toISOString() };
      await batch.recorder.append({ protocol: PROTOCOLS.approval_request, approval_request: parked });
      batch.events.approvalRequested?.(parked);
      waiting.add(use.id);
    }
  }
  return waiting;
}

/**
 * Whether a call that does not wait runs now: true for one approved or needing no one;
 * otherwise it is answered here (denied, or its question answered) and never runs. A call
 * that needs a person is asked about first, the decision journaled before anything else.
 */
export async function decideCall(batch: BatchApprovals, use: ToolUseBlock): Promise<boolean> {
  const pending = batchOf(batch);
  let decision = counted(batch, use.id);
  if (decision === undefined) {
    const kind = pending.approvals.get(use.id)?.request.kind ?? kindOf(batch, use);
    if (kind === undefined) return true;
    const asked = await ask(batch, use, kind);
    if (asked === undefined) {
      batch.events.callRefused?.(use);
      await batch.journalResult(use, unaskedResult(use, kind));
      return false;
    }
    const made = { tool_use_id: use.id, ...asked, decided_by: batch.deciders.decidedBy ?? "callback", decided_at: new Date().toISOString() };
    decision =
      made.decision === "deny"
        ? made
        : { ...made, signature: signDecision(batch.keys.signing(), { runId: batch.recorder.runId, name: use.name, input: use.input }, made) };
    await journalDecision(batch, decision);
  }
  if (decision.decision === "approve") return true;
  if (decision.decision === "deny") batch.events.callRefused?.(use);
  await batch.journalResult(
    use,
    decision.decision === "answer"
      ? toolResultBlock(use.id, { content: decision.text ?? "" })
      : toolResultBlock(use.id, { content: `the operator denied this call of ${use.name}: ${decision.text ?? "no reason given"}`, is_error: true }),
  );
  return false;
}

/**
 * A call of the batch that cannot have been running when the run stopped: one parked and
 * not approved, or one denied or answered. A resume never counts it as cut short. Any
 * approval journaled counts here, verified or not: the call may have run on it.
 */
export function cannotHaveRun(pending: PendingBatch, id: string): boolean {
  const decisions = pending.decisions.get(id) ?? [];
  const approved = decisions.some(({ decision }) => decision.decision === "approve");
  const refused = decisions.some(({ decision }) => decision.decision !== "approve");
  return (refused && !approved) || (pending.approvals.has(id) && !approved);
}

/** The terminal message of a run that waits. */
export function waitingMessage(waiting: readonly WaitingCall[]): string {
  const calls = waiting.map((call) => `${call.name} (${call.toolUseId})`).join(", ");
  return `${waiting.length === 1 ? "1 call waits" : `${waiting.length} calls wait`} for a decision: ${calls}`;
}

function kindOf(batch: BatchApprovals, use: ToolUseBlock): ApprovalKind | undefined {
  return batch.tools.decisionKind(use) ?? (batch.decideEvery === true ? "approval" : undefined);
}

function counted(batch: BatchApprovals, id: string): ApprovalDecisionPayload | undefined {
  return countedDecision(batch.recorder.state(), id, batch.keys.trusted);
}

function batchOf(batch: BatchApprovals): PendingBatch {
  const pending = batch.recorder.state().pending;
  // The batch's assistant turn is journaled before any of its calls is decided.
  if (pending === undefined) throw new Error("a tool call was decided outside a pending batch");
  return pending;
}

function askerFor(deciders: Deciders, kind: ApprovalKind): unknown {
  return kind === "approval" ? deciders.confirm : deciders.askUser;
}

/** The decision of whoever can be asked here, or undefined when no one can. A failed ask is a no. */
async function ask(batch: BatchApprovals, use: ToolUseBlock, kind: ApprovalKind): Promise<Pick<ApprovalDecisionPayload, "decision" | "text"> | undefined> {
  const { confirm, askUser } = batch.deciders;
  if (kind === "question") {
    if (askUser === undefined) return undefined;
    const answer = await askUser(questionOf(use.input)).catch(() => undefined);
    return answer === undefined ? { decision: "deny", text: "the question could not be asked" } : { decision: "answer", text: answer };
  }
  if (confirm === undefined) return undefined;
  const tool = batch.tools.named(use.name);
  // A call parked before its tool left the configuration (a forced resume) is not asked about.
  if (tool === undefined) return { decision: "deny", text: `its tool ${use.name} is no longer configured` };
  const allowed = await confirm(tool, use.input).catch(() => false);
  return allowed ? { decision: "approve" } : { decision: "deny", text: "the operator said no" };
}

async function journalDecision(batch: BatchApprovals, decision: ApprovalDecisionPayload): Promise<void> {
  await batch.recorder.append({ protocol: PROTOCOLS.approval_decision, approval_decision: decision });
  batch.events.approvalDecided?.(decision);
}

/**
 * The answer to a call no one could decide, in a run that cannot wait for a decision. It
 * begins "denied", as a person's denial does, so the model and a script's `when: denied` take it as one.
 */
function unaskedResult(use: ToolUseBlock, kind: ApprovalKind): ToolResultBlock {
  const what = kind === "question" ? `no one could answer this ${use.name} question` : `no one could be asked to allow this call of ${use.name}`;
  return toolResultBlock(use.id, {
    content: `denied: ${what} (no terminal or callback), and a run that is not checkpointed cannot wait for a decision`,
    is_error: true,
  });
}
