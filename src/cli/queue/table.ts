// `fisk-ai queue ...`: the table of its subcommands, each defined and handled by its own module.
import type { Command } from "commander";
import { STORE_OPTION, type CommandContext } from "../context/command-context.js";
import type { QueueContext } from "../context/queue-context.js";
import { defineSubcommands, type Group, type SubcommandEntry } from "../context/subcommands.js";

const SUBCOMMANDS: readonly SubcommandEntry<QueueContext>[] = [
  {
    name: "ls",
    usage: "[options]",
    description: "the queued sessions, oldest first: ID, QUEUED, and where each is (running on which worker, parked, or waiting and why)",
    load: () => import("./ls.js"),
  },
  { name: "rm", usage: "ID... [options]", description: "withdraw queued sessions no worker has started", load: () => import("./rm.js") },
  {
    name: "suspend",
    usage: "ID... [options]",
    description: "have the worker running each session suspend it at its next boundary, wherever it runs",
    load: () => import("./suspend.js"),
  },
];

const QUEUE_GROUP: Group<QueueContext> = {
  options: {
    stateDir: { flag: "--state-dir <DIR>", help: "where sessions are kept" },
    store: { flag: "--store <URL>", help: STORE_OPTION },
    config: { flag: "--config <FILE>", help: "the agent configuration whose session block to use (default: ./agent.yaml)" },
  },
  run: async (module, positionals, values, io) => (await import("../context/queue-context.js")).queueCommand(module, positionals, values, io),
};

export async function define(queue: Command, context: CommandContext): Promise<void> {
  await defineSubcommands(queue, context, SUBCOMMANDS, QUEUE_GROUP);
}
