// The queue that goes with a store: the pool's runs wait beside the runs themselves.
import { RunStateError } from "../runstate/errors.js";
import { FileStore } from "../runstate/backends/file/file-store.js";
import { JetStreamStore } from "../runstate/backends/jetstream/jetstream-store.js";
import type { Store } from "../runstate/store/store.js";
import { FileQueue, fileQueueDir } from "./file-queue.js";
import { JetStreamQueue } from "./jetstream-queue.js";
import type { RunQueue } from "./run-queue.js";

/** The queue of `store`'s pool: `queue` in a file store's directory, a work-queue stream beside a JetStream store's. ERR_STORE_CONFIG for a store the pool cannot use. */
export function queueFor(store: Store): RunQueue {
  const queue = queueOf(store);
  if (queue !== undefined) return queue;
  throw new RunStateError(
    "ERR_STORE_CONFIG",
    "the worker pool needs sessions kept in files (session.backend: file, or --state-dir DIR) or on NATS JetStream (--store nats://HOST:PORT/STREAM): this store has no queue",
  );
}

/** The queue of `store`'s pool, or undefined for a store that has none. */
export function queueOf(store: Store): RunQueue | undefined {
  if (store instanceof FileStore) return new FileQueue({ dir: fileQueueDir(store.dir), store });
  if (store instanceof JetStreamStore) return new JetStreamQueue(store);
  return undefined;
}
