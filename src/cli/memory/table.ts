// `fisk-ai memory ...`: the table of its subcommands, each defined and handled by its own module.
import type { Command } from "commander";
import type { CommandContext } from "../context/command-context.js";
import type { MemoryContext } from "../context/memory-context.js";
import { defineSubcommands, type Group, type SubcommandEntry } from "../context/subcommands.js";

const MEMORY_EXIT_CODES = "Exit codes: 0 done, 1 error, 2 usage error or bad key, 6 no such note";

const SUBCOMMANDS: readonly SubcommandEntry<MemoryContext>[] = [
  { name: "ls", usage: "[options]", description: "every note: key and description", helpAfter: MEMORY_EXIT_CODES, load: () => import("./ls.js") },
  { name: "show", usage: "KEY [options]", description: "a note's content", helpAfter: MEMORY_EXIT_CODES, load: () => import("./show.js") },
  { name: "rm", usage: "KEY [options]", description: "delete a note", helpAfter: MEMORY_EXIT_CODES, load: () => import("./rm.js") },
];

const MEMORY_GROUP: Group<MemoryContext> = {
  options: {
    namespace: { flag: "--namespace <N>", help: "the notes' namespace" },
    config: { flag: "--config <FILE>", help: "the agent configuration whose memory.namespace and session store to use (default: ./agent.yaml)" },
    store: { flag: "--store <URL>", help: "the session store whose notes to read (postgres://...); a file store's notes are files" },
  },
  run: async (module, positionals, values, io) => (await import("../context/memory-context.js")).memoryCommand(module, positionals, values, io),
};

export async function define(memory: Command, context: CommandContext): Promise<void> {
  memory
    .description(
      `Notes live beside the sessions where their store keeps notes (a Postgres store: --store, else the config's session block), else in $XDG_STATE_HOME/fisk-ai/memory/NAMESPACE (or ~/.local/state/fisk-ai/memory/...). The namespace is --namespace, else the config's memory.namespace (--config, default ./agent.yaml, when memory is enabled there), else "default".`,
    )
    .addHelpText("after", `\n${MEMORY_EXIT_CODES}`);
  await defineSubcommands(memory, context, SUBCOMMANDS, MEMORY_GROUP);
}
