// The queue that goes with a store: the pool's runs wait beside the runs themselves.
import { RunStateError } from "../runstate/errors.js";
import { FileStore } from "../runstate/backends/file/file-store.js";
import type { Store } from "../runstate/store/store.js";
import { FileQueue, fileQueueDir } from "./file-queue.js";
import type { RunQueue } from "./run-queue.js";

/** The queue of `store`'s pool: `queue` in a file store's directory, a work-queue stream beside a JetStream store's. ERR_STORE_CONFIG for a store the pool cannot use. */
export async function queueFor(store: Store): Promise<RunQueue> {
  const queue = await queueOf(store);
  if (queue !== undefined) return queue;
  throw new RunStateError(
    "ERR_STORE_CONFIG",
    "the worker pool needs sessions kept in files (session.backend: file, or --state-dir DIR), on NATS JetStream (--store nats://HOST:PORT/STREAM) or in Postgres (--store postgres://USER@HOST/DATABASE): this store has no queue",
  );
}

/**
 * The queue of `store`'s pool, or undefined for a store that has none. The JetStream queue's
 * module (and the NATS client) is loaded only for a store that is not a file store.
 */
export async function queueOf(store: Store): Promise<RunQueue | undefined> {
  if (bringsItsQueue(store)) return store.runQueue();
  if (store instanceof FileStore) return new FileQueue({ dir: fileQueueDir(store.dir), store });
  const [{ JetStreamStore }, { JetStreamQueue }] = await Promise.all([
    import("../runstate/backends/jetstream/jetstream-store.js"),
    import("./jetstream-queue.js"),
  ]);
  return store instanceof JetStreamStore ? new JetStreamQueue(store) : undefined;
}

/** A store whose backend sits above this layer and makes its own queue (Postgres's). */
interface QueueingStore extends Store {
  runQueue(): RunQueue;
}

function bringsItsQueue(store: Store): store is QueueingStore {
  return typeof (store as Partial<QueueingStore>).runQueue === "function";
}
