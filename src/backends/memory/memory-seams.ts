// What this package's tests change in a MemoryStore, as fileStoreWithSeams does for
// files: planting journal lines that no journal wrote, and writes that fail. The package
// does not export this module, so neither is part of the public API.
import { MemoryStore } from "./memory-store.js";
import { storageOf } from "./memory-storage.js";

/** Puts `lines` (each ending in "\n") as the journal of `runId` in `store`'s storage, bypassing every check. */
export function plantRaw(store: MemoryStore, runId: string, lines: string[]): void {
  storageOf(store).runs.set(runId, { lines: [...lines], updated: new Date() });
}

/** A fresh MemoryStore whose journal writes fail, as a full disk fails them, while `failing()` says so. */
export function memoryStoreWithFailingWrites(failing: () => boolean): MemoryStore {
  const store = new MemoryStore();
  storageOf(store).failing = failing;
  return store;
}
