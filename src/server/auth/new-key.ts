// A new API key: 32 random bytes, base64url, after a prefix that says what it is (so a key
// pasted where it should not be is recognized, by people and by secret scanners).
import { randomBytes } from "node:crypto";
import { tenantProblem } from "../../runstate/store/tenant.js";
import type { Role } from "../principal.js";
import { AuthError } from "./auth-error.js";
import { ROLES } from "../principal.js";
import { keyHash, keyNameProblem, rolesProblem } from "./key-file.js";

/** What every key fisk-ai makes starts with. */
export const KEY_PREFIX = "fisk_";

/** A key file entry as its JSON holds it. */
export interface KeyFileEntry {
  /** Who holds the key. */
  name: string;
  /** Whose sessions it sees. */
  tenant: string;
  /** What it may do. */
  roles: Role[];
  /** The key's SHA-256, hex. */
  sha256: string;
}

/** A key made by newApiKey. */
export interface NewApiKey {
  /** The key, to be shown once to its holder and kept nowhere. */
  key: string;
  /** Its entry for the key file. */
  entry: KeyFileEntry;
}

/** A new key for `name` of `tenant` with `roles`, and its key file entry; AuthError (ERR_KEY_FILE) naming a field that would not load. */
export function newApiKey(name: string, tenant: string, roles: readonly string[]): NewApiKey {
  const problems: [string, string, string | undefined][] = [
    ["name", name, keyNameProblem(name)],
    ["tenant", tenant, tenantProblem(tenant)],
    ["roles", roles.join(","), rolesProblem(roles)],
  ];
  for (const [field, value, problem] of problems) {
    if (problem !== undefined) throw new AuthError("ERR_KEY_FILE", `the key's ${field} ${JSON.stringify(value.slice(0, 80))} is ${problem}`);
  }
  const key = `${KEY_PREFIX}${randomBytes(32).toString("base64url")}`;
  const ordered = ROLES.filter((role) => roles.includes(role));
  return { key, entry: { name, tenant, roles: ordered, sha256: keyHash(key) } };
}
