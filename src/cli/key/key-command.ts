// `fisk-ai key create`: a new API key, shown this once, and its key file entry.
import type { OptionValues } from "commander";
import { newApiKey } from "../../server/auth/new-key.js";
import type { CommandIO } from "../context/command-io.js";

export async function keyCreate(flags: OptionValues, io: CommandIO): Promise<number> {
  const roles = String(flags.roles)
    .split(",")
    .map((role) => role.trim())
    .filter((role) => role !== "");
  const { key, entry } = newApiKey(String(flags.name), String(flags.tenant), roles);
  // Both on stdout, the key first: a script takes line 1 to the key's holder and line 2 into the key file.
  io.stdout.write(`${key}\n${JSON.stringify(entry)}\n`);
  return 0;
}
