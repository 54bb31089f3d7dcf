// Whether a session is this installation's own or foreign (docs/security.md). What a
// resume trusts of a session's meta (where its tools run, which agent.yaml it loads) is
// signed when the session starts. A meta whose signature does not verify is foreign; so
// is an unsigned one that came in by `session import`, or one on a shared store once this
// installation has keys (any writer of the store could have made it). An unsigned meta on
// the user's own file store is a session of before keys: their own, so it stays resumable.
import type { ImportedPayload, MetaPayload } from "../runstate/records/records.js";
import type { InstallationKeys } from "./installation-keys.js";
import { metaSignatureProblem } from "./signatures.js";

/** Why the session is foreign, or undefined when it is this installation's own. */
export function foreignReason(meta: MetaPayload, imported: ImportedPayload | undefined, keys: InstallationKeys): string | undefined {
  if (meta.signature !== undefined) return metaSignatureProblem(keys.trusted, meta);
  if (imported !== undefined) return `it was imported from ${imported.file} by ${imported.by} at ${imported.imported_at}, and its meta is not signed`;
  if (keys.shared && keys.trusted.keys.size > 0) return "its meta is not signed, and any writer of this shared store could have written it";
  return undefined;
}
