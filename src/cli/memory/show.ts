// `fisk-ai memory show KEY`: a note's content.
import { oneKey, type MemoryContext } from "../context/memory-context.js";
import { EXIT } from "../exit-codes.js";

export async function run({ positionals, io, notes, notFound }: MemoryContext): Promise<number> {
  const key = oneKey(positionals, "show");
  const note = await notes.read(key);
  if (note === undefined) return notFound(key);
  io.stdout.write(note.content);
  return EXIT.completed;
}
