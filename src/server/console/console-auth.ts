// The console's cookie in front of the server's own authenticate: a request with an
// Authorization header is a client's and goes through as it is; one with the console's
// cookie is the key sealed in it, authenticated the same way, and when it changes something it
// must carry the sign-in's CSRF token too (a cookie is sent by the browser on any site's
// request; the token only by the console's own page).
import type { Authenticate } from "../principal.js";
import { ServerError } from "../problem.js";
import type { ConsoleTickets, Ticket } from "./console-tickets.js";

/** The cookie holding a sealed ticket; `__Host-` where served over TLS (no Domain, Path=/, Secure). */
export const COOKIE = "fisk_console";
export const TLS_COOKIE = "__Host-fisk_console";
export const CSRF_HEADER = "x-csrf-token";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** The sealed ticket in a request's cookies, either name. */
export function sealedTicketOf(request: Request): string | undefined {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === COOKIE || name === TLS_COOKIE) return value.join("=");
  }
  return undefined;
}

/** A request carrying `key` as a client's bearer key, to authenticate it as the server does. */
export function asBearer(request: Request, key: string): Request {
  const headers = new Headers(request.headers);
  headers.delete("cookie");
  headers.set("authorization", `Bearer ${key}`);
  return new Request(request.url, { method: "GET", headers });
}

/** The ticket of a request's cookie, when it has a good one. */
export function ticketOf(tickets: ConsoleTickets, request: Request): Ticket | undefined {
  const sealed = sealedTicketOf(request);
  return sealed === undefined ? undefined : tickets.open(sealed);
}

export function withConsoleCookie(authenticate: Authenticate, tickets: ConsoleTickets): Authenticate {
  return async (request) => {
    if (request.headers.has("authorization")) return authenticate(request);
    const ticket = ticketOf(tickets, request);
    if (ticket === undefined) return authenticate(request);
    if (!SAFE_METHODS.has(request.method) && !tickets.csrfMatches(ticket, request.headers.get(CSRF_HEADER) ?? undefined)) {
      throw new ServerError("ERR_FORBIDDEN", `a request that changes something with the console's cookie needs its ${CSRF_HEADER} header: reload the console`);
    }
    return authenticate(asBearer(request, ticket.key));
  };
}
