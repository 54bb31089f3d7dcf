// A backend is a bundle: the store sessions are kept in and, when the backend has one, the
// queue submitted runs wait in beside them. The worker pool asks the bundle for its queue,
// never the store's class, so a backend written outside fisk-ai gets workers too.
import type { NoteStore } from "../memory/note-store.js";
import type { RunQueue } from "../queue/run-queue.js";
import type { Store } from "../runstate/store/store.js";

/** What a backend gives: its store, and its queue where it has one (without one, no workers and no `submit`). */
export interface Backend {
  /** Where sessions are kept. */
  readonly store: Store;
  /** Where submitted runs wait for a worker; absent for a backend without one. */
  readonly queue?: RunQueue;
  /** The memory notes of a namespace, kept beside the sessions; absent: notes are files (memoryDir), as for the file store. */
  notes?(namespace: string): NoteStore;
}

/** What opening a backend may be given besides its URL. */
export interface BackendOptions {
  /** Where a server backend reports its comings and goings, one line each; the library never prints. */
  report?: ((line: string) => void) | undefined;
}

/**
 * Opens the backend a store URL names (`registerBackend`): the URL is parsed, its scheme
 * registered; credentials, if the URL holds any, are the factory's to use and never to repeat.
 */
export type BackendFactory = (url: URL, options: BackendOptions) => Promise<Backend>;
