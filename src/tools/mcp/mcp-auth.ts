// How fisk-ai signs in to a remote MCP server, as the MCP authorization spec says, with the
// SDK's OAuth client doing the protocol: a person through the browser (the authorization
// code grant with PKCE), or a program with a client's own credentials (client_credentials,
// with a secret or a signed JWT).
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { ClientCredentialsProvider, PrivateKeyJwtProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import { freeLoopbackPort } from "./loopback-redirect.js";
import { SignInFile } from "./sign-in-file.js";
import { SignInProvider, type ShowSignInPage } from "./sign-in-provider.js";

/** How to sign in to one HTTP server. */
export type McpAuthDefinition =
  | {
      /** A person signs in through the browser; tokens are kept in `dir` (one 0600 file per server) and refreshed. */
      kind: "sign-in";
      /** Where sign-in files live, such as `$XDG_STATE_HOME/fisk-ai/mcp-auth`. */
      dir: string;
      /** The loopback port the browser comes back to; default the one the saved client was registered with, else a free one. */
      port?: number;
      /** A client registered beforehand; else the server's client ID metadata document or dynamic registration. */
      clientId?: string;
      /** The pre-registered client's secret, if it has one. */
      clientSecret?: string;
      /** An https URL of this client's metadata document, its id where the server supports that. */
      clientMetadataUrl?: string;
      /** Asked for when neither the server's challenge nor its metadata names scopes. */
      scope?: string;
      /** Shows the authorization page to a person; absent where none can sign in (the connection then fails with McpSignInNeededError). */
      showPage?: ShowSignInPage;
    }
  | {
      /** No person: the client's own credentials, exchanged for a token at each start (client_credentials). */
      kind: "client-credentials";
      /** The client the authorization server knows this program by. */
      clientId: string;
      /** Sent as HTTP Basic (client_secret_basic). */
      clientSecret: string;
      /** The scopes to ask for. */
      scope?: string;
    }
  | {
      /** No person: a JWT signed with the client's private key proves who it is (private_key_jwt). */
      kind: "private-key-jwt";
      /** The client the authorization server knows this program by. */
      clientId: string;
      /** PEM. */
      privateKey: string;
      /** Such as `ES256` or `RS256`. */
      algorithm: string;
      /** The scopes to ask for. */
      scope?: string;
    };

export async function authProviderFor(server: string, url: string, auth: McpAuthDefinition): Promise<OAuthClientProvider> {
  switch (auth.kind) {
    case "sign-in": {
      const file = new SignInFile(auth.dir, server);
      const port = auth.port ?? registeredPort(file, url) ?? (await freeLoopbackPort());
      return new SignInProvider({ ...auth, server, url, file, port });
    }
    case "client-credentials":
      return new ClientCredentialsProvider({
        clientId: auth.clientId,
        clientSecret: auth.clientSecret,
        clientName: "fisk-ai",
        ...(auth.scope === undefined ? {} : { scope: auth.scope }),
      });
    case "private-key-jwt":
      return new PrivateKeyJwtProvider({
        clientId: auth.clientId,
        privateKey: auth.privateKey,
        algorithm: auth.algorithm,
        clientName: "fisk-ai",
        ...(auth.scope === undefined ? {} : { scope: auth.scope }),
      });
  }
}

/** A registered client's redirect comes back where it was registered to: another port would be refused. */
function registeredPort(file: SignInFile, url: string): number | undefined {
  const saved = file.read();
  const redirect = saved.url === url && saved.client !== undefined && "redirect_uris" in saved.client ? saved.client.redirect_uris[0] : undefined;
  const port = redirect === undefined ? undefined : Number(new URL(redirect).port);
  return port === undefined || !Number.isInteger(port) || port === 0 ? undefined : port;
}
