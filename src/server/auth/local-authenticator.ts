// A loopback server without a key file: every request that passed hostGuard is the machine's
// own user, the default tenant's with every role, as the CLI on the same machine is.
import { DEFAULT_TENANT } from "../../runstate/store/tenant.js";
import { ROLES, type Authenticate, type Principal } from "../principal.js";

/** Authenticates every request as `name` (journaled as the decider), of the default tenant, with every role. */
export function localAuthenticator(name: string): Authenticate {
  const principal: Principal = Object.freeze({ name, tenant: DEFAULT_TENANT, roles: new Set(ROLES) });
  return async () => principal;
}
