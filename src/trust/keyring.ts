// The keys decisions and session metas are signed with (docs/security.md). They live in a
// file outside the store, so write access to the store (a hostile export, a writer on a
// shared stream) never carries the power to approve. A keyring holds every key this
// installation trusts, by id; only the current one signs, so rotating adds a key and older
// signatures still verify.
import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import { TrustError } from "./trust-error.js";

/** The keys an installation trusts, and the one it signs with. */
export interface Keyring {
  /** The key new signatures are made with; undefined for a keyring that only verifies (none configured). */
  readonly current:
    | {
        /** The key's id, named in each signature made with it. */
        readonly id: string;
        /** The key's secret bytes. */
        readonly secret: Buffer;
      }
    | undefined;
  /** Every trusted key's secret, by id: the current one and those rotated out. */
  readonly keys: ReadonlyMap<string, Buffer>;
}

/** A keyring that trusts no key: what a machine with none configured verifies with. */
export const NO_KEYS: Keyring = { current: undefined, keys: new Map() };

/** Where the keyring file is: `FISK_AI_SIGNING_KEYS` (configured on purpose), else the user's config directory. */
export function keyringLocation(
  env: NodeJS.ProcessEnv = process.env,
  home: string = homedir(),
): {
  /** The keyring file's path. */
  path: string;
  /** Whether FISK_AI_SIGNING_KEYS named it (then a missing file is an error, not a key to make). */
  configured: boolean;
} {
  const named = env.FISK_AI_SIGNING_KEYS;
  if (named !== undefined && named !== "") {
    // A relative path would name another file once a resume enters the session's directory.
    if (!isAbsolute(named)) throw new TrustError("ERR_SIGNING_KEYS", `FISK_AI_SIGNING_KEYS is ${named}: name the keyring file by its absolute path`);
    return { path: named, configured: true };
  }
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg !== undefined && isAbsolute(xdg) ? xdg : join(home, ".config");
  return { path: join(base, "fisk-ai", "signing-keys.json"), configured: false };
}

/**
 * The keyrings this process has read, by path, with the file's identity when it was read:
 * each decision and resume asks for the keys again, and a file that is still the same one
 * (same inode, size, and change and modification times to the nanosecond) is not read and
 * parsed again. A rotation writes a new file and renames it into place; an edit changes its
 * times: either is read afresh.
 */
const readKeyrings = new Map<string, { identity: string; keyring: Keyring }>();

