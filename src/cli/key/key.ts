// `fisk-ai key create`: its options; the handler is key-command.ts.
import type { Command } from "commander";
import type { CommandContext } from "../context/command-context.js";

export async function define(key: Command, { io, action }: CommandContext): Promise<void> {
  key
    .command("create")
    .usage("--name NAME --tenant TENANT --roles ROLE,...")
    .description(
      "make an API key for 'fisk-ai serve': prints the key, shown this once (its holder sends it as 'Authorization: Bearer KEY'), then on the next line the entry to add to the key file's \"keys\" list, which holds the key's SHA-256, never the key; a running server reads the file again when it changes",
    )
    .requiredOption("--name <NAME>", "who holds the key: journaled as the decider of what it decides")
    .requiredOption("--tenant <TENANT>", "whose sessions the key sees")
    .requiredOption("--roles <ROLES>", "what it may do, comma-separated: read, run, approve, admin")
    .allowExcessArguments(false)
    .action(action(async (_args, flags) => (await import("./key-command.js")).keyCreate(flags, io)));
}
