// Run ids: validation before an id reaches a path or a subject, and generation as
// KSUIDs (27 characters, sortable by creation time).
import { createHash, randomBytes } from "node:crypto";
import { RunStateError } from "./errors.js";
import { RUN_ID_MAX_LENGTH, RUN_ID_PATTERN } from "./records.js";

/**
 * Whether `id` is a valid session id: 1 to RUN_ID_MAX_LENGTH ASCII letters, digits, `_`
 * or `-`, starting with a letter or digit (RUN_ID_PATTERN), so it is safe as a file name
 * and as a NATS subject token.
 */
export function isValidRunId(id: unknown): id is string {
  return typeof id === "string" && id.length <= RUN_ID_MAX_LENGTH && RUN_ID_PATTERN.test(id);
}

/** Throws ERR_INVALID_ID unless `id` is safe to use as a file name or subject token. */
export function assertRunId(id: unknown): asserts id is string {
  if (!isValidRunId(id)) {
    const shown = typeof id === "string" ? JSON.stringify(id.length > 40 ? `${id.slice(0, 40)}...` : id) : String(id);
    throw new RunStateError(
      "ERR_INVALID_ID",
      `invalid session id ${shown}: use 1 to ${RUN_ID_MAX_LENGTH} ASCII letters, digits, '_' or '-', starting with a letter or digit`,
    );
  }
}

/** How much of the parent's id a child's id starts with, so a child lists beside its parent and a grandchild's id stays short. */
const CHILD_PREFIX_LENGTH = 64;

/**
 * The id of the child session that the call `callId` of session `parentId` starts: the
 * same for the same call every time, so a resumed parent finds the child it started
 * before. The parent's id (cut short), `-`, and 24 hex digits of a SHA-256 of both ids:
 * at most 89 characters, valid for any valid parent id and any call id.
 */
export function childRunId(parentId: string, callId: string): string {
  const hash = createHash("sha256").update(parentId).update("\n").update(callId).digest("hex").slice(0, 24);
  return `${parentId.slice(0, CHILD_PREFIX_LENGTH)}-${hash}`;
}

const KSUID_EPOCH_SECONDS = 1_400_000_000;
const KSUID_LENGTH = 27;
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Encodes a KSUID from its parts: seconds since the Unix epoch and a 16-byte payload. */
export function ksuidFrom(unixSeconds: number, payload: Uint8Array): string {
  if (payload.length !== 16) throw new RangeError("a KSUID payload is 16 bytes");
  let value = BigInt(Math.floor(unixSeconds) - KSUID_EPOCH_SECONDS);
  if (value < 0n || value > 0xffffffffn) throw new RangeError("time outside the KSUID range");
  for (const byte of payload) value = (value << 8n) | BigInt(byte);
  let out = "";
  while (value > 0n) {
    out = BASE62[Number(value % 62n)] + out;
    value /= 62n;
  }
  return out.padStart(KSUID_LENGTH, "0");
}

/** A new run id: a KSUID for now, with a random payload. */
export function newRunId(now: Date = new Date()): string {
  return ksuidFrom(now.getTime() / 1000, randomBytes(16));
}
