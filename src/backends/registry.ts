// The one registry of backends, keyed by the scheme of a store URL. fisk-ai's own backends
// are registered here like anyone's, their code imported only when chosen, so start-up does
// not pay for clients of backends nobody uses; a program adds its own with registerBackend.
import type { Backend, BackendFactory, BackendOptions } from "./backend.js";
import { BackendError } from "./backend-errors.js";
import { fileStoreOfUrl, jetStreamStoreOfUrl, memoryStoreOfUrl, postgresStoreOfUrl } from "./built-in-urls.js";
import type { StoreConfig } from "./store-config.js";

/** How the stores of one scheme are named and opened. */
export interface Registration {
  /** The configuration a URL of the scheme names, checked before anything is opened; `text` is the URL as given, for errors. */
  read(url: URL, text: string): StoreConfig;
  /** Opens the bundle `config` names. */
  open(config: StoreConfig, options: BackendOptions): Promise<Backend>;
  /** Whether its bundle may keep memory notes (Backend.notes): only then is it opened for them. */
  keepsNotes?: boolean;
}

/** The built-in backends by the name their typed configuration gives (StoreConfig's `backend`). */
const BUILT_IN = {
  file: {
    read: fileStoreOfUrl,
    open: async (config) => (await import("./file/file-backend.js")).openFileBackend(config as Extract<StoreConfig, { backend: "file" }>),
  },
  memory: {
    read: memoryStoreOfUrl,
    open: async () => (await import("./memory/memory-backend.js")).openMemoryBackend(),
  },
  jetstream: {
    read: jetStreamStoreOfUrl,
    open: async (config, { report }) => {
      const { openJetStreamBackend } = await import("./jetstream/jetstream-backend.js");
      const jetstream = config as Extract<StoreConfig, { backend: "jetstream" }>;
      return openJetStreamBackend(report === undefined ? jetstream : { ...jetstream, report });
    },
  },
  postgres: {
    read: postgresStoreOfUrl,
    open: async (config, { report }) =>
      (await import("./postgres/postgres-backend.js")).openPostgresBackend(config as Extract<StoreConfig, { backend: "postgres" }>, report),
    keepsNotes: true,
  },
} satisfies Record<string, Registration>;

const registry = new Map<string, Registration>([
  ["file", BUILT_IN.file],
  ["memory", BUILT_IN.memory],
  ["nats", BUILT_IN.jetstream],
  ["tls", BUILT_IN.jetstream],
  ["postgres", BUILT_IN.postgres],
  ["postgresql", BUILT_IN.postgres],
]);

/** A scheme as registered: lower case, without the colon. */
function schemeKey(scheme: string): string {
  return scheme.toLowerCase().replace(/:$/, "");
}

/**
 * Registers the backend that keeps the stores of URLs of `scheme` (`"postgres"` for
 * `postgres://...`): from then on `openBackend`, the CLI's `--store` and agent.yaml's
 * `session.url` reach it, and the worker pool uses its queue. ERR_SCHEME_TAKEN for a
 * scheme already registered (fisk-ai's own: file, memory, nats, tls, postgres, postgresql).
 */
export function registerBackend(scheme: string, factory: BackendFactory): void {
  const key = schemeKey(scheme);
  if (!/^[a-z][a-z0-9+.-]*$/.test(key))
    throw new BackendError("ERR_STORE_URL", `${JSON.stringify(scheme)} is not a URL scheme: letters, digits, '+', '.' and '-', starting with a letter`);
  if (registry.has(key)) throw new BackendError("ERR_SCHEME_TAKEN", `a backend for ${key}:// is registered already`);
  registry.set(key, {
    read: (url) => ({ url: url.href }),
    open: (config, options) => factory(new URL((config as Extract<StoreConfig, { url: string }>).url), options),
    // Whether an outside bundle has notes is known once it is open.
    keepsNotes: true,
  });
}

/** The registration of `scheme`, or undefined when no backend has it. */
export function registrationOf(scheme: string): Registration | undefined {
  return registry.get(schemeKey(scheme));
}

/** The registration a configuration names: its URL's scheme, or the built-in backend it names. */
export function registrationFor(config: StoreConfig): Registration | undefined {
  if (config.backend === undefined) return registrationOf(new URL(config.url).protocol);
  return Object.hasOwn(BUILT_IN, config.backend) ? BUILT_IN[config.backend] : undefined;
}

/** Every scheme registered, for messages that say which there are. */
export function registeredSchemes(): string[] {
  return [...registry.keys()];
}
