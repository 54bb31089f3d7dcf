// Tenants: whose a session is, on a store a service shares between several (docs/server.md).
// A session's tenant is its meta's, journaled and signed with it; a session without one,
// every session a terminal or a program started, is the default tenant's.
import { createHash } from "node:crypto";
import { RunStateError } from "../errors.js";
import { isValidRunId } from "../records/run-id.js";
import { RUN_ID_MAX_LENGTH, type MetaPayload } from "../records/records.js";

/** The tenant of every session whose meta names none. */
export const DEFAULT_TENANT = "default";

/** What a tenant's name may be: safe in a file, a subject, a log line and a hash's input. */
const TENANT_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Why `tenant` is no tenant's name, or undefined when it is one. */
export function tenantProblem(tenant: unknown): string | undefined {
  if (typeof tenant !== "string") return "not a string";
  return TENANT_PATTERN.test(tenant) ? undefined : "not 1 to 64 ASCII letters, digits, '.', '_' or '-', starting with a letter or digit";
}

/** The tenant a session belongs to, by its meta. */
export function tenantOf(meta: Pick<MetaPayload, "tenant">): string {
  return meta.tenant ?? DEFAULT_TENANT;
}

/** The meta's `tenant` field for a session of `tenant`: none for the default tenant, so its sessions are journaled as before. */
export function tenantField(tenant: string | undefined): { tenant?: string } {
  return tenant === undefined || tenant === DEFAULT_TENANT ? {} : { tenant };
}

/**
 * `tenant` checked for a new session's meta of record `version`: a name a tenant may have,
 * and not in version 3, the Go implementation's lines, which get no field it does not write.
 */
export function checkedTenant(tenant: string | undefined, version: number): string | undefined {
  if (tenant === undefined || tenant === DEFAULT_TENANT) return undefined;
  const problem = tenantProblem(tenant);
  if (problem !== undefined) throw new RunStateError("ERR_INVALID_RECORD", `the tenant ${JSON.stringify(tenant.slice(0, 80))} is ${problem}`);
  if (version === 3) {
    throw new RunStateError(
      "ERR_INVALID_RECORD",
      `a session of tenant ${tenant} cannot be journaled in record version 3, which has no tenant: use the default version`,
    );
  }
  return tenant;
}

/** The longest name a client may give a session: its id is the name and a hash after it, within RUN_ID_MAX_LENGTH. */
export const SESSION_NAME_MAX_LENGTH = RUN_ID_MAX_LENGTH - 25;

/** The tail tenantRunId puts after a name of a tenant other than the default. */
const NAME_HASH_TAIL = /-[0-9a-f]{24}$/;

/**
 * The id of the session a client of `tenant` names `name`. The default tenant's is the name
 * itself, as a terminal's `--name` is; any other tenant's is the name, `-`, and 24 hex digits
 * of a SHA-256 of the tenant and the name. So two tenants' sessions of the same name have
 * different ids, and creating one never finds the other's (which an ERR_EXISTS would tell);
 * a default-tenant name that ends as those ids do is refused, so that tenant cannot probe
 * the others' either. A server takes every id a client chooses through this: none straight
 * from a request. ERR_INVALID_ID for a name that is not a session id's first part.
 */
export function tenantRunId(tenant: string, name: string): string {
  const invalid = (why: string) => new RunStateError("ERR_INVALID_ID", `invalid session name ${JSON.stringify(name.slice(0, 40))}: ${why}`);
  if (name.length > SESSION_NAME_MAX_LENGTH || !isValidRunId(name)) {
    throw invalid(`use 1 to ${SESSION_NAME_MAX_LENGTH} ASCII letters, digits, '_' or '-', starting with a letter or digit`);
  }
  if (tenant === DEFAULT_TENANT) {
    if (NAME_HASH_TAIL.test(name)) throw invalid("a name may not end in '-' and 24 hex digits, the form of other tenants' session ids");
    return name;
  }
  const hash = createHash("sha256").update(`fisk-ai session name\n${tenant}\n${name}`).digest("hex").slice(0, 24);
  return `${name}-${hash}`;
}
