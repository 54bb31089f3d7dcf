// `fisk-ai session du`: the bytes each session takes.
import type { Command } from "commander";
import { EXIT } from "../exit-codes.js";
import { UsageError } from "../cli-errors.js";
import type { SessionContext } from "../context/session-context.js";

export function options(command: Command): void {
  command.option("--json", "the sizes as JSON");
}

export async function run({ positionals, values, io, sessionStore }: SessionContext): Promise<number> {
  if (positionals.length > 0) throw new UsageError("session du takes no arguments");
  const { sessionDiskUse } = await import("./handlers/du.js");
  await sessionDiskUse(await sessionStore(values), { json: values.json === true }, io.stdout);
  return EXIT.completed;
}
