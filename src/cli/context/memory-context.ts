// What `memory ls|show|rm` are given: the note store of the namespace (--namespace, else the
// config's memory.namespace, else "default") where its runs keep notes, beside the sessions of
// the store --store or the config names when that store keeps notes (Postgres), else in files;
// and the one way a missing note is reported.
import type { OptionValues } from "commander";
import type { StoreConfig } from "../../backends/store-config.js";
import type { NoteStore } from "../../memory/note-store.js";
import { UsageError } from "../cli-errors.js";
import { EXIT } from "../exit-codes.js";
import type { Options } from "./options.js";
import { configPathFrom, storeFromFlags } from "./stores.js";
import type { SubcommandContext, SubcommandModule } from "./subcommands.js";

export interface MemoryContext<O extends Options = Options> extends SubcommandContext<O> {
  notes: NoteStore;
  namespace: string;
  /** Says there is no note `key` here; the exit code. */
  notFound(key: string): number;
}

export async function memoryCommand(
  module: SubcommandModule<MemoryContext>,
  positionals: string[],
  values: OptionValues,
  io: SubcommandContext["io"],
): Promise<number> {
  const [{ notesBesideSessions }, { keyProblem, NoteError }] = await Promise.all([
    import("../../backends/session-notes.js"),
    import("../../memory/note-store.js"),
  ]);
  const named = storeFromFlags({ store: values.store });
  const config = values.namespace === undefined || named === undefined ? await configOf(values.config) : undefined;
  const namespace: string = values.namespace ?? config?.memoryNamespace ?? "default";
  const problem = keyProblem(namespace);
  if (problem !== undefined) throw new UsageError(`--namespace: ${problem.replace("note key", "namespace")}`);
  const sessions: StoreConfig = named ?? config?.store ?? { backend: "file" };
  const notes = notesBesideSessions(sessions, namespace, io.env);
  const notFound = (key: string) => {
    io.stderr.write(`fisk-ai: no note ${key} in namespace ${namespace}; 'fisk-ai memory ls' lists them\n`);
    return EXIT.notFound;
  };
  try {
    return await module.run({ positionals, values, io, notes, namespace, notFound });
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
  const { loadAgentConfig } = await import("../../config/agent-config.js");
  return loadAgentConfig(path);
}

/** The one key `memory show` and `memory rm` take. */
export function oneKey(positionals: string[], command: "show" | "rm"): string {
  if (positionals.length !== 1) throw new UsageError(`memory ${command} takes one key; 'fisk-ai memory ls' lists them`);
  return positionals[0] as string;
}
