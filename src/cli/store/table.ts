// `fisk-ai store init URL`: its options; the handler is store-command.ts.
import type { Command } from "commander";
import type { CommandContext } from "../context/command-context.js";

export async function define(store: Command, { io, action }: CommandContext): Promise<void> {
  store
    .command("init")
    .usage("URL")
    .argument("<URL>", "the Postgres store: postgres://USER@HOST:PORT/DATABASE?schema=NAME")
    .allowExcessArguments(false)
    .description(
      "make (or migrate) fisk-ai's tables in a Postgres store, as its first use would: for an owner to run once where the roles that run agents may not make tables",
    )
    .action(action(async ([url]) => (await import("./store-command.js")).storeInit(url as string, io)));
}
