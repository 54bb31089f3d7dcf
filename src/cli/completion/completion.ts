// `fisk-ai completion bash|zsh`: its help and its handler, which prints the script built from
// every command's words (completion-script.ts writes it).
import { Argument, type Command } from "commander";
import type { CommandContext } from "../context/command-context.js";
import type { CommandIO } from "../context/command-io.js";
import { EXIT } from "../exit-codes.js";
import type { CommandWords } from "./completion-script.js";

export async function define(command: Command, { io, action, commandWords }: CommandContext): Promise<void> {
  command
    .addArgument(new Argument("<SHELL>").choices(["bash", "zsh"]))
    .allowExcessArguments(false)
    .description(
      `Prints the completion script for bash or zsh. bash: fisk-ai completion bash > ~/.local/share/bash-completion/completions/fisk-ai; zsh: fisk-ai completion zsh > "\${fpath[1]}/_fisk-ai" (or source it after compinit).`,
    )
    .action(action(async ([shell]) => run(shell as "bash" | "zsh", await commandWords(), io)));
}

async function run(shell: "bash" | "zsh", tree: CommandWords[], io: CommandIO): Promise<number> {
  const { completionScript } = await import("./completion-script.js");
  io.stdout.write(completionScript(shell, tree));
  return EXIT.completed;
}
