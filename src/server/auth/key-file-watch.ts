// The key file as a running server sees it: read again when it changes (polled, so a file
// renamed into place is seen as surely as one edited) or when asked (the server's SIGHUP).
// A revoked key stops working at the next read, and a stream opened with it closes there.
// A change is judged against the file as it was read (the stat of the descriptor read), not
// against a first look taken later, so a change made while the server starts is not missed.
import type { Authenticate, Principal } from "../principal.js";
import type { AuthError } from "./auth-error.js";
import { KeySet } from "./key-authenticator.js";
import { fileVersion, loadKeyFileVersion, type FileVersion } from "./key-file.js";

/** How often the key file is looked at, by default. */
const DEFAULT_INTERVAL_MS = 1000;

/** A key file kept read: the authenticator of its keys now, and whether a principal still holds. */
export interface KeyFileAuth {
  /** Who a request is from, by the keys the file holds now. */
  readonly authenticate: Authenticate;
  /** Whether a principal `authenticate` made is still valid (its key still in the file, unchanged). */
  isValid(principal: Principal): boolean;
  /** Reads the file again now (what a server does on SIGHUP); resolves once its keys are the ones accepted. */
  reload(): Promise<void>;
  /** Stops looking at the file. */
  close(): void;
}

/** How watchKeyFile looks at the file. */
export interface WatchKeyFileOptions {
  /** How often the file is looked at for a change, in milliseconds (default 1000). */
  intervalMs?: number;
  /**
   * Told of each read after the first: undefined when its keys are accepted, else why the
   * file cannot be used, and then no key is accepted until it can (a revocation is never
   * undone by a file broken while it was edited).
   */
  onReload?: (error: AuthError | undefined) => void;
}

/** Reads the key file at `path` (AuthError when it cannot be used) and reads it again whenever it changes. */
export async function watchKeyFile(path: string, options: WatchKeyFileOptions = {}): Promise<KeyFileAuth> {
  const first = await loadKeyFileVersion(path);
  const keys = new KeySet(first.keys);
  let read: FileVersion | undefined = first.version;
  // One read at a time, in order, so an older read never replaces a newer one's keys.
  let reading = Promise.resolve();
  const reload = (): Promise<void> => {
    reading = reading.then(async () => {
      // Taken before the read: should the file change after it, the next look sees that it did.
      const before = await fileVersion(path);
      try {
        const loaded = await loadKeyFileVersion(path);
        keys.replace(loaded.keys);
        read = loaded.version;
        options.onReload?.(undefined);
      } catch (error) {
        keys.replace([]);
        read = before;
        options.onReload?.(error as AuthError);
      }
    });
    return reading;
  };
  let looking = false;
  const look = async () => {
    if (looking) return;
    looking = true;
    try {
      if ((await fileVersion(path)) !== read) await reload();
    } finally {
      looking = false;
    }
  };
  const polling = setInterval(() => void look(), options.intervalMs ?? DEFAULT_INTERVAL_MS);
  polling.unref();
  return {
    authenticate: keys.authenticate,
    isValid: (principal) => keys.isValid(principal),
    reload,
    close: () => clearInterval(polling),
  };
}
