// `fisk-ai session answer`: answer the ask_user question a parked session waits on.
import type { Options } from "../context/options.js";
import type { SessionContext } from "../context/session-context.js";

export const options = {
  call: { flag: "--call <TOOL_USE_ID>", help: "the question to answer, where more than one waits" },
  resume: { flag: "--resume", help: "then resume the session" },
} as const satisfies Options;

export async function run(context: SessionContext<typeof options>): Promise<number> {
  return (await import("./handlers/decide.js")).decide("answer", context, context.values);
}
