// `fisk-ai session approve`: approve calls a parked session waits on.
import type { Options } from "../context/options.js";
import { assertRunId } from "../../runstate/records/run-id.js";
import { UsageError } from "../cli-errors.js";
import type { SessionContext } from "../context/session-context.js";

export const options = {
  all: { flag: "--all", help: "every approval that waits (the default without ids)" },
  resume: { flag: "--resume", help: "then resume the session" },
} as const satisfies Options;

export async function run(context: SessionContext<typeof options>): Promise<number> {
  const [runId, ...toolUseIds] = context.positionals;
  if (runId === undefined) throw new UsageError("session approve needs a session id; 'fisk-ai session pending' lists the calls that wait");
  if (context.values.all === true && toolUseIds.length > 0) throw new UsageError("session approve: give TOOL_USE_IDs or --all, not both");
  const [{ approve }, { deciding, afterDecision }] = await Promise.all([import("../../session/decide-calls.js"), import("../context/decision.js")]);
  assertRunId(runId);
  const decision = await deciding(context, runId);
  return afterDecision(context, decision, await approve(decision.store, runId, toolUseIds, decision.options));
}
