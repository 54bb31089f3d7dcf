// Tenants: whose a session is, on a store a service shares between several (docs/server.md).
// A session's tenant is its meta's, journaled and signed with it; a session without one,
// every session a terminal or a program started, is the default tenant's.
import type { MetaPayload } from "../records/records.js";

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
