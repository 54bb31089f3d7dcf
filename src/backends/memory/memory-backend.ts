// The memory backend's bundle: a store of this process alone, and its queue, so the worker
// pool runs in-process in tests and examples.
import type { Backend } from "../backend.js";
import { MemoryQueue } from "./memory-queue.js";
import { MemoryStore } from "./memory-store.js";

/** A new, empty in-process store and its queue. */
export function openMemoryBackend(): Backend {
  const store = new MemoryStore();
  return { store, queue: new MemoryQueue({ store }) };
}
