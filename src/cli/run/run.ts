// `fisk-ai run`: its help and options (options.ts); the handler is run-command.ts.
import type { Command } from "commander";
import type { CommandContext } from "../context/command-context.js";
import { addOptions } from "../context/options.js";
import { RUN_OPTIONS } from "./options.js";
import { EXIT_CODES_POINTER } from "../exit-codes.js";

export async function define(command: Command, { io, action }: CommandContext): Promise<void> {
  command.description(
    `Runs the agent on PROMPT (or on stdin when PROMPT is - or absent and stdin is not a terminal). The final answer goes to stdout; narration and tool traces to stderr. A resume without --config uses the agent.yaml the session started with, when it exists.`,
  );
  addOptions(command, RUN_OPTIONS)
    .addHelpText("after", `\n${EXIT_CODES_POINTER}`)
    .action(action(async (args, flags) => (await import("./run-command.js")).runCommand(args, flags, io)));
}
