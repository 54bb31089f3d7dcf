// The one parser of store names, which `--store`, `--state-dir`, `session mv --to` and
// agent.yaml's session block all go through: `SCHEME://...` is a URL whose scheme must be
// registered (a `postgres://` nobody registered is refused, not taken for a directory),
// anything else is a file store's directory.
import { resolve } from "node:path";
import { BackendError, storeUrlError } from "./backend-errors.js";
import { maskUrlCredentials } from "../errors/masked-url.js";
import { registeredSchemes, registrationOf } from "./registry.js";
import type { StoreConfig } from "./store-config.js";
import { schemeOf } from "./url-form.js";

/**
 * The store `text` names: a URL of a registered scheme as its backend reads it, else a
 * directory (relative to `base`) as a file store. ERR_UNKNOWN_SCHEME for a scheme no backend
 * has, ERR_STORE_URL for a URL not of its backend's form; messages mask any password.
 */
export function parseStoreUrl(text: string, base: string = process.cwd()): StoreConfig {
  const scheme = schemeOf(text);
  if (scheme === undefined) {
    if (text === "") throw new BackendError("ERR_STORE_URL", "an empty store name: give a directory or a URL such as nats://HOST:PORT/STREAM");
    return { backend: "file", dir: resolve(base, text) };
  }
  const registration = registrationOf(scheme);
  if (registration === undefined) {
    const known = registeredSchemes()
      .map((name) => `${name}://`)
      .join(", ");
    throw new BackendError(
      "ERR_UNKNOWN_SCHEME",
      `store ${JSON.stringify(maskUrlCredentials(text))}: no backend for ${scheme.toLowerCase()}:// (registered: ${known}; a program adds one with registerBackend)`,
    );
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw storeUrlError(text, `a URL (${scheme.toLowerCase()}://...)`);
  }
  return registration.read(url, text);
}
