// The service's key file (docs/server.md#keys-and-tenants): who may call it, as a name, a
// tenant, roles and the SHA-256 of each key, never the key. A random 32-byte key needs no
// slow hash: its SHA-256 cannot be turned back into it, so the file holds nothing to steal.
// What matters is who can change it: whoever writes it can give themselves any role, so a
// file that others than its owner can write is refused.
import { createHash } from "node:crypto";
import { open, stat } from "node:fs/promises";
import { constants, type Stats } from "node:fs";
import { tenantProblem } from "../../runstate/store/tenant.js";
import { ROLES, type Role } from "../principal.js";
import { AuthError } from "./auth-error.js";

/** One key the service accepts. */
export interface KeyEntry {
  /** Who holds the key: journaled as the decider of what it decides. */
  readonly name: string;
  /** Whose sessions the key sees. */
  readonly tenant: string;
  /** What the key may do. */
  readonly roles: ReadonlySet<Role>;
  /** The key's SHA-256. */
  readonly sha256: Buffer;
}

/** The largest key file read: far above any real one, so a wrong path to a large file is refused, not read. */
const KEY_FILE_MAX_BYTES = 4 * 1024 * 1024;
const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;
const SHA256_PATTERN = /^[0-9a-f]{64}$/;
const FIELDS = ["name", "tenant", "roles", "sha256"];

