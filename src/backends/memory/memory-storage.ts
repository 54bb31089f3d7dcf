// What MemoryStores keep their runs in. One storage may back several stores, as one
// directory backs several processes; the package exports neither it nor its runs.
import type { RunHolder } from "../../runstate/store/run-holder.js";

/** One run as a MemoryStore keeps it. */
export interface MemoryRun {
  /** Journal lines, each ending in "\n", exactly as a file journal holds them. */
  lines: string[];
  /** When the run was last written. */
  updated: Date;
  /** Set while a journal of this run is open. */
  holder?: RunHolder;
}

/** The runs, by id, of every MemoryStore made on them. */
export class MemoryStorage {
  readonly runs = new Map<string, MemoryRun>();
  /** Asked before each journal write: while it says so, the write fails as a full disk fails it. */
  failing: () => boolean = () => false;
  /** Told of each run whose journal was written: a memory queue's watches hear records this way. */
  readonly written = new Set<(runId: string) => void>();
}

/** Each store's storage, for memory-seams.ts: the store's own field is private. */
const storages = new WeakMap<object, MemoryStorage>();

export function registerStorage(store: object, storage: MemoryStorage): void {
  storages.set(store, storage);
}

/** The storage of a MemoryStore this copy of the module made; a TypeError for anything else. */
export function storageOf(store: object): MemoryStorage {
  const storage = storages.get(store);
  if (storage === undefined) throw new TypeError("not a MemoryStore");
  return storage;
}