/** The keyring in `path`, or undefined when there is no such file. TrustError for a file that cannot be used. */
export function readKeyring(path: string): Keyring | undefined {
  let text: string;
  let identity: string;
  try {
    // Asked on every read, cached or not: a keyring made readable by others is refused at once.
    const stat = statSync(path, { bigint: true });
    if (stat.isDirectory()) throw new TrustError("ERR_SIGNING_KEYS", `the signing keys in ${path} are a directory, not a keyring file: name the file`);
    if ((stat.mode & 0o077n) !== 0n) {
      throw new TrustError("ERR_SIGNING_KEYS", `the signing keys in ${path} can be read by others: chmod 600 ${path}`);
    }
    identity = `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
    const cached = readKeyrings.get(path);
    if (cached?.identity === identity) return cached.keyring;
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    if (error instanceof TrustError) throw error;
    throw new TrustError("ERR_SIGNING_KEYS", `the signing keys in ${path} cannot be read: ${(error as Error).message}`);
  }
  const keyring = parseKeyring(text, path);
  readKeyrings.set(path, { identity, keyring });
  return keyring;
}

/** Makes a keyring of one new key in `path` (its directory 0700, the file 0600, never over an existing file). */
export function createKeyring(path: string): Keyring {
  const id = newKeyId();
  writeKeyring(path, { current: id, keys: { [id]: newSecret() } }, "create");
  return readKeyring(path) as Keyring;
}

/**
 * Adds a new key to the keyring in `path` and makes it the one that signs; the keys before
 * it still verify what they signed. With no keyring there yet, makes it with this first key.
 * Returns the new key's id.
 */
export function rotateKey(path: string): string {
  const before = readKeyring(path);
  const id = newKeyId();
  const keys = { ...fileKeys(before?.keys ?? new Map()), [id]: newSecret() };
  writeKeyring(path, { current: id, keys }, before === undefined ? "create" : "replace");
  return id;
}

/**
 * Removes key `id` from the keyring in `path`: what it signed no longer counts here. The
 * current key cannot be removed (nothing could sign): rotate first.
 */
export function removeKey(path: string, id: string): void {
  const keyring = readKeyring(path);
  if (keyring === undefined) throw new TrustError("ERR_NO_SIGNING_KEY", `there are no signing keys in ${path}`);
  if (!keyring.keys.has(id)) throw new TrustError("ERR_SIGNING_KEYS", `${path} holds no key ${id}`);
  if (keyring.current?.id === id) throw new TrustError("ERR_SIGNING_KEYS", `key ${id} is the one that signs: rotate to a new key first, then remove it`);
  const keys = new Map(keyring.keys);
  keys.delete(id);
  writeKeyring(path, { current: keyring.current?.id as string, keys: fileKeys(keys) }, "replace");
}

/** The keys to verify with: the keyring configured or at the default place, else none. */
export function trustedKeys(env: NodeJS.ProcessEnv = process.env): Keyring {
  return readKeyring(keyringLocation(env).path) ?? NO_KEYS;
}

interface KeyringFile {
  current: string;
  keys: Record<string, string>;
}

const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]+={0,2}|[A-Za-z0-9_-]+)$/;

function parseKeyring(text: string, path: string): Keyring {
  const bad = (what: string) =>
    new TrustError("ERR_SIGNING_KEYS", `the signing keys in ${path} are not usable: ${what} (expected {"current": ID, "keys": {ID: BASE64, ...}})`);
  let file: unknown;
  try {
    file = JSON.parse(text);
  } catch {
    throw bad("not JSON");
  }
  const { current, keys } = (file ?? {}) as Partial<KeyringFile>;
  if (typeof keys !== "object" || keys === null || Array.isArray(keys)) throw bad("no keys");
  const secrets = new Map<string, Buffer>();
  for (const [id, value] of Object.entries(keys)) {
    if (!KEY_ID.test(id)) throw bad(`key id ${JSON.stringify(id)} is not 1 to 64 letters, digits, '.', '_' or '-'`);
    // Buffer.from skips what is not base64: a mangled key would quietly be another, shorter one.
    if (typeof value !== "string" || !BASE64.test(value)) throw bad(`key ${id} is not base64`);
    const secret = Buffer.from(value, "base64");
    // Shorter than the hash's output would weaken HMAC-SHA256.
    if (secret.length < 32) throw bad(`key ${id} is not at least 32 bytes of base64`);
    secrets.set(id, secret);
  }
  if (typeof current !== "string" || !secrets.has(current)) throw bad("current names no key of the file");
  return { current: { id: current, secret: secrets.get(current) as Buffer }, keys: secrets };
}

function newSecret(): string {
  return randomBytes(32).toString("base64");
}

/** The keys as the file holds them. */
function fileKeys(keys: ReadonlyMap<string, Buffer>): Record<string, string> {
  return Object.fromEntries([...keys].map(([id, secret]) => [id, secret.toString("base64")]));
}

function newKeyId(): string {
  return `${new Date().toISOString().slice(0, 10)}-${randomBytes(4).toString("hex")}`;
}

/**
 * Writes the file whole through an exclusive temp file, so no reader sees it half written:
 * linked to its name for a new one (EEXIST when another process made it first), renamed over it for a replacement.
 */
function writeKeyring(path: string, file: KeyringFile, how: "create" | "replace"): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  const fd = openSync(temp, "wx", 0o600);
  try {
    writeSync(fd, `${JSON.stringify(file, null, 2)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    if (how === "replace") renameSync(temp, path);
    else linkSync(temp, path);
  } finally {
    rmSync(temp, { force: true });
  }
}
