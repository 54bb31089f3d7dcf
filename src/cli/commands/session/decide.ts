// What `session approve`, `deny` and `answer` share: journal the decisions, then resume
// when asked to.
import { assertRunId } from "../../../runstate/records/run-id.js";
import { EXIT } from "../../exit-codes.js";
import { storeWhere, type SessionContext } from "../../session-command.js";

export async function decide(command: "approve" | "deny" | "answer", { positionals, values, io, sessionStore }: SessionContext): Promise<number> {
  const { decideRequest, decideCalls } = await import("../../session-decide.js");
  const request = decideRequest(command, positionals, values);
  assertRunId(request.runId);
  await decideCalls(await sessionStore(values), request, io.stdout, {
    where: storeWhere(values),
    env: io.env,
    decisionsJournaled: io.decisionsJournaled,
    resuming: values.resume === true,
  });
  if (values.resume !== true) return EXIT.completed;
  const { runCommand } = await import("../../run-command.js");
  return runCommand([], { resume: request.runId, config: values.config, stateDir: values.stateDir, store: values.store }, io);
}
