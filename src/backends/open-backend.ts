// Opening what a store name or configuration names, through the registry: the CLI, agent.yaml
// and library users all come here, and none names a backend's class.
import type { Store } from "../runstate/store/store.js";
import type { Backend, BackendOptions } from "./backend.js";
import { BackendError } from "./backend-errors.js";
import { registeredSchemes, registrationFor } from "./registry.js";
import type { StoreConfig } from "./store-config.js";
import { parseStoreUrl } from "./store-url.js";

/**
 * The backend a store URL (`nats://HOST:PORT/STREAM`, `memory://`, a registered scheme's),
 * a directory, or a configuration names: its store, and its queue where it has one.
 */
export async function openBackend(store: string | StoreConfig, options: BackendOptions = {}): Promise<Backend> {
  const config = typeof store === "string" ? parseStoreUrl(store) : store.backend === undefined ? parseStoreUrl(store.url) : store;
  const registration = registrationFor(config);
  if (registration === undefined) {
    // Only a configuration a program built can name a backend that is not there.
    throw new BackendError(
      "ERR_UNKNOWN_SCHEME",
      `unknown session backend ${JSON.stringify(config.backend)}: use one of file, memory, jetstream, postgres, or { url } with a registered scheme (${registeredSchemes().join(", ")})`,
    );
  }
  return registration.open(config, options);
}

/**
 * The store a configuration names (openBackend's store alone). `report` gets a server
 * backend's comings and goings, one line each.
 */
export async function createStore(config: StoreConfig, report?: (line: string) => void): Promise<Store> {
  return (await openBackend(config, report === undefined ? {} : { report })).store;
}
