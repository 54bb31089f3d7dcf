// `fisk-ai init [DIR]`: its help; the handler is init-command.ts.
import type { Command } from "commander";
import type { CommandContext } from "../context/command-context.js";
import { EXIT_CODES_POINTER } from "../exit-codes.js";

export async function define(command: Command, { io, action }: CommandContext): Promise<void> {
  command
    .description(
      "Writes DIR/agent.yaml (DIR: default the current directory) and the script its offline model plays, agent.script.yaml; an editor checks agent.yaml against the JSON Schema it names. Never overwrites a file: one that exists is refused (exit 9).",
    )
    .addHelpText("after", `\n${EXIT_CODES_POINTER}`)
    .action(action(async (args) => (await import("./init-command.js")).initCommand(args, io)));
}
