// The JetStream backend's bundle: the store on its stream and the work-queue stream beside it.
import { JetStreamQueue } from "./jetstream-queue.js";
import { connectJetStreamStore } from "./jetstream-store.js";
import type { Backend } from "../backend.js";
import type { JetStreamStoreConfig } from "../store-config.js";

/** Connects to the stream `config` names; the queue shares the store's connection. */
export async function openJetStreamBackend(config: JetStreamStoreConfig): Promise<Backend> {
  const store = await connectJetStreamStore(config);
  return { store, queue: new JetStreamQueue(store) };
}
