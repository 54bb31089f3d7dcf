// Deciding parked calls, from anywhere that reaches the store: approve, deny, answer. Each
// opens the session as a resume does (the file lock, or the JetStream lease), so deciders
// take turns; each folds the journal before it writes, so a call is decided exactly once,
// and the loser of a race is told so (DecisionRefusedError `already-decided`). The terminal
// record after the decisions keeps the listed status true: still awaiting approval while
// calls wait, else suspended, ready to resume.
import { setTimeout as sleep } from "node:timers/promises";
import { isRunStateError } from "../runstate/errors.js";
import type { RunState } from "../runstate/views/fold.js";
import { PROTOCOLS, type ApprovalDecisionPayload, type ApprovalKind, type Decision } from "../runstate/records/records.js";
import type { Store } from "../runstate/store/store.js";
import { DecisionRefusedError } from "../agent/agent-errors.js";
import { waitingMessage } from "../agent/approvals.js";
import { RunRecorder } from "../agent/run-recorder.js";
import { waitingCalls, type WaitingCall } from "../agent/waiting-calls.js";
import type { RunQueue } from "../queue/run-queue.js";
import { countedDecision } from "../trust/counted-decisions.js";
import { installationKeys, type InstallationKeys, type KeyOptions } from "../trust/installation-keys.js";
import { signDecision } from "../trust/signatures.js";
import { thisUser } from "./this-user.js";

/** What approve, deny and answer take besides the calls and the text; the keys an approval or an answer is signed with (installationKeys) besides. */
export interface DecideOptions extends KeyOptions {
  /** Who decides, journaled as `decided_by` (default: this process's user@host). */
  decidedBy?: string;
  /** How long to wait for one process that holds the session (a decider, a run) before failing ERR_LOCKED; default 5000 ms, again for each new holder. */
  lockWaitMs?: number;
  /** Called once the decisions are durable, before the terminal record that follows them. */
  onDecided?: (decisions: readonly ApprovalDecisionPayload[]) => void;
  /** The worker pool's queue (the backend's, openBackend): a run a worker parked is queued for the pool again once nothing waits. */
  queue?: RunQueue;
}

/** What a decision did. */
export interface DecisionResult {
  /** The session. */
  runId: string;
  /** The decisions journaled, one per call. */
  decided: ApprovalDecisionPayload[];
  /** The calls that still wait: while any does, a resume parks again. */
  waiting: WaitingCall[];
  /** The session was parked by a worker of the pool and is queued for it again: a worker goes on with it. */
  queued?: true;
}

/** Queues the continuation of a run the pool parked; false when it was not the pool's (or no queue was given). */
async function continueParked(queue: RunQueue | undefined, runId: string): Promise<boolean> {
  if (queue === undefined || (await queue.get(runId))?.state !== "parked") return false;
  await queue.unpark(runId);
  return true;
}

/** The message of the terminal record once no call waits. */
const DECIDED_MESSAGE = "every waiting call is decided: resume the session to go on";

/**
 * Approves waiting calls of a session (no ids: every approval that waits): a resume runs
 * them with exactly the input they were parked with.
 */
export function approve(store: Store, runId: string, toolUseIds: readonly string[] = [], options: DecideOptions = {}): Promise<DecisionResult> {
  return decide(store, runId, options, toolUseIds, (state, keys) =>
    chooseCalls(state, keys, toolUseIds, "approval", "approve").map((id) => ({ id, decision: "approve" })),
  );
}

/**
 * Denies waiting calls (no ids: every call that waits, questions included): a resume
 * answers each with an error carrying `reason`, and the call never runs.
 */
export function deny(store: Store, runId: string, reason: string, toolUseIds: readonly string[] = [], options: DecideOptions = {}): Promise<DecisionResult> {
  return decide(store, runId, options, toolUseIds, (state, keys) =>
    chooseCalls(state, keys, toolUseIds, undefined, "deny").map((id) => ({ id, decision: "deny", text: reason })),
  );
}

/**
 * Answers an ask_user question: the one that waits, or `toolUseId` where more than one
 * does. A resume gives the model `text` as the tool's result.
 */
export function answer(store: Store, runId: string, text: string, options: DecideOptions & { toolUseId?: string } = {}): Promise<DecisionResult> {
  const named = options.toolUseId === undefined ? [] : [options.toolUseId];
  return decide(store, runId, options, named, (state, keys) => {
    const ids = chooseCalls(state, keys, named, "question", "answer");
    if (ids.length > 1)
      throw new DecisionRefusedError("ambiguous", `session ${runId} has ${ids.length} questions waiting (${ids.join(", ")}): name the one to answer`, runId);
    return ids.map((id) => ({ id, decision: "answer", text }));
  });
}

type Choice = { id: string; decision: Decision; text?: string };

