// `fisk-ai session rm`: remove sessions.
import { ids, type SessionContext } from "../../session-command.js";

export async function run({ positionals, values, io, sessionStore }: SessionContext): Promise<number> {
  const store = await sessionStore(values);
  const { removeSessions } = await import("../../session-maintenance.js");
  return removeSessions(store, ids(positionals, "rm"), io);
}
