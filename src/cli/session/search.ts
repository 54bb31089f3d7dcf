// `fisk-ai session search`: the sessions that hold a text.
import type { Command } from "commander";
import { EXIT } from "../exit-codes.js";
import { UsageError } from "../cli-errors.js";
import type { SessionContext } from "../context/session-context.js";

export function options(command: Command): void {
  command.option("--json", "the matches as JSON");
}

export async function run({ positionals, values, io, sessionStore }: SessionContext): Promise<number> {
  if (positionals.length !== 1) throw new UsageError('session search takes the text to find, as one argument (quote it): fisk-ai session search "TEXT"');
  const { searchSessions } = await import("./handlers/search.js");
  await searchSessions(await sessionStore(values), positionals[0] as string, { json: values.json === true }, io.stdout);
  return EXIT.completed;
}
