// Who a request speaks for: a client checks its key with it, and the console reads the CSRF
// token its sign-in's requests carry.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { ConsoleTickets } from "../console/console-tickets.js";
import { meOf } from "../console/console-routes.js";
import type { ServerEnv } from "../server-context.js";
import { route } from "./route.js";

const Me = z
  .object({
    name: z.string(),
    tenant: z.string(),
    roles: z.array(z.enum(["read", "run", "approve", "admin"])),
    csrf: z.string().openapi({ description: "the x-csrf-token a console sign-in's requests carry; empty for a request with an API key" }),
  })
  .openapi("Me");

const me = route("read", {
  method: "get",
  path: "/v1/me",
  summary: "who the request speaks for: name, tenant and roles",
  responses: { 200: { content: { "application/json": { schema: Me } }, description: "the principal" } },
});

export function meRoute(app: OpenAPIHono<ServerEnv>, tickets: ConsoleTickets | undefined): void {
  app.openapi(me, (c) => {
    const principal = c.get("principal");
    const answer =
      tickets === undefined ? { name: principal.name, tenant: principal.tenant, roles: [...principal.roles], csrf: "" } : meOf(tickets, c.req.raw, principal);
    return c.json(answer, 200);
  });
}
