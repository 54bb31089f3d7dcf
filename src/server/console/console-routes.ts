// The console's page and its sign-in: the page's three files, read once from the package
// (built into dist/console at build time: no CDN, nothing fetched at run time) and served
// with a Content-Security-Policy that runs no inline script; sign-in seals the posted key
// into the cookie, sign-out revokes it.
import { readFileSync } from "node:fs";
import type { Context, Hono } from "hono";
import { deleteCookie, setCookie } from "hono/cookie";
import type { Authenticate, Principal } from "../principal.js";
import { ServerError } from "../problem.js";
import type { ServerEnv } from "../server-context.js";
import { asBearer, COOKIE, CSRF_HEADER, ticketOf, TLS_COOKIE } from "./console-auth.js";
import type { ConsoleTickets, Ticket } from "./console-tickets.js";

/** What the page may load and do: its own files and the API, nothing inline, no frame around it. */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const FILES = {
  "/": { name: "index.html", type: "text/html; charset=utf-8" },
  "/console.js": { name: "console.js", type: "text/javascript; charset=utf-8" },
  "/console.css": { name: "console.css", type: "text/css; charset=utf-8" },
} as const;

/** The built console's directory in the package: dist/console beside dist/server. */
const BUILT = new URL("../../console/", import.meta.url);

export interface ConsoleOptions {
  tickets: ConsoleTickets;
  authenticate: Authenticate;
  /** Whether the server is reached over TLS (directly or through a proxy that says so): the cookie is then Secure. */
  secure: boolean;
}

function whoAmI(principal: Principal, csrf: string) {
  return { name: principal.name, tenant: principal.tenant, roles: [...principal.roles], csrf };
}

function setTicket(c: Context<ServerEnv>, sealed: string, ticket: Ticket, secure: boolean): void {
  setCookie(c, secure ? TLS_COOKIE : COOKIE, sealed, {
    httpOnly: true,
    secure,
    sameSite: "Strict",
    path: "/",
    expires: new Date(ticket.expires),
  });
}

export function consoleRoutes(app: Hono<ServerEnv>, options: ConsoleOptions): void {
  const { tickets, authenticate, secure } = options;
  for (const [path, file] of Object.entries(FILES)) {
    const body = readFileSync(new URL(file.name, BUILT));
    app.get(path, (c) =>
      c.body(body, 200, {
        "content-type": file.type,
        "content-security-policy": CONSOLE_CSP,
        "x-content-type-options": "nosniff",
        "referrer-policy": "no-referrer",
        "cache-control": "no-cache",
      }),
    );
  }

  app.post("/console/sign-in", async (c) => {
    // JSON only: a form on another site can post text/plain, never application/json without CORS.
    if (!(c.req.header("content-type") ?? "").startsWith("application/json")) throw new ServerError("ERR_UNSUPPORTED_MEDIA", "sign-in takes application/json");
    const body: unknown = await c.req.json().catch(() => undefined);
    const key = typeof body === "object" && body !== null ? (body as { key?: unknown }).key : undefined;
    if (typeof key !== "string" || key === "") throw new ServerError("ERR_BAD_REQUEST", 'sign-in takes {"key": "<your API key>"}');
    const principal = await authenticate(asBearer(c.req.raw, key));
    if (principal === undefined) throw new ServerError("ERR_UNAUTHENTICATED", "no key matches: check the key you were given");
    const { ticket, sealed } = tickets.issue(key);
    setTicket(c, sealed, ticket, secure);
    return c.json(whoAmI(principal, tickets.csrfOf(ticket)));
  });

  app.post("/console/sign-out", async (c) => {
    const ticket = ticketOf(tickets, c.req.raw);
    if (ticket !== undefined) {
      if (!tickets.csrfMatches(ticket, c.req.header(CSRF_HEADER))) throw new ServerError("ERR_FORBIDDEN", `sign-out needs the ${CSRF_HEADER} header`);
      await tickets.revoke(ticket);
    }
    deleteCookie(c, secure ? TLS_COOKIE : COOKIE, { path: "/", secure });
    return c.body(null, 204);
  });
}

/** `GET /v1/me`'s answer: who the request speaks for, and the CSRF token its cookie's requests carry ("" without one). */
export function meOf(tickets: ConsoleTickets, request: Request, principal: Principal) {
  const ticket = ticketOf(tickets, request);
  return whoAmI(principal, ticket === undefined ? "" : tickets.csrfOf(ticket));
}
