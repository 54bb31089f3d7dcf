// `fisk-ai session deny`: deny calls a parked session waits on.
import type { Options } from "../context/options.js";
import { assertRunId } from "../../runstate/records/run-id.js";
import { UsageError } from "../cli-errors.js";
import type { SessionContext } from "../context/session-context.js";

export const options = {
  reason: { flag: "--reason <TEXT>", help: "why: the model reads it as the call's error" },
  all: { flag: "--all", help: "every call that waits (the default without ids)" },
  resume: { flag: "--resume", help: "then resume the session" },
} as const satisfies Options;

export async function run(context: SessionContext<typeof options>): Promise<number> {
  const [runId, ...toolUseIds] = context.positionals;
  const { reason, all } = context.values;
  if (runId === undefined) throw new UsageError("session deny needs a session id; 'fisk-ai session pending' lists the calls that wait");
  if (all === true && toolUseIds.length > 0) throw new UsageError("session deny: give TOOL_USE_IDs or --all, not both");
  if (reason === undefined || reason.trim() === "") throw new UsageError("session deny needs --reason TEXT: the model is told why its call was denied");
  const [{ deny }, { deciding, afterDecision }] = await Promise.all([import("../../session/decide-calls.js"), import("../context/decision.js")]);
  assertRunId(runId);
  const decision = await deciding(context, runId);
  return afterDecision(context, decision, await deny(decision.store, runId, reason, toolUseIds, decision.options));
}
