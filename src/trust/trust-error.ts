// The errors of signing and verifying: a keyring that cannot be used, or a decision that
// cannot be signed where no key is configured. Separate codes so the CLI can name the fix.
import { FiskError } from "../errors/fisk-error.js";

/**
 * - `ERR_NO_SIGNING_KEY`: a decision must be signed and no key is configured (a shared store,
 *   or `FISK_AI_SIGNING_KEYS` naming a file that does not exist).
 * - `ERR_SIGNING_KEYS`: the keyring file cannot be used: not JSON of the documented shape, or
 *   readable by others than its owner.
 * - `ERR_UNSIGNABLE`: what a decision signs has no canonical encoding (a lone surrogate in the call's input).
 * - `ERR_IMPORT_REFUSED`: an imported child session whose parent link does not hold (session/import-checks.ts).
 */
export type TrustErrorCode = "ERR_NO_SIGNING_KEY" | "ERR_SIGNING_KEYS" | "ERR_UNSIGNABLE" | "ERR_IMPORT_REFUSED";

/** Signing keys missing or unusable: one line saying which file and what to do. */
export class TrustError extends FiskError<TrustErrorCode> {
  /** Always `"TrustError"`. */
  override readonly name = "TrustError";
}
