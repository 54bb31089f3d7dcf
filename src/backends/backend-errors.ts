// The errors of naming a store: a scheme no backend is registered for, a URL not of its
// backend's form, a scheme registered twice. A store URL may hold a password, so every
// message shows the URL masked.
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
  override readonly name = "BackendError";
}

/** Query parameters that carry a secret in the URLs of common servers. */
const SECRET_PARAMS = /^(pass|password|passwd|pwd|token|secret|key|creds|credentials|sslpassword)$/i;

/** `text` with the password of its user part and any secret query parameter replaced by `***`: safe to show. */
export function maskUrl(text: string): string {
  const masked = text.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^/?#]*)@/, (_match, scheme: string, user: string) => {
    const colon = user.indexOf(":");
    return `${scheme}${colon === -1 ? user : `${user.slice(0, colon)}:***`}@`;
  });
  return masked.replace(/([?&])([^=&#]+)=([^&#]*)/g, (match, sep: string, name: string) => (SECRET_PARAMS.test(name) ? `${sep}${name}=***` : match));
}

/** ERR_STORE_URL: `text` is not of the form `form`. */
export function storeUrlError(text: string, form: string): BackendError {
  return new BackendError("ERR_STORE_URL", `store ${JSON.stringify(maskUrl(text))}: expected ${form}`);
}
