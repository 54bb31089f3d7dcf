// Which keys a process verifies and signs with, for a store. Verifying never makes a key:
// with none configured nothing verifies, so no approval counts. Signing on the user's own
// file store makes the keyring on first use (the user's config directory, 0600) and says
// so; on any other store a key made silently on one machine would verify nowhere else, so
// its absence is a refusal. A memory store lives and dies with the process: it gets a key
// of the process's own.
import { randomBytes } from "node:crypto";
import type { Store } from "../runstate/store/store.js";
import { createKeyring, keyringLocation, NO_KEYS, readKeyring, type Keyring } from "./keyring.js";
import { TrustError } from "./trust-error.js";

/** The keys of a process for one store. */
export interface InstallationKeys {
  /** What decisions and metas are verified with (possibly no key at all). */
  readonly trusted: Keyring;
  /** The keyring to sign with, made on first use where that is allowed; TrustError `ERR_NO_SIGNING_KEY` where it is not. */
  signing(): Keyring;
  /** Whether the store may be written by others than this user: one that does not say its writers are this user or process. */
  readonly shared: boolean;
}

/** Where the keys come from, besides the environment's defaults. */
export interface KeyOptions {
  /** Use this keyring and no file: a library caller's own keys. */
  keyring?: Keyring | undefined;
  /** Read FISK_AI_SIGNING_KEYS and XDG_CONFIG_HOME from here; default `process.env`. */
  env?: NodeJS.ProcessEnv | undefined;
  /** Told the path of a keyring made on first use, so the user hears of it. */
  onKeyCreated?: ((path: string) => void) | undefined;
}

const processKey = { id: `process-${randomBytes(4).toString("hex")}`, secret: randomBytes(32) };
const PROCESS_KEYRING: Keyring = { current: processKey, keys: new Map([[processKey.id, processKey.secret]]) };

/** Stores that pass their calls on to another (a worker's hold on one run): whose store it is. */
const WRAPPED = new WeakMap<Store, Store>();

/** Marks `wrapper` as passing its calls on to `store`, so that it is as shared as `store` is; returns it. */
export function wrapsStore(wrapper: Store, store: Store): Store {
  WRAPPED.set(wrapper, WRAPPED.get(store) ?? store);
  return wrapper;
}

/** The keys to verify and sign with for `store` (undefined: a run kept in memory). */
export function installationKeys(given: Store | undefined, options: KeyOptions = {}): InstallationKeys {
  const store = given === undefined ? undefined : (WRAPPED.get(given) ?? given);
  const shared = store !== undefined && store.writers === undefined;
  if (options.keyring !== undefined) return fixed(options.keyring, shared);
  const { path, configured } = keyringLocation(options.env);
  const found = readKeyring(path);
  if (found !== undefined) return fixed(found, shared);
  if (configured) {
    return unsigned(
      shared,
      `FISK_AI_SIGNING_KEYS names ${path}, which does not exist: put the keyring every decider and worker shares there (docs/security.md)`,
    );
  }
  if (store === undefined || store.writers === "process") return fixed(PROCESS_KEYRING, false);
  if (shared) {
    return unsigned(
      true,
      `a decision on a shared store must be signed with a key every decider and worker trusts, and none is configured: copy one keyring file to each of them and set FISK_AI_SIGNING_KEYS to it (docs/security.md)`,
    );
  }
  let made: Keyring | undefined;
  return {
    // Once made, it is trusted too: what this process signs, it counts.
    get trusted() {
      return made ?? NO_KEYS;
    },
    shared: false,
    signing: () => {
      made ??= madeAt(path, options.onKeyCreated);
      return made;
    },
  };
}

function fixed(keyring: Keyring, shared: boolean): InstallationKeys {
  return { trusted: keyring, shared, signing: () => keyring };
}

function unsigned(shared: boolean, why: string): InstallationKeys {
  return {
    trusted: NO_KEYS,
    shared,
    signing: () => {
      throw new TrustError("ERR_NO_SIGNING_KEY", why);
    },
  };
}

/** The keyring made at `path`, or the one another process made there a moment before. */
function madeAt(path: string, onKeyCreated: ((path: string) => void) | undefined): Keyring {
  try {
    const keyring = createKeyring(path);
    onKeyCreated?.(path);
    return keyring;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return readKeyring(path) as Keyring;
  }
}
