// `fisk-ai run`: its options; the handler is run-command.ts.
import type { Command } from "commander";
import { STORE_OPTION, type CommandContext } from "../context/command-context.js";
import { EXIT_CODES_POINTER } from "../exit-codes.js";

export async function define(command: Command, { io, action }: CommandContext): Promise<void> {
  command
    .description(
      `Runs the agent on PROMPT (or on stdin when PROMPT is - or absent and stdin is not a terminal). The final answer goes to stdout; narration and tool traces to stderr. A resume without --config uses the agent.yaml the session started with, when it exists.`,
    )
    .option("--config <FILE>", "the agent configuration (default: ./agent.yaml when it exists)")
    .option("--checkpoint", "journal the run so it can be suspended (Ctrl-C) and resumed")
    .option("--name <ID>", "the session id of a checkpointed run (default: a new KSUID)")
    .option("--title <TEXT>", "a title for the session, shown by session ls; --resume and session show take it in place of the id")
    .option(
      "--chat",
      "after each answer, ask for a follow-up (/exit, Ctrl-D or the end of stdin ends the chat; /clear starts a new session; /compact compacts this one)",
    )
    .option(
      "--resume [ID]",
      "resume a checkpointed session by its id or title (no ID: pick one, on a terminal); with PROMPT, a follow-up that takes the session further, even a completed one",
    )
    .option("--continue", "resume the most recently updated session started in this directory that is not completed (any, with PROMPT as a follow-up)")
    .option("--all", "--continue and the picker look at the sessions of every directory")
    .option("--cwd <DIR>", "run the tools in DIR (default: where the session started)")
    .option("--force", "resume even though the configuration changed (not the provider)")
    .option("--state-dir <DIR>", "where sessions are kept (default: $XDG_STATE_HOME/fisk-ai/runs)")
    .option("--store <URL>", STORE_OPTION)
    .option("--model <M>", "override the configured model")
    .option("--provider <P>", "override the configured provider: anthropic, openai or script")
    .option("--output-format <F>", "text (default: the answer on stdout) or stream-json (every event of the run as one JSON object a line on stdout)")
    .option(
      "--approvals <MODE>",
      "ask (default: a confirm tool or ask_user asks on the terminal when there is one) or defer (a checkpointed run parks the call until 'session approve|deny|answer')",
    )
    .addHelpText("after", `\n${EXIT_CODES_POINTER}`)
    .action(action(async (args, flags) => (await import("./run-command.js")).runCommand(args, flags, io)));
}
