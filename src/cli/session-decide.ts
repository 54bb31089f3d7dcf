// `fisk-ai session approve|deny|answer|pending`: deciding parked calls and listing those
// that wait. The work is the library's (decide-calls.ts, waiting-calls.ts); this names
// what was decided and the command that goes on.
import { answer, approve, deny, type DecisionResult } from "../session/decide-calls.js";
import { listPending, type WaitingCall } from "../agent/waiting-calls.js";
import type { ApprovalDecisionPayload } from "../runstate/records/records.js";
import type { RunQueue } from "../queue/run-queue.js";
import type { Store } from "../runstate/store/store.js";
import { UsageError } from "./cli-errors.js";
import { commandLine, type ResumeWhere } from "./resume-hint.js";
import { ageText } from "./session-list.js";

/** What a decision command was given, its flags checked. */
export interface DecideRequest {
  command: "approve" | "deny" | "answer";
  runId: string;
  /** The calls named; empty: every one that waits. */
  toolUseIds: string[];
  /** The reason of a denial, or the answer. */
  text: string | undefined;
}

const DONE: Record<ApprovalDecisionPayload["decision"], string> = { approve: "approved", deny: "denied", answer: "answered" };

/** Journals the decision; `decisionsJournaled` is a test's hook between the decisions and the terminal record. */
export async function decideCalls(
  store: Store,
  request: DecideRequest,
  out: NodeJS.WritableStream,
  where: { queue: RunQueue | undefined; where: ResumeWhere; env: NodeJS.ProcessEnv; decisionsJournaled?: () => void; resuming: boolean },
): Promise<DecisionResult> {
  const { runId, toolUseIds, text } = request;
  const options = {
    ...(where.queue === undefined ? {} : { queue: where.queue }),
    onDecided: (decisions: readonly ApprovalDecisionPayload[]) => {
      for (const decision of decisions) out.write(`${DONE[decision.decision]} ${decision.tool_use_id} in session ${runId}\n`);
      where.decisionsJournaled?.();
    },
  };
  const result =
    request.command === "approve"
      ? await approve(store, runId, toolUseIds, options)
      : request.command === "deny"
        ? await deny(store, runId, text as string, toolUseIds, options)
        : await answer(store, runId, text as string, { ...options, ...(toolUseIds[0] === undefined ? {} : { toolUseId: toolUseIds[0] }) });
  if (result.waiting.length > 0) {
    out.write(
      `${result.waiting.length} more ${result.waiting.length === 1 ? "call waits" : "calls wait"}: ${result.waiting.map((call) => `${call.name} (${call.toolUseId})`).join(", ")}\n`,
    );
  } else if (result.queued === true) {
    out.write(`no call waits now; session ${runId} is queued for the worker pool again\n`);
  } else if (!where.resuming) {
    out.write(`no call waits now; resume with: ${commandLine(["run", "--resume", runId], where.where, where.env)}\n`);
  }
  return result;
}

/** Checks a decision command's words: the session, then the calls (or, for answer, the text). */
export function decideRequest(
  command: DecideRequest["command"],
  positionals: string[],
  flags: { all?: boolean; reason?: string; call?: string },
): DecideRequest {
  const [runId, ...rest] = positionals;
  if (runId === undefined) throw new UsageError(`session ${command} needs a session id; 'fisk-ai session pending' lists the calls that wait`);
  if (command === "answer") {
    if (rest.length !== 1 || rest[0]?.trim() === "")
      throw new UsageError('session answer takes the session id and the answer, as one argument: fisk-ai session answer ID "the answer"');
    return { command, runId, toolUseIds: flags.call === undefined ? [] : [flags.call], text: rest[0] };
  }
  if (flags.all === true && rest.length > 0) throw new UsageError(`session ${command}: give TOOL_USE_IDs or --all, not both`);
  if (command === "deny" && (flags.reason === undefined || flags.reason.trim() === "")) {
    throw new UsageError("session deny needs --reason TEXT: the model is told why its call was denied");
  }
  return { command, runId, toolUseIds: rest, text: flags.reason };
}

/** `session pending`: every call that waits in the store, oldest first. */
export async function showPending(store: Store, json: boolean, out: NodeJS.WritableStream, now = Date.now()): Promise<void> {
  const waiting = await listPending(store);
  if (json) {
    out.write(
      `${JSON.stringify(
        waiting.map((call) => pendingJson(call, now)),
        null,
        2,
      )}\n`,
    );
    return;
  }
  if (waiting.length === 0) {
    out.write("No calls wait for a decision.\n");
    return;
  }
  // A call in a child session shows the way down to it from its top-level session, which is the one to resume.
  const paths = waiting.some((call) => call.path !== undefined);
  const rows = waiting.map((call) => [
    call.runId,
    call.toolUseId,
    call.name,
    call.kind,
    ageText(now - Date.parse(call.requestedAt)),
    ...(paths ? [(call.path ?? [call.runId]).join(" > ")] : []),
    JSON.stringify(call.input),
  ]);
  const header = ["SESSION", "CALL", "TOOL", "KIND", "WAITING", ...(paths ? ["PATH"] : []), "INPUT"];
  const widths = header.slice(0, -1).map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] as string).length)));
  const lines = [header, ...rows].map((row) => row.map((cell, column) => (column < widths.length ? cell.padEnd(widths[column] as number) : cell)).join("  "));
  out.write(`${lines.join("\n")}\n`);
}

function pendingJson(call: WaitingCall, now: number) {
  return {
    session_id: call.runId,
    tool_use_id: call.toolUseId,
    name: call.name,
    input: call.input,
    kind: call.kind,
    requested_at: call.requestedAt,
    ...(call.path === undefined ? {} : { path: call.path }),
    waiting_seconds: Math.max(0, Math.floor((now - Date.parse(call.requestedAt)) / 1000)),
  };
}
