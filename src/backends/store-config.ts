// A store named as data: the typed settings of the backends fisk-ai ships, or the URL of
// any registered backend. parseStoreUrl turns what a person types into one of these.
import type { JetStreamStoreConfig } from "./jetstream/connection.js";
import type { PostgresStoreConfig } from "./postgres/postgres-url.js";

export type { JetStreamStoreConfig, PostgresStoreConfig };

/** The file backend: one journal file a session, in a directory. */
export interface FileStoreConfig {
  /** Selects the file backend. */
  backend: "file";
  /** The directory of runs; default `$XDG_STATE_HOME/fisk-ai/runs` (else `~/.local/state/fisk-ai/runs`), see defaultStateDir. */
  dir?: string | undefined;
}

/** The in-process backend: runs live as long as the store, without persistence. */
export interface MemoryStoreConfig {
  /** Selects the memory backend. */
  backend: "memory";
}

/** A store any registered backend keeps, named by its URL: the URL's scheme selects the backend (registerBackend). */
export interface UrlStoreConfig {
  /** Absent: the URL's scheme names the backend. */
  backend?: undefined;
  /** The store's URL; it may hold credentials, which are never shown (maskUrlCredentials). */
  url: string;
}

/** A store configuration for openBackend and createStore: `backend` names a built-in backend, `url` any registered one. */
export type StoreConfig = FileStoreConfig | MemoryStoreConfig | JetStreamStoreConfig | PostgresStoreConfig | UrlStoreConfig;
