// `fisk-ai session pending`: every call waiting for a decision.
import type { Command } from "commander";
import { EXIT } from "../exit-codes.js";
import { UsageError } from "../cli-errors.js";
import type { SessionContext } from "../context/session-context.js";

export function options(command: Command): void {
  command.option("--json", "one JSON array of the calls");
}

export async function run({ positionals, values, io, sessionStore }: SessionContext): Promise<number> {
  if (positionals.length > 0) throw new UsageError("session pending takes no arguments");
  const { showPending } = await import("./handlers/decide.js");
  await showPending(await sessionStore(values), values.json === true, io.stdout);
  return EXIT.completed;
}
