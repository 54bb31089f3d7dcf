// The URL forms of the backends fisk-ai ships, read without loading any backend's code:
// a directory (or file:///DIR), memory://, nats://HOST:PORT/STREAM (tls:// alike), and
// postgres://USER@HOST:PORT/DATABASE?schema=NAME (postgresql:// alike).
import { fileURLToPath } from "node:url";
import { storeUrlError } from "./backend-errors.js";
import { POSTGRES_FORM, postgresUrlProblem } from "./postgres/postgres-url.js";
import type { FileStoreConfig, JetStreamStoreConfig, MemoryStoreConfig, PostgresStoreConfig } from "./store-config.js";

const NATS_FORM = "nats://HOST:PORT/STREAM (credentials go in NATS_CREDS, NATS_USER/NATS_PASSWORD or NATS_TOKEN, never in the URL)";

/** `file:///DIR`: the file store in DIR. */
export function fileStoreOfUrl(url: URL, text: string): FileStoreConfig {
  try {
    return { backend: "file", dir: fileURLToPath(url) };
  } catch {
    throw storeUrlError(text, "file:///DIR (an absolute directory), or the directory itself");
  }
}

/** `memory://`: a store of this process alone. */
export function memoryStoreOfUrl(url: URL, text: string): MemoryStoreConfig {
  if (url.host !== "" || (url.pathname !== "" && url.pathname !== "/") || url.search !== "") {
    throw storeUrlError(text, "memory:// (the in-process store takes nothing after it)");
  }
  return { backend: "memory" };
}

/** `nats://HOST:PORT/STREAM` or `tls://...`: a JetStream store; credentials in the URL are refused, never echoed. */
export function jetStreamStoreOfUrl(url: URL, text: string): JetStreamStoreConfig {
  const stream = url.pathname.slice(1);
  if (url.host === "" || !/^[A-Za-z0-9_-]+$/.test(stream) || url.username !== "" || url.password !== "" || url.search !== "") {
    throw storeUrlError(text, NATS_FORM);
  }
  return { backend: "jetstream", servers: `${url.protocol}//${url.host}`, stream };
}

/** `postgres://USER@HOST:PORT/DATABASE?schema=NAME`: a Postgres store; the driver reads the URL, the PG* variables fill in the rest. */
export function postgresStoreOfUrl(url: URL, text: string): PostgresStoreConfig {
  if (postgresUrlProblem(url) !== undefined) throw storeUrlError(text, POSTGRES_FORM);
  return { backend: "postgres", url: text };
}
