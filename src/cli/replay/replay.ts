// `fisk-ai replay`: its options; the handler is replay-command.ts.
import type { Command } from "commander";
import { STORE_OPTION, type CommandContext } from "../context/command-context.js";
import { EXIT_CODES_POINTER } from "../exit-codes.js";

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

export async function define(command: Command, { io, action }: CommandContext): Promise<void> {
  command
    .description(
      "Replays recorded sessions against the agent NEW.yaml describes: its model is asked each recorded turn, its tool calls are answered from the recording and never run, and each session is reported `same` or `departs at turn N`. Nothing is written to the sessions. Exit 17 when any departs (docs/replay.md).",
    )
    .option("--config <FILE>", "the agent to replay against (NEW.yaml): its provider, model, prompt, tools and thinking")
    .option("--all", "every top-level session of the store (narrowed by --since and --status)")
    .option("--since <WHEN>", "only sessions started within AGE (30m, 12h, 7d, 2w) or since a date (2026-12-01)")
    .option("--status <LIST>", "only sessions in one of these statuses, comma-separated")
    .option(
      "--relax <TOOL:PATH>",
      "leave an argument of a tool's calls out of the comparison (a timestamp): lookup:at, fetch:options.since (repeatable)",
      collect,
    )
    .option("--keep-going", "go on past a departure with the recorded answers that can still be given, marking each one")
    .option("--judge <CONFIG>", "also ask the model an agent.yaml names whether each new final answer satisfies the request as the recorded one does")
    .option("--concurrency <N>", "sessions replayed at once (default 1)")
    .option(
      "--fork",
      "make each departing replay a session of the new agent: the recording's records up to the departing turn, then the new agent's turn there, its calls not yet run; the report prints the command that resumes it",
    )
    .option("--fork-name <NEW>", "the fork's id, when one session is replayed (default: a new KSUID)")
    .option("--fork-to <STORE>", "the store the forks go to: nats://HOST:PORT/STREAM, postgres://..., or a file store's directory (default: the recording's)")
    .option("--json", "the reports as one JSON array on stdout")
    .option("--junit <FILE>", "also write the reports as JUnit XML, one test case a session")
    .option("--state-dir <DIR>", "where the recorded sessions are kept (default: $XDG_STATE_HOME/fisk-ai/runs)")
    .option("--store <URL>", STORE_OPTION)
    .addHelpText("after", `\n${EXIT_CODES_POINTER}`)
    .action(action(async (args, flags) => (await import("./replay-command.js")).replayCommand(args, flags, io)));
}
