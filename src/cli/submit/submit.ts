// `fisk-ai submit`: its options; the handler is submit-command.ts.
import type { Command } from "commander";
import { STORE_OPTION, type CommandContext } from "../context/command-context.js";
import { EXIT_CODES_POINTER } from "../exit-codes.js";

export async function define(command: Command, { io, action }: CommandContext): Promise<void> {
  command
    .description(
      "Journals a new session on PROMPT (or, with --resume ID, a follow-up to a session) and queues it for 'fisk-ai worker'; prints its id and exits at once. --wait follows it to its end as run does and exits with the run's exit code.",
    )
    .option("--config <FILE>", "the agent configuration (default: ./agent.yaml when it exists)")
    .option("--name <ID>", "the new session's id (default: a new KSUID)")
    .option("--title <TEXT>", "a title for the session")
    .option("--resume <ID>", "queue PROMPT as a follow-up to session ID")
    .option("--wait", "follow the run to its end: its narration on stderr, its answer on stdout, its exit code")
    .option(
      "--if-running <WHAT>",
      "with --resume, when the session is running or queued: queue (default: wait behind it), reject (exit 7) or interrupt (suspend it at its next boundary, then run this)",
    )
    .option("--state-dir <DIR>", "where sessions are kept (default: $XDG_STATE_HOME/fisk-ai/runs)")
    .option("--store <URL>", STORE_OPTION)
    .addHelpText("after", `\n${EXIT_CODES_POINTER}`)
    .action(action(async (args, flags) => (await import("./submit-command.js")).submitCommand(args, flags, io)));
}
