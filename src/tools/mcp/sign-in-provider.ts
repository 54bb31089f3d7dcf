// The SDK's OAuth client, given what it asks of a provider: a sign-in file to keep the
// client, tokens and PKCE verifier in, a loopback redirect, and a way to show the
// authorization page to a person, or an error naming `fisk-ai mcp login` when there is none.
import type { OAuthClientProvider, OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { FiskError } from "../../errors/fisk-error.js";
import { awaitRedirect, newState } from "./loopback-redirect.js";
import type { SignInChange, SignInFile } from "./sign-in-file.js";

/** Shows the authorization page to a person (opens a browser, prints the URL). */
export type ShowSignInPage = (page: URL, server: string) => void | Promise<void>;

/** A server that needs a person to sign in, where none can (code ERR_SIGN_IN_NEEDED): `fisk-ai mcp login NAME` does it. */
export class McpSignInNeededError extends FiskError<"ERR_SIGN_IN_NEEDED"> {
  /** Always `"McpSignInNeededError"`. */
  override readonly name = "McpSignInNeededError";

  constructor(
    /** The server's name in agent.yaml. */
    readonly server: string,
  ) {
    super("ERR_SIGN_IN_NEEDED", `MCP server ${server} needs a sign-in, which this run cannot ask for`);
  }
}

export interface SignInOptions {
  /** The server's name, for messages and the redirect page. */
  server: string;
  /** The server's MCP endpoint: a sign-in saved for another URL is not used. */
  url: string;
  file: SignInFile;
  /** The loopback port the redirect comes back to. */
  port: number;
  /** A client registered beforehand; else the server's client ID metadata document or dynamic registration. */
  clientId?: string;
  clientSecret?: string;
  /** An https URL of this client's metadata document, used as its id where the server supports it. */
  clientMetadataUrl?: string;
  /** Asked for when neither the server's challenge nor its metadata names scopes. */
  scope?: string;
  /** Absent where no person can sign in: a sign-in then throws McpSignInNeededError. */
  showPage?: ShowSignInPage;
}

export class SignInProvider implements OAuthClientProvider {
  #pending: Promise<string> | undefined;
  #state: string | undefined;
  /** Set only when the configuration names one: the SDK reads an absent property as none. */
  readonly clientMetadataUrl?: string;

  constructor(private readonly options: SignInOptions) {
    if (options.clientMetadataUrl !== undefined) this.clientMetadataUrl = options.clientMetadataUrl;
    // Nothing is written for a server that never asks; a sign-in kept for another URL is dropped.
    const saved = options.file.read().url;
    if (saved !== undefined && saved !== options.url) options.file.remove();
  }

  /** Every change is stamped with the URL it was made for. */
  #save(change: SignInChange): void {
    this.options.file.update({ ...change, url: this.options.url });
  }

  get redirectUrl(): string {
    return `http://127.0.0.1:${this.options.port}/callback`;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "fisk-ai",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      ...(this.options.scope === undefined ? {} : { scope: this.options.scope }),
    };
  }

  state(): string {
    this.#state = newState();
    return this.#state;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    const { clientId, clientSecret } = this.options;
    if (clientId !== undefined) return { client_id: clientId, ...(clientSecret === undefined ? {} : { client_secret: clientSecret }) };
    return this.options.file.read().client;
  }

  saveClientInformation(client: OAuthClientInformationMixed): void {
    // A pre-registered client is the configuration's: its secret stays out of the file.
    if (this.options.clientId === undefined) this.#save({ client });
  }

  tokens(): OAuthTokens | undefined {
    return this.options.file.read().tokens;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.#save({ tokens, codeVerifier: undefined });
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.#save({ codeVerifier });
  }

  codeVerifier(): string {
    const verifier = this.options.file.read().codeVerifier;
    if (verifier === undefined) throw new Error(`no sign-in to MCP server ${this.options.server} is under way`);
    return verifier;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.options.file.read().discovery;
  }

  saveDiscoveryState(discovery: OAuthDiscoveryState): void {
    this.#save({ discovery });
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    const all = scope === "all";
    this.#save({
      ...(all || scope === "client" ? { client: undefined } : {}),
      ...(all || scope === "tokens" ? { tokens: undefined } : {}),
      ...(all || scope === "verifier" ? { codeVerifier: undefined } : {}),
      ...(all || scope === "discovery" ? { discovery: undefined } : {}),
    });
  }

  async redirectToAuthorization(page: URL): Promise<void> {
    const { showPage, server, port } = this.options;
    if (showPage === undefined) throw new McpSignInNeededError(server);
    const { code } = await awaitRedirect(port, this.#state ?? page.searchParams.get("state") ?? "", server);
    this.#pending = code;
    // Handled where it is awaited (takeCode); not an unhandled rejection meanwhile.
    code.catch(() => undefined);
    await showPage(page, server);
  }

  /** The code of the sign-in the last redirect started, once; undefined when none was started. */
  takeCode(): Promise<string> | undefined {
    const pending = this.#pending;
    this.#pending = undefined;
    return pending;
  }
}
