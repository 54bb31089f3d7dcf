// `fisk-ai store ...`: the table of its subcommands, each defined and handled by its own module.
import type { Command } from "commander";
import type { CommandContext } from "../context/command-context.js";
import { defineSubcommands, plainGroup, type SubcommandContext, type SubcommandEntry } from "../context/subcommands.js";

const SUBCOMMANDS: readonly SubcommandEntry<SubcommandContext>[] = [
  {
    name: "init",
    usage: "URL",
    argument: ["URL", "the Postgres store: postgres://USER@HOST:PORT/DATABASE?schema=NAME"],
    description:
      "make (or migrate) fisk-ai's tables in a Postgres store, as its first use would: for an owner to run once where the roles that run agents may not make tables",
    load: () => import("./init.js"),
  },
];

export async function define(store: Command, context: CommandContext): Promise<void> {
  await defineSubcommands(store, context, SUBCOMMANDS, plainGroup({}));
}
