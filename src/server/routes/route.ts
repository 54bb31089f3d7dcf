// A route as every route of the server is declared: the role it needs (checked before
// its input), its errors as problem+json, all in the OpenAPI document.
import { createRoute, type RouteConfig } from "@hono/zod-openapi";
import { needs } from "../access.js";
import type { Role } from "../principal.js";
import { PROBLEM_TYPE } from "../problem.js";
import { ProblemSchema } from "../schemas.js";

const PROBLEM = { content: { [PROBLEM_TYPE]: { schema: ProblemSchema } }, description: "a problem: its code says which (docs/server.md)" };

/** The problem responses every authenticated route may give. */
const PROBLEMS = {
  400: PROBLEM,
  401: PROBLEM,
  403: PROBLEM,
  404: PROBLEM,
  409: PROBLEM,
  410: PROBLEM,
  413: PROBLEM,
  415: PROBLEM,
  422: PROBLEM,
  503: PROBLEM,
} as const;

/** `config` as a route that needs `role`, its problems documented beside its own responses. */
export function route<const R extends Omit<RouteConfig, "middleware">>(role: Role, config: R) {
  return createRoute({
    ...config,
    middleware: [needs(role)] as const,
    description: `${config.description ?? ""}\n\nNeeds the \`${role}\` role.`.trim(),
    responses: { ...PROBLEMS, ...config.responses },
  });
}

/** A JSON body or response of `schema`. */
export const json = <T>(schema: T) => ({ "application/json": { schema } });
