// `fisk-ai session verify`: check every record of sessions.
import { ids, type SessionContext } from "../../session-command.js";

export async function run({ positionals, values, io, sessionStore }: SessionContext): Promise<number> {
  const store = await sessionStore(values);
  const { verifySessions } = await import("../../session-maintenance.js");
  return verifySessions(store, ids(positionals, "verify"), io);
}
