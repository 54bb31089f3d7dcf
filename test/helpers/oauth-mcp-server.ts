// An MCP server that needs a sign-in, on loopback: the test MCP server behind a bearer
// check, and on the same origin an OAuth authorization server with what the MCP
// authorization spec asks of one: protected-resource and authorization-server metadata,
// dynamic client registration, the authorization code grant with PKCE (S256) that approves
// at once (a person already signed in), refresh, and client credentials for one
// pre-registered client. Strict where a client could go wrong: an unknown client, a
// redirect URI it did not register, a wrong `resource`, a PKCE verifier that does not match.
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { mcpRequestHandler } from "./mcp-test-server.js";

export interface OAuthMcpServer {
  /** The MCP endpoint: `<origin>/mcp`. */
  url: string;
  /** The grant of every token request, in order (`authorization_code`, `refresh_token`, `client_credentials`). */
  grants: string[];
  /** How many times the authorization page was opened. */
  authorizations: number;
  /** How many clients registered themselves. */
  registrations: number;
  /** Every access and refresh token issued, to look for in what must not hold them. */
  issued: string[];
  /** While true, the authorization page answers as a person who refused: back to the client with `error=access_denied`. */
  refuseSignIn: boolean;
  /** Makes every access token issued so far expired: the next request with one gets a 401. */
  expireAccessTokens(): void;
  close(): Promise<void>;
}

export interface OAuthMcpOptions {
  /** The one client that may use client_credentials, with its secret (HTTP Basic). */
  machineClient?: { id: string; secret: string };
}

interface Client {
  redirectUris: string[];
}

const token = () => randomBytes(18).toString("base64url");

export async function startOAuthMcpServer(options: OAuthMcpOptions = {}): Promise<OAuthMcpServer> {
  const clients = new Map<string, Client>();
  const codes = new Map<string, { client: string; challenge: string; redirectUri: string }>();
  const access = new Map<string, { expired: boolean }>();
  const refresh = new Set<string>();
  const handleMcp = mcpRequestHandler({}, true);
  let origin = "";
  const state: OAuthMcpServer = {
    url: "",
    grants: [],
    authorizations: 0,
    registrations: 0,
    issued: [],
    refuseSignIn: false,
    expireAccessTokens: () => access.forEach((entry) => (entry.expired = true)),
    close: async () => undefined,
  };

  function issue(res: ServerResponse, withRefresh: boolean): void {
    const accessToken = token();
    access.set(accessToken, { expired: false });
    state.issued.push(accessToken);
    const body: Record<string, unknown> = { access_token: accessToken, token_type: "Bearer", expires_in: 3600 };
    if (withRefresh) {
      const refreshToken = token();
      refresh.add(refreshToken);
      state.issued.push(refreshToken);
      body.refresh_token = refreshToken;
    }
    json(res, 200, body);
  }

  async function tokenRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = new URLSearchParams(await text(req));
    const grant = form.get("grant_type") ?? "";
    state.grants.push(grant);
    if (form.get("resource") !== null && form.get("resource") !== state.url) return json(res, 400, { error: "invalid_target" });
    if (grant === "authorization_code") {
      const code = codes.get(form.get("code") ?? "");
      codes.delete(form.get("code") ?? "");
      const verifier = form.get("code_verifier") ?? "";
      const challenge = createHash("sha256").update(verifier).digest("base64url");
      if (code === undefined || code.client !== form.get("client_id") || code.challenge !== challenge || code.redirectUri !== form.get("redirect_uri")) {
        return json(res, 400, { error: "invalid_grant" });
      }
      return issue(res, true);
    }
    if (grant === "refresh_token") {
      const old = form.get("refresh_token") ?? "";
      if (!refresh.delete(old)) return json(res, 400, { error: "invalid_grant" });
      return issue(res, true);
    }
    if (grant === "client_credentials" && options.machineClient !== undefined) {
      const basic = Buffer.from((req.headers.authorization ?? "").replace(/^Basic /, ""), "base64").toString("utf8");
      const { id, secret } = options.machineClient;
      if (basic !== `${encodeURIComponent(id)}:${encodeURIComponent(secret)}`) return json(res, 401, { error: "invalid_client" });
      return issue(res, false);
    }
    json(res, 400, { error: "unsupported_grant_type" });
  }

  const http = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", origin);
      switch (url.pathname) {
        case "/.well-known/oauth-protected-resource/mcp":
          return json(res, 200, { resource: state.url, authorization_servers: [origin] });
        case "/.well-known/oauth-authorization-server":
          return json(res, 200, {
            issuer: origin,
            authorization_endpoint: `${origin}/authorize`,
            token_endpoint: `${origin}/token`,
            registration_endpoint: `${origin}/register`,
            response_types_supported: ["code"],
            grant_types_supported: ["authorization_code", "refresh_token", "client_credentials"],
            code_challenge_methods_supported: ["S256"],
            token_endpoint_auth_methods_supported: ["none", "client_secret_basic"],
          });
        case "/register": {
          const metadata = JSON.parse(await text(req)) as { redirect_uris: string[] };
          const clientId = `client-${++state.registrations}`;
          clients.set(clientId, { redirectUris: metadata.redirect_uris });
          return json(res, 201, { ...metadata, client_id: clientId, token_endpoint_auth_method: "none" });
        }
        case "/authorize": {
          state.authorizations++;
          const query = url.searchParams;
          const client = clients.get(query.get("client_id") ?? "");
          const redirectUri = query.get("redirect_uri") ?? "";
          if (client === undefined || !client.redirectUris.includes(redirectUri)) return json(res, 400, { error: "invalid_client" });
          if (query.get("code_challenge_method") !== "S256" || query.get("resource") !== state.url) return json(res, 400, { error: "invalid_request" });
          const back = new URL(redirectUri);
          back.searchParams.set("state", query.get("state") ?? "");
          if (state.refuseSignIn) {
            back.searchParams.set("error", "access_denied");
            back.searchParams.set("error_description", "the user refused");
            res.writeHead(302, { location: back.href }).end();
            return;
          }
          const code = token();
          codes.set(code, { client: query.get("client_id") ?? "", challenge: query.get("code_challenge") ?? "", redirectUri });
          back.searchParams.set("code", code);
          res.writeHead(302, { location: back.href }).end();
          return;
        }
        case "/token":
          return tokenRequest(req, res);
        case "/mcp": {
          const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
          const entry = bearer === undefined ? undefined : access.get(bearer);
          if (entry === undefined || entry.expired) {
            res.writeHead(401, { "www-authenticate": `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"` }).end();
            return;
          }
          return handleMcp(req, res);
        }
        default:
          res.writeHead(404).end();
      }
    })();
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  state.url = `${origin}/mcp`;
  state.close = () =>
    new Promise((resolve) => {
      http.closeAllConnections();
      http.close(() => resolve());
    });
  return state;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

async function text(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
