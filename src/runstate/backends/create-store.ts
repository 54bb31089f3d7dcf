// The backend registry: the CLI and library users name a backend in configuration and
// never a class. A backend's code is imported only when it is chosen, so start-up does
// not pay for clients of backends nobody uses.
import type { JetStreamStoreConfig } from "./jetstream/connection.js";
import type { Store } from "../store/store.js";

export type { JetStreamStoreConfig };

/** The file backend: one journal file a session, in a directory. */
export interface FileStoreConfig {
  /** Selects the file backend. */
  backend: "file";
  /** The directory of runs; default `$XDG_STATE_HOME/fisk-ai/runs` (else `~/.local/state/fisk-ai/runs`), see defaultStateDir. */
  dir?: string;
}

/** The in-process backend: runs live as long as the store, without persistence. */
export interface MemoryStoreConfig {
  /** Selects the memory backend. */
  backend: "memory";
}

/** A store configuration for createStore; `backend` names which. */
export type StoreConfig = FileStoreConfig | MemoryStoreConfig | JetStreamStoreConfig;

type Backends = { [Name in StoreConfig["backend"]]: (config: Extract<StoreConfig, { backend: Name }>) => Promise<Store> };

const BACKENDS: Backends = {
  file: async (config) => new (await import("./file/file-store.js")).FileStore({ dir: config.dir }),
  memory: async () => new (await import("./memory/memory-store.js")).MemoryStore(),
  jetstream: async (config) => (await import("./jetstream/jetstream-store.js")).connectJetStreamStore(config),
};

/**
 * The store a configuration names; a name that is not a backend is one line saying which are.
 * `report` gets a server backend's comings and goings, one line each (in place of the config's own).
 */
export function createStore(config: StoreConfig, report?: (line: string) => void): Promise<Store> {
  const backend = Object.hasOwn(BACKENDS, config.backend) ? BACKENDS[config.backend] : undefined;
  if (backend === undefined) {
    return Promise.reject(new TypeError(`unknown session backend ${JSON.stringify(config.backend)}: use one of ${Object.keys(BACKENDS).join(", ")}`));
  }
  const reporting = report !== undefined && config.backend === "jetstream" ? { ...config, report } : config;
  return (backend as (config: StoreConfig) => Promise<Store>)(reporting);
}
