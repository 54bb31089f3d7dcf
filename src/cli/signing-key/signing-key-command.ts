// `fisk-ai signing-key ls|rotate|rm`: the keyring decisions are signed and verified with.
import { keyringLocation, readKeyring, removeKey, rotateKey } from "../../trust/keyring.js";
import { UsageError } from "../cli-errors.js";
import type { CommandIO } from "../context/command-io.js";

export type SigningKeyCommandName = "ls" | "rotate" | "rm";

export async function signingKeyCommand(name: SigningKeyCommandName, positionals: string[], io: CommandIO): Promise<number> {
  const { path } = keyringLocation(io.env);
  switch (name) {
    case "rotate": {
      const id = rotateKey(path);
      const older = (readKeyring(path)?.keys.size ?? 1) - 1;
      const verifying = older === 0 ? "it is the first" : `${older} older ${older === 1 ? "key still verifies" : "keys still verify"} what it signed`;
      io.stdout.write(`signing key ${id} now signs decisions (${path}); ${verifying}\n`);
      return 0;
    }
    case "rm": {
      const id = positionals[0] as string;
      removeKey(path, id);
      io.stdout.write(`removed key ${id} from ${path}: what it signed no longer counts here\n`);
      return 0;
    }
    case "ls": {
      const keyring = readKeyring(path);
      if (keyring === undefined) {
        throw new UsageError(`there are no signing keys in ${path}: the first decision on your own file store makes them, or fisk-ai signing-key rotate`);
      }
      const current = keyring.current?.id;
      const older = [...keyring.keys.keys()].filter((id) => id !== current).reverse();
      for (const id of [current, ...older]) if (id !== undefined) io.stdout.write(id === current ? `${id}  current\n` : `${id}\n`);
      return 0;
    }
  }
}
