// `fisk-ai session rm`: remove sessions.
import type { Options } from "../context/options.js";
import { ids, type SessionContext } from "../context/session-context.js";

export const options = {
  force: { flag: "--force", help: "remove a child session even though its parent can still resume into it" },
} as const satisfies Options;

export async function run({ positionals, values, io, sessionStore }: SessionContext<typeof options>): Promise<number> {
  const store = await sessionStore(values);
  const { removeSessions } = await import("./handlers/maintenance.js");
  return removeSessions(store, ids(positionals, "rm"), io, { force: values.force === true });
}
