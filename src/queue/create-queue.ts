// The queue that goes with a store: the pool's runs wait beside the runs themselves.
import { RunStateError } from "../runstate/errors.js";
import { FileStore } from "../runstate/file/file-store.js";
import type { Store } from "../runstate/store.js";
import { FileQueue, fileQueueDir } from "./file-queue.js";
import type { RunQueue } from "./run-queue.js";

/** The queue of `store`'s pool: `queue` in a file store's directory. ERR_STORE_CONFIG for a store the pool cannot use. */
export function queueFor(store: Store): RunQueue {
  const queue = queueOf(store);
  if (queue !== undefined) return queue;
  throw new RunStateError("ERR_STORE_CONFIG", "the worker pool needs sessions kept in files (session.backend: file, or --state-dir DIR): this store has no queue");
}

/** The queue of `store`'s pool, or undefined for a store that has none. */
export function queueOf(store: Store): RunQueue | undefined {
  return store instanceof FileStore ? new FileQueue({ dir: fileQueueDir(store.dir), store }) : undefined;
}
