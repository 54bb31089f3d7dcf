// What `session approve`, `deny` and `answer` share: journal the decisions, send the spans
// of the waits they end when tracing is on, then resume when asked to.
import { assertRunId } from "../../../runstate/records/run-id.js";
import { EXIT } from "../../exit-codes.js";
import { traceAgain } from "../../resume-hint.js";
import { storeWhere, tracingEnvironment, type SessionContext } from "../../session-command.js";

export async function decide(command: "approve" | "deny" | "answer", { positionals, values, io, sessionBackend }: SessionContext): Promise<number> {
  const { decideRequest, decideCalls } = await import("../../session-decide.js");
  const request = decideRequest(command, positionals, values);
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
      io.stderr.write(`fisk-ai: the decision's traces were not sent: ${notSent}; ${traceAgain(request.runId, storeWhere(values), io.env)}\n`);
  }
  if (values.resume !== true) return EXIT.completed;
  const { runCommand } = await import("../../run-command.js");
  return runCommand([], { resume: request.runId, config: values.config, stateDir: values.stateDir, store: values.store }, io);
}
