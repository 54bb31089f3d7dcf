// The file backend's bundle: the store's directory of journals and, inside it, the queue.
import { FileQueue, fileQueueDir } from "./file-queue.js";
import { FileStore } from "./file-store.js";
import type { Backend } from "../backend.js";
import type { FileStoreConfig } from "../store-config.js";

/** The file store `config` names, with its queue in `queue/` inside its directory. */
export function openFileBackend(config: FileStoreConfig): Backend {
  const store = new FileStore({ dir: config.dir });
  return { store, queue: new FileQueue({ dir: fileQueueDir(store.dir), store }) };
}
