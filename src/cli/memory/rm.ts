// `fisk-ai memory rm KEY`: delete a note.
import { oneKey, type MemoryContext } from "../context/memory-context.js";
import { EXIT } from "../exit-codes.js";

export async function run({ positionals, notes, notFound }: MemoryContext): Promise<number> {
  const key = oneKey(positionals, "rm");
  return (await notes.delete(key)) ? EXIT.completed : notFound(key);
}
