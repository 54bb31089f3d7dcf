// The errors of the service's authentication: a key file that cannot be used.
import { FiskError } from "../../errors/fisk-error.js";

/**
 * - `ERR_KEY_FILE`: the key file cannot be used: missing, not a regular file, writable by
 *   others than its owner, not JSON, or an entry with a field that is wrong (named with the entry).
 */
export type AuthErrorCode = "ERR_KEY_FILE";

/** A key file that cannot be used: one line naming the file, the entry and the field, and what to do. */
export class AuthError extends FiskError<AuthErrorCode> {
  /** Always `"AuthError"`. */
  override readonly name = "AuthError";
}
