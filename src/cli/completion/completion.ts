// `fisk-ai completion bash|zsh`: the script is built from every command's words.
import { Argument, type Command } from "commander";
import type { CommandContext } from "../context/command-context.js";

export async function define(command: Command, { io, action, commandWords }: CommandContext): Promise<void> {
  command
    .addArgument(new Argument("<SHELL>").choices(["bash", "zsh"]))
    .allowExcessArguments(false)
    .description(
      `Prints the completion script for bash or zsh. bash: fisk-ai completion bash > ~/.local/share/bash-completion/completions/fisk-ai; zsh: fisk-ai completion zsh > "\${fpath[1]}/_fisk-ai" (or source it after compinit).`,
    )
    .action(
      action(async ([shell]) => {
        const { completionCommand } = await import("./completion-script.js");
        return completionCommand(shell as "bash" | "zsh", await commandWords(), io);
      }),
    );
}