/** The SHA-256 of a key, as the key file holds it (hex). */
export function keyHash(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

/** Why `name` cannot name a key, or undefined. */
export function keyNameProblem(name: unknown): string | undefined {
  if (typeof name !== "string") return "not a string";
  return NAME_PATTERN.test(name) ? undefined : "not 1 to 64 ASCII letters, digits, '.', '_', '@' or '-', starting with a letter or digit";
}

/** Why `roles` is not a list of roles, or undefined. */
export function rolesProblem(roles: unknown): string | undefined {
  if (!Array.isArray(roles) || roles.length === 0) return `not a list of one or more of ${ROLES.join(", ")}`;
  const unknown = roles.find((role) => !(ROLES as readonly unknown[]).includes(role));
  if (unknown !== undefined) return `${JSON.stringify(unknown)} is not a role (${ROLES.join(", ")})`;
  return new Set(roles).size === roles.length ? undefined : "names a role twice";
}

/** Why `sha256` is not a key's SHA-256, or undefined. Never shows the value: a key pasted here by mistake stays unshown. */
function sha256Problem(sha256: unknown): string | undefined {
  return typeof sha256 === "string" && SHA256_PATTERN.test(sha256)
    ? undefined
    : "not 64 lowercase hex digits (the key's SHA-256, never the key: 'fisk-ai key create' prints the entry)";
}

/** The keys in the key file at `path`. AuthError naming the file, the entry and the field when it cannot be used. */
export async function loadKeyFile(path: string): Promise<KeyEntry[]> {
  return (await loadKeyFileVersion(path)).keys;
}

/** Which version of a file was read: what a stat of the path says of it now, if it is still that one. */
export type FileVersion = string;

/** The version of the file at `path` now (a stat: its inode, size, change and modification times), or undefined when there is none. */
export async function fileVersion(path: string): Promise<FileVersion | undefined> {
  return stat(path).then(versionOf, () => undefined);
}

/** loadKeyFile's keys, and the version of the file they were read from (the file's own stat, taken on the descriptor read). */
export async function loadKeyFileVersion(path: string): Promise<{ keys: KeyEntry[]; version: FileVersion }> {
  const { text, version } = await readKeyFile(path);
  return { keys: parseKeyFile(text, path), version };
}

function versionOf(stats: Stats): FileVersion {
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.ctimeMs}:${stats.mtimeMs}`;
}

async function readKeyFile(path: string): Promise<{ text: string; version: FileVersion }> {
  const refuse = (why: string) => new AuthError("ERR_KEY_FILE", `the key file ${path} ${why}`);
  let file: Awaited<ReturnType<typeof open>>;
  try {
    // Not blocking: a FIFO put where the file was expected is refused, not waited on.
    file = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw refuse(code === "ENOENT" ? "does not exist: make it with the entries 'fisk-ai key create' prints" : `cannot be read (${code ?? "error"})`);
  }
  try {
    const stats = await file.stat();
    if (!stats.isFile()) throw refuse("is not a regular file");
    // Whoever can write it can give a key of their own any role.
    if ((stats.mode & 0o022) !== 0) throw refuse(`can be changed by others than its owner: chmod go-w ${path}`);
    if (stats.size > KEY_FILE_MAX_BYTES) throw refuse(`is ${stats.size} bytes, past the limit of ${KEY_FILE_MAX_BYTES}: it is not a key file`);
    return { text: await file.readFile("utf8"), version: versionOf(stats) };
  } finally {
    await file.close();
  }
}

/** The keys in a key file's text; `path` is named in errors. */
export function parseKeyFile(text: string, path: string): KeyEntry[] {
  const refuse = (why: string) => new AuthError("ERR_KEY_FILE", `the key file ${path} is not usable: ${why} (the format: docs/server.md#keys-and-tenants)`);
  let file: unknown;
  try {
    file = JSON.parse(text);
  } catch {
    throw refuse('not JSON: expected {"keys": [{"name", "tenant", "roles", "sha256"}, ...]}');
  }
  if (typeof file !== "object" || file === null || Array.isArray(file)) throw refuse('not an object with a "keys" list');
  const extra = Object.keys(file).find((field) => field !== "keys");
  if (extra !== undefined) throw refuse(`${fieldShown(extra)} beside "keys"`);
  const { keys } = file as { keys?: unknown };
  if (!Array.isArray(keys)) throw refuse('"keys" is not a list');
  const entries = keys.map((value, index) => parseEntry(value, index, refuse));
  refuseTwice(entries, (entry) => entry.name, "name", refuse);
  refuseTwice(entries, (entry) => entry.sha256.toString("hex"), "sha256", refuse);
  return entries;
}

function parseEntry(value: unknown, index: number, refuse: (why: string) => AuthError): KeyEntry {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw refuse(`entry ${index + 1} is not an object`);
  const fields = value as Record<string, unknown>;
  const label = keyNameProblem(fields.name) === undefined ? `entry ${index + 1} (${fields.name as string})` : `entry ${index + 1}`;
  const extra = Object.keys(fields).find((field) => !FIELDS.includes(field));
  if (extra !== undefined) throw refuse(`${label}: ${fieldShown(extra)} (the fields: ${FIELDS.join(", ")})`);
  const problems: [string, string | undefined][] = [
    ["name", keyNameProblem(fields.name)],
    ["tenant", tenantProblem(fields.tenant)],
    ["roles", rolesProblem(fields.roles)],
    ["sha256", sha256Problem(fields.sha256)],
  ];
  for (const [field, problem] of problems) {
    if (problem !== undefined) throw refuse(`${label}: ${field} is ${fields[field] === undefined ? "missing" : problem}`);
  }
  return {
    name: fields.name as string,
    tenant: fields.tenant as string,
    roles: new Set(fields.roles as Role[]),
    sha256: Buffer.from(fields.sha256 as string, "hex"),
  };
}

/** An unknown field, named only when the name looks like a field's: never its value, nor a name that may be a key pasted there. */
function fieldShown(field: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]{0,19}$/.test(field) ? `unknown field ${JSON.stringify(field)}` : "an unknown field";
}

function refuseTwice(entries: KeyEntry[], keyOf: (entry: KeyEntry) => string, field: string, refuse: (why: string) => AuthError): void {
  const seen = new Map<string, number>();
  entries.forEach((entry, index) => {
    const first = seen.get(keyOf(entry));
    if (first !== undefined) throw refuse(`entry ${index + 1} (${entry.name}): ${field} is the same as entry ${first + 1}'s`);
    seen.set(keyOf(entry), index);
  });
}
