// `fisk-ai session rm`: remove sessions.
import type { Command } from "commander";
import { ids, type SessionContext } from "../context/session-context.js";

export function options(command: Command): void {
  command.option("--force", "remove a child session even though its parent can still resume into it");
}

export async function run({ positionals, values, io, sessionStore }: SessionContext): Promise<number> {
  const store = await sessionStore(values);
  const { removeSessions } = await import("./handlers/maintenance.js");
  return removeSessions(store, ids(positionals, "rm"), io, { force: values.force === true });
}
