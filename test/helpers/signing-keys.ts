// A keyring file for tests whose deciders share a store that is not the user's own
// (JetStream): every machine of the test trusts the one file, as docs/security.md asks.
import { join } from "node:path";
import { createKeyring } from "../../src/trust/keyring.js";

/** Makes a keyring of one key in `dir` (0600) and returns its path, for FISK_AI_SIGNING_KEYS. */
export function sharedKeyring(dir: string): string {
  const path = join(dir, "signing-keys.json");
  createKeyring(path);
  return path;
}
