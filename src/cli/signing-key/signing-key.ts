// `fisk-ai signing-key ls|rotate|rm`: their options; the handler is signing-key-command.ts.
// Named so that it is not taken for an API key: these keys sign decisions (docs/security.md).
import type { Command } from "commander";
import type { CommandContext } from "../context/command-context.js";
import type { SigningKeyCommandName } from "./signing-key-command.js";

const WHERE = "The keyring is the file FISK_AI_SIGNING_KEYS names, else $XDG_CONFIG_HOME/fisk-ai/signing-keys.json (~/.config/fisk-ai/...).";

const SUBCOMMANDS: readonly [SigningKeyCommandName, string, string][] = [
  ["ls", "", "the ids of the keys decisions are verified with, the one that signs first (never a secret)"],
  ["rotate", "", "add a new key that signs from now on; the older ones still verify what they signed (with no keyring yet, make it)"],
  ["rm", "ID", "remove a key that no longer signs: what it signed stops counting here"],
];

export async function define(signingKey: Command, { io, action }: CommandContext): Promise<void> {
  signingKey.description(`The keys approvals, answers and session metas are signed with. ${WHERE}`);
  for (const [name, usage, description] of SUBCOMMANDS) {
    const command = signingKey
      .command(name)
      .usage(usage)
      .description(description)
      .allowExcessArguments(false)
      .action(action(async (args) => (await import("./signing-key-command.js")).signingKeyCommand(name, args, io)));
    if (name === "rm") command.argument("<ID>", "the key's id, as signing-key ls lists it");
  }
}
