// `fisk-ai memory ls|show|rm`: the operator's view of the notes a model keeps, where its
// runs keep them: beside the sessions of the store --store or the config names, when that
// store keeps notes (Postgres), else in files.
import { notesBesideSessions } from "../backends/session-notes.js";
import type { StoreConfig } from "../backends/store-config.js";
import { describeNotes } from "../memory/memory-tools.js";
import { keyProblem, NoteError } from "../memory/note-store.js";
import { UsageError } from "./cli-errors.js";
import { EXIT } from "./exit-codes.js";
import type { CommandIO } from "./run-command.js";
import { configPathFrom, storeFromFlags } from "./session-store.js";

export type MemoryCommandName = "ls" | "show" | "rm";

/** The options the memory commands declare in program.ts. */
export interface MemoryFlags {
  namespace?: string;
  config?: string;
  store?: string;
}

export async function memoryCommand(command: MemoryCommandName, keys: string[], values: MemoryFlags, io: CommandIO): Promise<number> {
  const named = storeFromFlags({ store: values.store });
  const config = values.namespace === undefined || named === undefined ? await configOf(values.config) : undefined;
  const namespace = values.namespace ?? config?.memoryNamespace ?? "default";
  const problem = keyProblem(namespace);
  if (problem !== undefined) throw new UsageError(`--namespace: ${problem.replace("note key", "namespace")}`);
  const sessions: StoreConfig = named ?? config?.store ?? { backend: "file" };
  const store = notesBesideSessions(sessions, namespace, io.env);
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
async function configOf(flag: string | undefined): Promise<{ memoryNamespace: string | undefined; store: StoreConfig } | undefined> {
  const path = configPathFrom(flag);
  if (path === undefined) return undefined;
  const { loadAgentConfig } = await import("../config/agent-config.js");
  return loadAgentConfig(path);
}

function notFound(io: CommandIO, key: string, namespace: string): number {
  io.stderr.write(`fisk-ai: no note ${key} in namespace ${namespace}; 'fisk-ai memory ls' lists them\n`);
  return EXIT.notFound;
}
