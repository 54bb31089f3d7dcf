// The memory backend's bundle: a store of this process alone.
import { MemoryStore } from "../../runstate/backends/memory/memory-store.js";
import type { Backend } from "../backend.js";

/** A new, empty in-process store. */
export function openMemoryBackend(): Backend {
  return { store: new MemoryStore() };
}
