// `fisk-ai session verify`: check every record of sessions.
import { EXIT } from "../exit-codes.js";
import { forEachId, ids, type SessionContext } from "../context/session-context.js";

export async function run({ positionals, values, io, sessionStore }: SessionContext): Promise<number> {
  const store = await sessionStore(values);
  const { verifySession } = await import("../../session/verify-session.js");
  return forEachId(ids(positionals, "verify"), io, async (runId) => {
    const { records, problems, foreign, uncounted } = await verifySession(store, runId, { env: io.env });
    for (const problem of problems) io.stdout.write(`${runId}: ${problem.kind}: ${problem.message}${problem.repairable ? " (repairable)" : ""}\n`);
    if (problems.length > 0) return EXIT.corrupt;
    io.stdout.write(`${runId}: ok, ${records} records\n`);
    // Sound, and still not everything in it counts here: said apart, as it is no corruption.
    if (foreign !== undefined) io.stdout.write(`${runId}: foreign: ${foreign}\n`);
    for (const { seq, toolUseId, decision, reason } of uncounted)
      io.stdout.write(`${runId}: not counted: seq ${seq}: ${decision.decision} of call ${toolUseId} by ${decision.decided_by} does not count: ${reason}\n`);
    return EXIT.completed;
  });
}
