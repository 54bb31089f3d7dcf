// `fisk-ai queue ls|rm`: their options; the handler is queue-command.ts.
import type { Command } from "commander";
import { STORE_OPTION, type CommandContext } from "../context/command-context.js";

const SUBCOMMANDS = [
  ["ls", "[options]", "the queued sessions, oldest first: ID, QUEUED, and where each is (running on which worker, parked, or waiting and why)"],
  ["rm", "ID... [options]", "withdraw queued sessions no worker has started"],
] as const;

export async function define(queue: Command, { io, action }: CommandContext): Promise<void> {
  for (const [name, usage, description] of SUBCOMMANDS) {
    const command = queue
      .command(name)
      .usage(usage)
      .description(description)
      .option("--state-dir <DIR>", "where sessions are kept")
      .option("--store <URL>", STORE_OPTION)
      .option("--config <FILE>", "the agent configuration whose session block to use (default: ./agent.yaml)")
      .action(action(async (args, flags) => (await import("./queue-command.js")).queueCommand(name, args, flags, io)));
    if (name === "ls") command.option("--json", "one JSON array of the entries");
  }
}
