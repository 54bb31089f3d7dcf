// The two checks every route makes, each in one place: the role a route needs (403
// without it), and that a session is the principal's tenant's (another tenant's session
// is a 404, the same answer as one that does not exist, so ids cannot be probed).
import type { MiddlewareHandler } from "hono";
import { RunStateError } from "../runstate/errors.js";
import type { RunSummary } from "../runstate/store/store.js";
import { tenantOf } from "../runstate/store/tenant.js";
import type { Principal, Role } from "./principal.js";
import { ServerError } from "./problem.js";
import type { ServerContext, ServerEnv } from "./server-context.js";

/** Middleware refusing a principal without `role`. */
export function needs(role: Role): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    const principal = c.get("principal");
    if (!principal.roles.has(role)) throw new ServerError("ERR_FORBIDDEN", `this route needs the ${role} role, which ${principal.name} does not have`);
    await next();
  };
}

/** Whether a listed session is the principal's tenant's. */
export function visible(principal: Principal, summary: RunSummary): boolean {
  return summary.meta !== undefined && tenantOf(summary.meta) === principal.tenant;
}

/** The session `runId`'s summary when the principal may see it; ERR_NOT_FOUND when it does not exist or is another tenant's. */
export async function visibleSession(context: ServerContext, principal: Principal, runId: string): Promise<RunSummary> {
  const summary = await context.store.summarize(runId, { digest: false }).catch((error: unknown) => {
    throw error instanceof RunStateError && error.code === "ERR_NOT_FOUND" ? notFound(runId) : error;
  });
  if (!visible(principal, summary)) throw notFound(runId);
  return summary;
}

function notFound(runId: string): RunStateError {
  return new RunStateError("ERR_NOT_FOUND", `no session ${runId}`, { runId });
}
