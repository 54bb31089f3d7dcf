// `fisk-ai session verify`: check every record of sessions.
import { ids, type SessionContext } from "../context/session-context.js";

export async function run({ positionals, values, io, sessionStore }: SessionContext): Promise<number> {
  const store = await sessionStore(values);
  const { verifySessions } = await import("./handlers/maintenance.js");
  return verifySessions(store, ids(positionals, "verify"), io);
}
