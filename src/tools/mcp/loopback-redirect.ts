// The end of a browser sign-in: the authorization server sends the browser back to
// http://127.0.0.1:PORT/callback with a code, which this listener takes once and hands on.
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** How long a person has to finish signing in before the wait gives up. */
const SIGN_IN_TIMEOUT_MS = 5 * 60_000;

/** A free loopback port for a new client's redirect URI. */
export async function freeLoopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** An unguessable `state`, so a redirect that this sign-in did not start is refused. */
export function newState(): string {
  return randomBytes(16).toString("base64url");
}

/**
 * Listens on `port` for the one redirect whose `state` matches, and resolves with its
 * code; an `error` the server sends back, a busy port, or no redirect in five minutes
 * rejects with one line that names `server`.
 */
export async function awaitRedirect(port: number, state: string, server: string): Promise<{ code: Promise<string> }> {
  let settle: { resolve: (code: string) => void; reject: (error: Error) => void } | undefined;
  const code = new Promise<string>((resolve, reject) => (settle = { resolve, reject }));
  const listener: Server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== "/callback" || url.searchParams.get("state") !== state) {
      response.writeHead(404, { "content-type": "text/plain" }).end("Not the sign-in this listener waits for.\n");
      return;
    }
    const error = url.searchParams.get("error");
    const received = url.searchParams.get("code");
    response.writeHead(error === null && received !== null ? 200 : 400, { "content-type": "text/plain; charset=utf-8", connection: "close" });
    // The page is sent before the listener lets go of the browser's connections.
    response.on("finish", () => listener.closeAllConnections());
    if (error !== null || received === null) {
      const why = url.searchParams.get("error_description") ?? error ?? "no code came back";
      response.end(`The sign-in to ${server} failed: ${why}\n`);
      finish(() => settle?.reject(new Error(`the sign-in to MCP server ${server} failed: ${why}`)));
      return;
    }
    response.end(`Signed in to ${server}. You can close this page.\n`);
    finish(() => settle?.resolve(received));
  });
  const timer = setTimeout(() => {
    listener.closeAllConnections();
    finish(() => settle?.reject(new Error(`the sign-in to MCP server ${server} was not finished within 5 minutes`)));
  }, SIGN_IN_TIMEOUT_MS);
  timer.unref();
  function finish(then: () => void): void {
    clearTimeout(timer);
    listener.close();
    then();
  }
  await new Promise<void>((resolve, reject) =>
    listener
      .once("error", (error) => reject(new Error(`cannot listen on 127.0.0.1:${port} for the sign-in to MCP server ${server}: ${error.message}`)))
      .listen(port, "127.0.0.1", resolve),
  );
  return { code };
}
