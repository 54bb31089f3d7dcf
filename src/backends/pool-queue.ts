// The worker pool's queue is its backend's: a bundle without one has no workers.
import type { RunQueue } from "../queue/run-queue.js";
import { RunStateError } from "../runstate/errors.js";
import type { Store } from "../runstate/store/store.js";
import type { Backend } from "./backend.js";

/**
 * The store and queue of the backend `opened` resolves to, for the worker pool (a worker,
 * `submitRun`); ERR_STORE_CONFIG for a backend without a queue, whose store is closed then.
 */
export async function poolBackend(opened: Promise<Backend>): Promise<{ store: Store; queue: RunQueue }> {
  const { store, queue } = await opened;
  if (queue !== undefined) return { store, queue };
  await store.close();
  throw new RunStateError(
    "ERR_STORE_CONFIG",
    "the worker pool needs a backend with a queue: sessions kept in files (--state-dir DIR), on NATS JetStream (--store nats://HOST:PORT/STREAM), in Postgres (--store postgres://USER@HOST/DATABASE), or a registered backend that has one: this one has none",
  );
}

/** Closes what a bundle holds: its queue (and the watches on it), then its store. */
export async function closeBackend(backend: Backend): Promise<void> {
  try {
    await backend.queue?.close();
  } finally {
    await backend.store.close();
  }
}
