// `fisk-ai session approve`: approve calls a parked session waits on.
import type { Options } from "../context/options.js";
import type { SessionContext } from "../context/session-context.js";

export const options = {
  all: { flag: "--all", help: "every approval that waits (the default without ids)" },
  resume: { flag: "--resume", help: "then resume the session" },
} as const satisfies Options;

export async function run(context: SessionContext<typeof options>): Promise<number> {
  return (await import("./handlers/decide.js")).decide("approve", context, context.values);
}
