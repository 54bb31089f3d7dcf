// A server on loopback without keys is reachable from every page a browser on the machine
// opens: a page can send it requests (a cross-site request carries an Origin, or a
// Sec-Fetch-Site of cross-site), and a name the page's site controls can be made to resolve
// to 127.0.0.1 (DNS rebinding: the request then carries that name as its Host). Both are
// refused unless the Host and the Origin name the server itself.

/** Why a request is refused (the server answers 403), or undefined when it may go on. */
export type RequestCheck = (request: Request) => string | undefined;

/** The names a loopback server on `port` is reached by: what hostGuard allows when nothing else is configured. */
export function loopbackHosts(port: number): string[] {
  return [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`];
}

/**
 * Refuses a request whose Host is not in `allowlist` (entries `host:port`, or `host` for any
 * port, compared without case), one whose Origin is not `http://` or `https://` and an
 * allowed host (an `Origin: null` included), and one a browser marks as cross-site.
 * A request without an Origin (curl, a program) is judged by its Host alone.
 */
export function hostGuard(allowlist: readonly string[]): RequestCheck {
  const allowed = allowlist.map((entry) => entry.toLowerCase());
  const isAllowed = (host: string) => allowed.includes(host) || allowed.includes(withoutPort(host));
  return (request) => {
    const host = (request.headers.get("host") ?? new URL(request.url).host).toLowerCase();
    if (!isAllowed(host)) return `the Host ${JSON.stringify(host.slice(0, 100))} is not this server's (allowed: ${allowlist.join(", ")})`;
    const origin = request.headers.get("origin");
    if (origin !== null && !isAllowed(originHost(origin)))
      return `requests from ${JSON.stringify(origin.slice(0, 100))} are not allowed (a cross-site request)`;
    if (request.headers.get("sec-fetch-site") === "cross-site") return "a browser's cross-site request is not allowed";
    return undefined;
  };
}

/** The host of an `http` or `https` origin; "" (no host) for anything else, `null` included. */
function originHost(origin: string): string {
  const match = /^https?:\/\/([^/?#]+)$/i.exec(origin);
  return match?.[1]?.toLowerCase() ?? "";
}

function withoutPort(host: string): string {
  return host.replace(/:\d+$/, "");
}
