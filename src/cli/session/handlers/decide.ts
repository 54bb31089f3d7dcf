// `fisk-ai session approve|deny|answer`: deciding parked calls. The work is the library's (decide-calls.ts, waiting-calls.ts); this names
// what was decided, sends the spans of the waits it ends when tracing is on, and resumes
// when asked to.
import { answer, approve, deny, type DecisionResult } from "../../../session/decide-calls.js";
import type { ApprovalDecisionPayload } from "../../../runstate/records/records.js";
import type { RunQueue } from "../../../queue/run-queue.js";
import type { Store } from "../../../runstate/store/store.js";
import { assertRunId } from "../../../runstate/records/run-id.js";
import { UsageError } from "../../cli-errors.js";
import { EXIT } from "../../exit-codes.js";
import { storeWhere, tracingEnvironment, type SessionContext } from "../../context/session-context.js";
import { commandLine, type ResumeWhere } from "../../context/resume-hint.js";
import { keyCreatedLine } from "../../text/signing-key.js";

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

/** Checks the words, journals the decisions and, with --resume, runs the session on. */
export async function decide(
  command: DecideRequest["command"],
  { positionals, values, io, sessionBackend }: SessionContext<{ resume: { flag: "--resume"; help: string } }>,
  flags: { all?: boolean; reason?: string; call?: string },
): Promise<number> {
  const request = decideRequest(command, positionals, flags);
  assertRunId(request.runId);
  // Read before deciding: a telemetry block that cannot be used refuses the command before it decides anything.
  const tracingEnv = await tracingEnvironment(values, io.env);
  const { store, queue } = await sessionBackend(values);
  const { decided } = await decideCalls(store, request, io.stdout, {
    queue,
    where: storeWhere(values),
    env: io.env,
    decisionsJournaled: io.decisionsJournaled,
    resuming: values.resume === true,
    stderr: io.stderr,
  });
  if (tracingEnv !== undefined) {
    const { sendDecisionSpans } = await import("../../../telemetry/traced-run.js");
    const ids = decided.map((decision) => decision.tool_use_id);
    const notSent = await sendDecisionSpans(store, request.runId, ids, tracingEnv);
    if (notSent !== undefined)
      io.stderr.write(`fisk-ai: the decision's traces were not sent: ${notSent}; 'fisk-ai session trace ID' sends a session's spans again\n`);
  }
  if (values.resume !== true) return EXIT.completed;
  const { runCommand } = await import("../../run/run-command.js");
  return runCommand([], { resume: request.runId, config: values.config, stateDir: values.stateDir, store: values.store }, io);
}

/** Journals the decision; `decisionsJournaled` is a test's hook between the decisions and the terminal record. */
export async function decideCalls(
  store: Store,
  request: DecideRequest,
  out: NodeJS.WritableStream,
  where: {
    queue: RunQueue | undefined;
    where: ResumeWhere;
    env: NodeJS.ProcessEnv;
    decisionsJournaled?: () => void;
    resuming: boolean;
    stderr?: NodeJS.WritableStream;
  },
): Promise<DecisionResult> {
  const { runId, toolUseIds, text } = request;
  const options = {
    ...(where.queue === undefined ? {} : { queue: where.queue }),
    env: where.env,
    onKeyCreated: (path: string) => (where.stderr ?? out).write(`${keyCreatedLine(path)}\n`),
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
