// Pages are addressed by the URL's hash (#/sessions/ID), so the server serves one page for
// every view and a reload or a shared link opens the same view.
import { useEffect, useState } from "preact/hooks";

export type Route = { page: "sessions" } | { page: "session"; id: string } | { page: "approvals" } | { page: "queue" };

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  if (parts[0] === "sessions" && parts[1] !== undefined && parts[1] !== "") return { page: "session", id: parts[1] };
  if (parts[0] === "approvals") return { page: "approvals" };
  if (parts[0] === "queue") return { page: "queue" };
  return { page: "sessions" };
}

export function hrefOf(route: Route): string {
  return route.page === "session" ? `#/sessions/${encodeURIComponent(route.id)}` : `#/${route.page}`;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const changed = () => setRoute(parseRoute(location.hash));
    addEventListener("hashchange", changed);
    return () => removeEventListener("hashchange", changed);
  }, []);
  return route;
}

export function go(route: Route): void {
  location.hash = hrefOf(route);
}
