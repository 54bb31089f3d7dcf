// Memory: durable notes a model keeps across runs, behind a small seam so a file
// backend today and a JetStream KV backend later keep the same rules. Named NoteStore
// so it cannot be taken for the run store's in-memory backend. Memory is data, not
// configuration: it never enters the fingerprint, so it can never block a resume.
import { FiskError } from "../errors/fisk-error.js";

/** A note as listed: its key and description, without its content. */
export interface NoteItem {
  /** The note's key: letters, digits and `. _ = -`, no leading or trailing dot, no `..`. */
  key: string;
  /** One line, shown in the memory index and by memory_list. */
  description: string;
}

/** A note's description and content. */
export interface Note {
  /**
   * One line saying what the note holds. A write needs a non-empty one, stored as one line
   * (control characters and runs of space become one space, at most 500 characters); a
   * note read from a file without front matter has `""`.
   */
  description: string;
  /** The note's body, kept exactly as written: at most 64 KiB of UTF-8. */
  content: string;
}

/** What a write did: the same value written again changes nothing. */
export type WriteOutcome = "created" | "replaced" | "unchanged";

/**
 * Durable notes kept across runs, per namespace: the seam of memory. FileNoteStore is the
 * file backend; a backend of your own proves itself with runNoteStoreConformance from
 * `fisk-ai/conformance`. A bad key or note is refused with a NoteError.
 */
export interface NoteStore {
  /** Every note's key and description, sorted by key. */
  list(): Promise<NoteItem[]>;
  /** The note, or undefined when there is none under the key. */
  read(key: string): Promise<Note | undefined>;
  /**
   * Stores a note. Without overwrite an existing different note is refused with
   * ERR_EXISTS; the same note again is `unchanged` either way, because a crash-resume
   * runs a write whose result never reached the journal a second time.
   */
  write(key: string, note: Note, overwrite: boolean): Promise<WriteOutcome>;
  /** Whether a note was removed; removing an absent key is not an error. */
  delete(key: string): Promise<boolean>;
}

/**
 * What a NoteError is about: `ERR_INVALID_KEY` a key outside the rules; `ERR_INVALID_NOTE`
 * a note without a description, with content over 64 KiB, or stored as something other than
 * a regular file; `ERR_EXISTS` a write without overwrite over a different note;
 * `ERR_FULL` a new note in a store that holds 1024 already.
 */
export type NoteErrorCode = "ERR_INVALID_KEY" | "ERR_INVALID_NOTE" | "ERR_EXISTS" | "ERR_FULL";

/**
 * A note operation the rules refuse, with a stable `code` and a one-line message. The
 * memory tools hand it to the model as an is_error result, for the model to fix.
 */
export class NoteError extends FiskError<NoteErrorCode> {
  /** Always `"NoteError"`. */
  override readonly name = "NoteError";
  constructor(code: NoteErrorCode, message: string) {
    super(code, message);
  }
}

export const MAX_KEY_LENGTH = 200;
export const MAX_DESCRIPTION_LENGTH = 500;
export const MAX_CONTENT_BYTES = 64 * 1024;
/** Bounds the index added to every system prompt, and a model that writes without end. */
export const MAX_NOTES = 1024;

const KEY = /^[A-Za-z0-9._=-]+$/;

/** Why a key is refused, or undefined for a good one: legal as a file name and as a NATS KV key. */
export function keyProblem(key: string): string | undefined {
  if (key.length === 0) return "a note key must not be empty";
  if (key.length > MAX_KEY_LENGTH) return `a note key is at most ${MAX_KEY_LENGTH} characters`;
  if (!KEY.test(key)) return `note key ${JSON.stringify(key)} may only hold letters, digits and . _ = -`;
  if (key.startsWith(".") || key.endsWith(".")) return `note key ${JSON.stringify(key)} must not start or end with a dot`;
  if (key.includes("..")) return `note key ${JSON.stringify(key)} must not contain ".."`;
  return undefined;
}

export function checkKey(key: string): void {
  const problem = keyProblem(key);
  if (problem !== undefined) throw new NoteError("ERR_INVALID_KEY", problem);
}

/** Checks a write against the rules every backend shares, and returns the note to store. */
export function checkWrite(key: string, note: Note): Note {
  checkKey(key);
  const description = oneLine(note.description);
  if (description === "") throw new NoteError("ERR_INVALID_NOTE", "a note needs a description: one line saying what it holds");
  const size = Buffer.byteLength(note.content, "utf8");
  if (size > MAX_CONTENT_BYTES) {
    throw new NoteError("ERR_INVALID_NOTE", `note ${key} is ${size} bytes; a note holds at most ${MAX_CONTENT_BYTES} bytes`);
  }
  return { description, content: note.content };
}

/** Refuses a new key once a store holds MAX_NOTES. */
export function checkRoom(count: number): void {
  if (count >= MAX_NOTES) {
    throw new NoteError("ERR_FULL", `memory is full: ${count} notes, the limit is ${MAX_NOTES}; delete one before creating another`);
  }
}

/** ERR_EXISTS: a write without overwrite over a different note. */
export function noteExistsError(key: string): NoteError {
  return new NoteError("ERR_EXISTS", `a different note ${key} exists: read it, then write with overwrite to replace it`);
}

/**
 * What a write of `checked` over `existing` (the note under `key` now, if any) is to do, by
 * the rules every backend shares: nothing for the same note, ERR_EXISTS over a different one
 * without `overwrite`, ERR_FULL for a new key when `count()` (the notes kept) leaves no room.
 */
export async function plannedWrite(
  key: string,
  existing: Note | undefined,
  checked: Note,
  overwrite: boolean,
  count: () => Promise<number>,
): Promise<WriteOutcome> {
  if (existing === undefined) {
    checkRoom(await count());
    return "created";
  }
  if (sameNote(existing, checked)) return "unchanged";
  if (!overwrite) throw noteExistsError(key);
  return "replaced";
}

/** Whether two notes are the same: a write of one over the other changes nothing. */
export function sameNote(a: Note, b: Note): boolean {
  return a.description === b.description && a.content === b.content;
}

/** Control characters become spaces and runs of space one, capped: a clean index line. */
function oneLine(text: string): string {
  const flat = text
    .replace(/[\u0000-\u001f\u007f]/g, " ")
    .split(/\s+/)
    .filter((word) => word !== "")
    .join(" ");
  return [...flat].slice(0, MAX_DESCRIPTION_LENGTH).join("");
}
