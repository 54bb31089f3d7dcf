// `fisk-ai memory ls|show|rm`: the operator's view of the notes a model keeps.
import { parseArgs } from "node:util";
import { loadAgentConfig } from "../agent/config.js";
import { FileNoteStore, memoryDir } from "../memory/file-note-store.js";
import { describeNotes } from "../memory/memory-tools.js";
import { keyProblem, NoteError } from "../memory/note-store.js";
import { commandLineError, UsageError } from "./cli-errors.js";
import { EXIT } from "./exit-codes.js";
import type { CommandIO } from "./run-command.js";
import { configPathFrom } from "./session-store.js";

const MEMORY_HELP = `Usage: fisk-ai memory COMMAND [--namespace N] [--config FILE]

Commands:
  ls          every note: key and description
  show KEY    a note's content
  rm KEY      delete a note

Notes live in $XDG_STATE_HOME/fisk-ai/memory/NAMESPACE (or ~/.local/state/fisk-ai/memory/...).
The namespace is --namespace, else the config's memory.namespace (--config, default ./agent.yaml,
when memory is enabled there), else "default".

Exit codes: 0 done, 1 error, 2 usage error or bad key, 6 no such note
`;

export async function memoryCommand(argv: string[], io: CommandIO): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: { namespace: { type: "string" }, config: { type: "string" }, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw commandLineError(error, "fisk-ai memory");
  }
  const { values, positionals } = parsed;
  const [command, ...keys] = positionals;
  if (values.help === true || command === undefined || command === "help") {
    io.stdout.write(MEMORY_HELP);
    return EXIT.completed;
  }
  if (command !== "ls" && command !== "show" && command !== "rm") {
    throw new UsageError(`unknown memory command '${command}': see 'fisk-ai memory --help'`);
  }
  const namespace = values.namespace ?? namespaceFromConfig(values.config);
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

function namespaceFromConfig(flag: string | undefined): string {
  const path = configPathFrom(flag);
  return (path === undefined ? undefined : loadAgentConfig(path).memoryNamespace) ?? "default";
}

function notFound(io: CommandIO, key: string, namespace: string): number {
  io.stderr.write(`fisk-ai: no note ${key} in namespace ${namespace}; 'fisk-ai memory ls' lists them\n`);
  return EXIT.notFound;
}
