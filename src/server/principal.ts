// Who a request speaks for, and the one seam the server asks about it. The server knows
// roles and tenants, never keys: an Authenticate (API keys, a program's own sessions)
// turns a request into a Principal, and every route names the role it needs.
import { DEFAULT_TENANT } from "../runstate/store/tenant.js";

/** What a principal may do: read sessions, start and follow up runs, decide parked calls, administer the service. */
export type Role = "read" | "run" | "approve" | "admin";

/** Every role, in the order of the docs. */
export const ROLES: readonly Role[] = ["read", "run", "approve", "admin"];

/** Who a request speaks for: a name journaled as the decider of its decisions, its tenant, its roles. */
export interface Principal {
  /** Journaled where it acts (a decision's `decided_by`). */
  name: string;
  /** The sessions it sees: its tenant's only. */
  tenant: string;
  /** What it may do. */
  roles: ReadonlySet<Role>;
}

/** Turns a request into its principal; undefined is an unauthenticated request (401). */
export type Authenticate = (request: Request) => Promise<Principal | undefined>;

/** The principal of a server on loopback without keys: the local user, every role, the default tenant. */
export const LOCAL_PRINCIPAL: Principal = Object.freeze({ name: "local", tenant: DEFAULT_TENANT, roles: new Set(ROLES) });

/** An Authenticate that lets every request in as the local principal. */
export const localOnly: Authenticate = async () => LOCAL_PRINCIPAL;