async function decide(
  store: Store,
  runId: string,
  options: DecideOptions,
  named: readonly string[],
  choose: (state: RunState, keys: InstallationKeys) => Choice[],
): Promise<DecisionResult> {
  const recorder = await openWithin(store, runId, options.lockWaitMs ?? 5000);
  try {
    // Read while the session is held: a decider before this one may have made the key it signed with.
    const keys = installationKeys(store, options);
    const state = recorder.state();
    const choices = await chosenOrDecidedBefore(store, runId, named, () => choose(state, keys));
    const decidedBy = options.decidedBy ?? thisUser();
    const decidedAt = new Date().toISOString();
    const decided: ApprovalDecisionPayload[] = [];
    // Signed before anything is journaled: a refusal to sign leaves the session as it was.
    const payloads = choices.map(({ id, decision, text }) => {
      const payload = { tool_use_id: id, decision, ...(text === undefined ? {} : { text }), decided_by: decidedBy, decided_at: decidedAt };
      const use = state.pending?.toolUses.find((candidate) => candidate.id === id);
      if (decision === "deny" || use === undefined) return payload;
      return { ...payload, signature: signDecision(keys.signing(), { runId, name: use.name, input: use.input }, payload) };
    });
    for (const payload of payloads) {
      await recorder.append({ protocol: PROTOCOLS.approval_decision, approval_decision: payload });
      decided.push(payload);
    }
    options.onDecided?.(decided);
    const waiting = waitingCalls(recorder.state(), keys.trusted);
    await recorder.append({
      protocol: PROTOCOLS.terminal,
      terminal: waiting.length > 0 ? { reason: "awaiting_approval", message: waitingMessage(waiting) } : { reason: "suspended", message: DECIDED_MESSAGE },
    });
    // A run the pool parked goes back to it: nobody has to resume it by hand.
    const queued = waiting.length === 0 && (await continueParked(options.queue, runId));
    return { runId, decided, waiting, ...(queued ? { queued } : {}) };
  } finally {
    await recorder.close();
  }
}

/**
 * The calls `choose` takes; when a call named is no longer waiting because it was decided
 * and the run went on past it, the refusal names who decided it, read from the journal.
 */
async function chosenOrDecidedBefore(store: Store, runId: string, named: readonly string[], choose: () => Choice[]): Promise<Choice[]> {
  try {
    return choose();
  } catch (error) {
    if (!(error instanceof DecisionRefusedError) || error.refusal !== "not-waiting") throw error;
    let earlier: ApprovalDecisionPayload | undefined;
    let id: string | undefined;
    for await (const record of store.readRecords(runId)) {
      if ("approval_decision" in record && named.includes(record.approval_decision.tool_use_id))
        [earlier, id] = [record.approval_decision, record.approval_decision.tool_use_id];
    }
    if (earlier === undefined) throw error;
    throw alreadyDecided(runId, id as string, earlier);
  }
}

function alreadyDecided(runId: string, id: string, earlier: ApprovalDecisionPayload): DecisionRefusedError {
  return new DecisionRefusedError(
    "already-decided",
    `call ${id} of session ${runId} is already decided: ${earlier.decision} by ${earlier.decided_by} at ${earlier.decided_at}`,
    runId,
  );
}

/**
 * The calls a decision of `kind` (undefined: either) takes: those named, each checked, or
 * with none named every one that waits. `verb` names the decision in a refusal.
 */
function chooseCalls(state: RunState, keys: InstallationKeys, ids: readonly string[], kind: ApprovalKind | undefined, verb: string): string[] {
  const { runId, pending } = state;
  const fits = (callKind: ApprovalKind) => kind === undefined || callKind === kind;
  const what = kind === "question" ? "question" : kind === "approval" ? "approval" : "call";
  if (ids.length === 0) {
    const waiting = waitingCalls(state, keys.trusted).filter((call) => fits(call.kind));
    if (waiting.length > 0) return waiting.map((call) => call.toolUseId);
    const decided = [...(pending?.approvals.values() ?? [])].some((parked) => fits(parked.request.kind));
    if (decided) throw new DecisionRefusedError("already-decided", `every ${what} that waited in session ${runId} is already decided`, runId);
    throw new DecisionRefusedError("not-waiting", `session ${runId} has no ${what} waiting for a decision`, runId);
  }
  for (const id of ids) {
    const earlier = countedDecision(state, id, keys.trusted);
    if (earlier !== undefined) throw alreadyDecided(runId, id, earlier);
    const parked = pending?.approvals.get(id)?.request;
    if (parked === undefined) throw new DecisionRefusedError("not-waiting", `session ${runId} has no call ${id} waiting for a decision`, runId);
    if (!fits(parked.kind)) {
      const instead = parked.kind === "question" ? "answer it (or deny it)" : "approve or deny it";
      throw new DecisionRefusedError(
        "wrong-kind",
        `call ${id} of session ${runId} is ${parked.kind === "question" ? "a question" : "an approval"}, which ${verb} does not decide: ${instead}`,
        runId,
      );
    }
  }
  return [...new Set(ids)];
}

/**
 * Opens the session for writing, waiting out one holder for at most `waitMs`: deciders take
 * turns, and while the holder keeps changing (deciders of one park, each holding it a
 * moment, on a machine slow enough that the turns add up past `waitMs`) the line is moving,
 * so the wait starts again. A holder that keeps it `waitMs` (a running resume) fails ERR_LOCKED.
 */
async function openWithin(store: Store, runId: string, waitMs: number): Promise<RunRecorder> {
  let holder: string | undefined;
  let deadline = Date.now() + waitMs;
  for (;;) {
    try {
      return await RunRecorder.open(store, runId);
    } catch (error) {
      if (!isRunStateError(error, "ERR_LOCKED")) throw error;
      const now = JSON.stringify(error.holder ?? null);
      if (error.holder !== undefined && now !== holder) [holder, deadline] = [now, Date.now() + waitMs];
      else if (Date.now() >= deadline) throw error;
      await sleep(20 + Math.random() * 40);
    }
  }
}
