// Quarantine: where a queue sets aside an entry it cannot trust (not a regular file, too
// large, not an entry, a run id that is not one or not the one it is kept under), so that
// no file anybody can write where the queue is kept stops the pool. What is set aside is
// kept, not deleted (it may be a user's mistake worth reading), until `fisk-ai queue rm
// NAME`; each is named in one line, where it is found and wherever the queue is listed.
import { RunStateError } from "../runstate/errors.js";

/** An entry a queue set aside. */
export interface QuarantinedEntry {
  /** Its name in the quarantine: what `fisk-ai queue rm` takes. Never a valid run id (it holds a `.`). */
  name: string;
  /** What is wrong with it, one line. */
  reason: string;
}

/** How much of an entry set aside is kept: enough to see what it was, with room left for JetStream's headers under its largest message. */
export const QUARANTINE_KEPT_BYTES = 64 * 1024;

/** Hears each entry a queue sets aside, once, in the process that set it aside. */
export type QuarantineListener = (entry: QuarantinedEntry) => void;

/** The listeners of one queue (RunQueue.onQuarantine). */
export class QuarantineListeners {
  readonly #listeners = new Set<QuarantineListener>();

  /** Adds a listener; returns the function that removes it. */
  add(listener: QuarantineListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Tells every listener of an entry set aside. */
  tell(entry: QuarantinedEntry): void {
    for (const listener of this.#listeners) listener(entry);
  }
}

/**
 * A name safe to print and to type, made of what `raw` held: every character but ASCII
 * letters, digits, `.`, `_` and `-` becomes `_`, and one with no `.` gets one, so that a
 * quarantined name is never a run id and `queue rm` cannot mistake one for the other.
 */
export function quarantineName(raw: string): string {
  const safe = raw.replace(/[^A-Za-z0-9._-]/g, "_").replace(/^\.+/, "_") || "_";
  return safe.includes(".") ? safe : `${safe}.bad`;
}

/** What is wrong with an entry set aside and how to remove it, for the line that names it. */
export function quarantineLine({ name, reason }: QuarantinedEntry): string {
  return `${reason} (fisk-ai queue rm ${name} removes it)`;
}

/** How many names a listing's one line about the quarantine shows before it counts the rest. */
const NAMES_SHOWN = 5;

/** One line for a listing of sessions: how many entries are set aside, the first few by name, and what to do. */
export function quarantineSummary(entries: readonly QuarantinedEntry[]): string {
  const names = entries.slice(0, NAMES_SHOWN).map((entry) => entry.name);
  const more = entries.length > NAMES_SHOWN ? ` and ${entries.length - NAMES_SHOWN} more` : "";
  const count = entries.length === 1 ? "1 queue entry" : `${entries.length} queue entries`;
  return `${count} set aside as bad: ${names.join(", ")}${more} (fisk-ai queue ls says why; fisk-ai queue rm NAME removes one)`;
}

/** ERR_NOT_FOUND: no entry of that name was set aside. */
export function notQuarantinedError(name: string): RunStateError {
  return new RunStateError("ERR_NOT_FOUND", `no queue entry ${JSON.stringify(name)} is queued or set aside (fisk-ai queue ls lists them)`);
}
