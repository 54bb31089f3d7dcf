// `fisk-ai memory ls|show|rm`: the operator's view of the notes a model keeps.
import { FileNoteStore, memoryDir } from "../../memory/file-note-store.js";
import { describeNotes } from "../../memory/memory-tools.js";
import { keyProblem, NoteError } from "../../memory/note-store.js";
import { UsageError } from "../cli-errors.js";
import { EXIT } from "../exit-codes.js";
import type { CommandIO } from "../context/command-io.js";
import { configPathFrom } from "../context/stores.js";

export type MemoryCommandName = "ls" | "show" | "rm";

/** The options the memory commands declare in program.ts. */
export interface MemoryFlags {
  namespace?: string;
  config?: string;
}

export async function memoryCommand(command: MemoryCommandName, keys: string[], values: MemoryFlags, io: CommandIO): Promise<number> {
  const namespace = values.namespace ?? (await namespaceFromConfig(values.config));
  const problem = keyProblem(namespace);
  if (problem !== undefined) throw new UsageError(`--namespace: ${problem.replace("note key", "namespace")}`);
  const store = new FileNoteStore(memoryDir(namespace, io.env));
  if (command === "ls") {
    if (keys.length > 0) throw new UsageError("memory ls takes no arguments");
    const notes = await store.list();
    if (notes.length > 0) io.stdout.write(`${describeNotes(notes)}\n`);
    return EXIT.completed;
  }
  if (keys.length !== 1) throw new UsageError(`memory ${command} takes one key; 'fisk-ai memory ls' lists them`);
  const key = keys[0] as string;
  try {
    if (command === "show") {
      const note = await store.read(key);
      if (note === undefined) return notFound(io, key, namespace);
      io.stdout.write(note.content);
      return EXIT.completed;
    }
    if (!(await store.delete(key))) return notFound(io, key, namespace);
    return EXIT.completed;
  } catch (error) {
    if (!(error instanceof NoteError)) throw error;
    io.stderr.write(`fisk-ai: ${error.message}\n`);
    return error.code === "ERR_INVALID_KEY" ? EXIT.usage : EXIT.error;
  }
}

/** Loads the config (and its YAML and schema packages) only when there is one to read. */
async function namespaceFromConfig(flag: string | undefined): Promise<string> {
  const path = configPathFrom(flag);
  if (path === undefined) return "default";
  const { loadAgentConfig } = await import("../../config/agent-config.js");
  return loadAgentConfig(path).memoryNamespace ?? "default";
}

function notFound(io: CommandIO, key: string, namespace: string): number {
  io.stderr.write(`fisk-ai: no note ${key} in namespace ${namespace}; 'fisk-ai memory ls' lists them\n`);
  return EXIT.notFound;
}
