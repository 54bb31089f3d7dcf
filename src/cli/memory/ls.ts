// `fisk-ai memory ls`: every note, its key and description.
import { UsageError } from "../cli-errors.js";
import type { MemoryContext } from "../context/memory-context.js";
import { EXIT } from "../exit-codes.js";

export async function run({ positionals, io, notes }: MemoryContext): Promise<number> {
  if (positionals.length > 0) throw new UsageError("memory ls takes no arguments");
  const { describeNotes } = await import("../../memory/memory-tools.js");
  const listed = await notes.list();
  if (listed.length > 0) io.stdout.write(`${describeNotes(listed)}\n`);
  return EXIT.completed;
}
