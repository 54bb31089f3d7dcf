// The errors of naming a store: a scheme no backend is registered for, a URL not of its
// backend's form, a scheme registered twice. A store URL may hold a password, so every
// message shows the URL masked.
import { maskUrlCredentials } from "../errors/masked-url.js";
import { FiskError } from "../errors/fisk-error.js";

/**
 * Every BackendError `code`:
 * - `ERR_UNKNOWN_SCHEME`: the store URL's scheme names no registered backend.
 * - `ERR_STORE_URL`: the URL is not of the form its backend takes (the message says the form).
 * - `ERR_SCHEME_TAKEN`: registerBackend was given a scheme already registered.
 */
export type BackendErrorCode = "ERR_UNKNOWN_SCHEME" | "ERR_STORE_URL" | "ERR_SCHEME_TAKEN";

/** A store named wrongly; its message names the store with any password masked. */
export class BackendError extends FiskError<BackendErrorCode> {
  /** Always `BackendError`. */
  override readonly name = "BackendError";
}

/** ERR_STORE_URL: `text` is not of the form `form`. */
export function storeUrlError(text: string, form: string): BackendError {
  return new BackendError("ERR_STORE_URL", `store ${JSON.stringify(maskUrlCredentials(text))}: expected ${form}`);
}
