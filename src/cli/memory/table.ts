// `fisk-ai memory ls|show|rm`: their options; the handler is memory-command.ts.
import type { Command } from "commander";
import type { CommandContext } from "../context/command-context.js";
import type { MemoryCommandName } from "./memory-command.js";

const MEMORY_EXIT_CODES = "Exit codes: 0 done, 1 error, 2 usage error or bad key, 6 no such note";

const SUBCOMMANDS: readonly [MemoryCommandName, string, string][] = [
  ["ls", "[options]", "every note: key and description"],
  ["show", "KEY [options]", "a note's content"],
  ["rm", "KEY [options]", "delete a note"],
];

export async function define(memory: Command, { io, action }: CommandContext): Promise<void> {
  memory
    .description(
      `Notes live in $XDG_STATE_HOME/fisk-ai/memory/NAMESPACE (or ~/.local/state/fisk-ai/memory/...). The namespace is --namespace, else the config's memory.namespace (--config, default ./agent.yaml, when memory is enabled there), else "default".`,
    )
    .addHelpText("after", `\n${MEMORY_EXIT_CODES}`);
  for (const [name, usage, description] of SUBCOMMANDS) {
    memory
      .command(name)
      .usage(usage)
      .description(description)
      .option("--namespace <N>", "the notes' namespace")
      .option("--config <FILE>", "the agent configuration whose memory.namespace to use (default: ./agent.yaml)")
      .addHelpText("after", `\n${MEMORY_EXIT_CODES}`)
      .action(action(async (args, flags) => (await import("./memory-command.js")).memoryCommand(name, args, flags, io)));
  }
}
