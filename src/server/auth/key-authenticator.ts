// Bearer keys checked against the key file's hashes. The key is hashed and compared with
// every entry in constant time, so how long a check takes says nothing about which
// entry, if any, is near; the key itself is never kept, logged or put in an error.
import { createHash, timingSafeEqual } from "node:crypto";
import type { Authenticate, Principal } from "../principal.js";
import type { KeyEntry } from "./key-file.js";

/** Longer than any key `fisk-ai key create` makes by far: a longer header is no key, and is not hashed. */
const BEARER_MAX_LENGTH = 512;
const BEARER = /^Bearer +(\S+) *$/i;

/** The keys a server accepts now: replaced whole when the key file is read again. */
export class KeySet {
  #entries: readonly KeyEntry[];
  /** The key each principal this set made came from, so a later check sees whether it still holds. */
  readonly #issued = new WeakMap<Principal, KeyEntry>();

  constructor(entries: readonly KeyEntry[]) {
    this.#entries = entries;
  }

  /** Accepts `entries` from now on: a principal whose key is no longer among them is no longer valid. */
  replace(entries: readonly KeyEntry[]): void {
    this.#entries = entries;
  }

  /** Who the request's `Authorization: Bearer KEY` header is from; undefined for none, a malformed one or an unknown key. */
  readonly authenticate: Authenticate = async (request) => {
    const header = request.headers.get("authorization");
    if (header === null || header.length > BEARER_MAX_LENGTH) return undefined;
    const key = BEARER.exec(header)?.[1];
    if (key === undefined) return undefined;
    const entry = this.#entryOf(createHash("sha256").update(key, "utf8").digest());
    if (entry === undefined) return undefined;
    const principal: Principal = Object.freeze({ name: entry.name, tenant: entry.tenant, roles: entry.roles });
    this.#issued.set(principal, entry);
    return principal;
  };

  /**
   * Whether a principal this set made is still valid: its key is still in the file, with
   * the same name, tenant and roles. A server asks before each event of a stream it holds
   * open, and closes the stream once the answer is no.
   */
  isValid(principal: Principal): boolean {
    const entry = this.#issued.get(principal);
    if (entry === undefined) return false;
    const now = this.#entryOf(entry.sha256);
    return (
      now !== undefined &&
      now.name === entry.name &&
      now.tenant === entry.tenant &&
      now.roles.size === entry.roles.size &&
      [...entry.roles].every((role) => now.roles.has(role))
    );
  }

  /** The entry of the key with this hash: every entry compared, none skipped once one matches. */
  #entryOf(hash: Buffer): KeyEntry | undefined {
    let found: KeyEntry | undefined;
    for (const entry of this.#entries) {
      if (timingSafeEqual(entry.sha256, hash)) found = entry;
    }
    return found;
  }
}

/** Authenticates requests by the `Authorization: Bearer KEY` header against `keys` (loadKeyFile's). */
export function keyAuthenticator(keys: readonly KeyEntry[]): Authenticate {
  return new KeySet(keys).authenticate;
}
