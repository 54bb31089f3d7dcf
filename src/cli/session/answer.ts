// `fisk-ai session answer`: answer the ask_user question a parked session waits on.
import type { Options } from "../context/options.js";
import { assertRunId } from "../../runstate/records/run-id.js";
import { UsageError } from "../cli-errors.js";
import type { SessionContext } from "../context/session-context.js";

export const options = {
  call: { flag: "--call <TOOL_USE_ID>", help: "the question to answer, where more than one waits" },
  resume: { flag: "--resume", help: "then resume the session" },
} as const satisfies Options;

export async function run(context: SessionContext<typeof options>): Promise<number> {
  const [runId, ...rest] = context.positionals;
  if (runId === undefined) throw new UsageError("session answer needs a session id; 'fisk-ai session pending' lists the calls that wait");
  const text = rest[0];
  if (rest.length !== 1 || text === undefined || text.trim() === "")
    throw new UsageError('session answer takes the session id and the answer, as one argument: fisk-ai session answer ID "the answer"');
  const [{ answer }, { deciding, afterDecision }] = await Promise.all([import("../../session/decide-calls.js"), import("../context/decision.js")]);
  assertRunId(runId);
  const decision = await deciding(context, runId);
  const call = context.values.call;
  return afterDecision(
    context,
    decision,
    await answer(decision.store, runId, text, { ...decision.options, ...(call === undefined ? {} : { toolUseId: call }) }),
  );
}
