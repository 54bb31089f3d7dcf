// MCP servers, through the official SDK's client: started once per process, in parallel,
// their tools listed and offered to the model as `<server>__<tool>`, and shut down when
// the run ends. An HTTP server that asks signs in (mcp-auth.ts), and a server's questions
// during a call go to the definition's `elicit`. Loaded only by runs that configure a
// server, so start-up does not pay for the SDK.
import { UnauthorizedError, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { FiskError } from "../../errors/fisk-error.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { JsonSchema, Tool } from "../tool.js";
import { toolEnvironment } from "../tool-env.js";
import { toolOutputOf } from "./mcp-content.js";
import { MCP_CALL_TIMEOUT_MS, MCP_OUTPUT_LIMIT_BYTES } from "./mcp-defaults.js";
import { mcpCrashPolicy, mcpToolName, type McpCrashPolicies } from "./mcp-names.js";
import { GroupedStdioTransport } from "./stdio-transport.js";
import { authProviderFor, type McpAuthDefinition } from "./mcp-auth.js";
import { answerElicitation, type McpElicit } from "./mcp-elicitation.js";
import { McpSignInNeededError, SignInProvider } from "./sign-in-provider.js";

/**
 * How to reach an MCP server: `stdio` starts it as a child process (in a process group of
 * its own, stopped even if this process is killed) and talks over its stdin and stdout;
 * `http` connects to a running one over streamable HTTP.
 */
export type McpTransportDefinition =
  | {
      /** Start the server as a child process. */
      kind: "stdio";
      /** The program to run, looked up on PATH; no shell is involved. */
      command: string;
      /** Its arguments; default none. */
      args?: readonly string[];
      /** The server's whole environment; by default this process's, without credentials (as command tools get it). */
      env?: Record<string, string>;
      /** Its working directory; default this process's. */
      cwd?: string;
    }
  | {
      /** Connect to a server over streamable HTTP. */
      kind: "http";
      /** The server's MCP endpoint, such as `https://mcp.example.com/mcp`. */
      url: string;
      /** Sent with every request, such as `Authorization`; never journaled. */
      headers?: Record<string, string>;
      /** How to sign in when the server asks for it (OAuth); without it a server that asks cannot be used. */
      auth?: McpAuthDefinition;
    };

/** One MCP server for connectMcpServers: how to reach it and how its tools are treated. */
export interface McpServerDefinition {
  /** Its tools are offered to the model as `<name>__<tool>`. */
  name: string;
  /** How to start or reach it. */
  transport: McpTransportDefinition;
  /** Every tool, or the tools named (as the server names them); none by default. */
  confirm?: boolean | readonly string[];
  /** One policy for every tool, or one per tool name; rerun by default. */
  onCrash?: McpCrashPolicies;
  /** For each call (30 s by default); a call that takes longer is an is_error result. */
  timeoutMs?: number;
  /** How much of a call's result is kept, in bytes of text and of images' base64 (1 MiB by default); the rest is cut off with a marker. */
  outputLimitBytes?: number;
  /** Answers the server's questions during a call (elicitation); without it every question is declined. */
  elicit?: McpElicit;
}

/** Connected MCP servers: their tools, and the one way to shut them down. */
export interface McpServers {
  /** Every server's tools, named `<server>__<tool>`, to pass to runAgent's `tools`. */
  tools: Tool[];
  /** Shuts every server down; safe to call twice. */
  close(): Promise<void>;
}

/** A server that did not start or list its tools: one line naming it. */
export class McpServerError extends FiskError<"ERR_MCP_SERVER"> {
  /** Always `"McpServerError"`. */
  override readonly name = "McpServerError";

  constructor(message: string, options: { cause?: unknown } = {}) {
    super("ERR_MCP_SERVER", message, options);
  }
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const CLIENT = { name: "fisk-ai", version: "1" };
/** For the handshake and the listing: a server slower than its tools' timeout to start still starts. */
const START_TIMEOUT_MS = 30_000;

/**
 * Starts every server at once. If any fails, those that started are shut down again and
 * the first failure is thrown: a run never starts with part of its tools.
 */
export async function connectMcpServers(definitions: readonly McpServerDefinition[]): Promise<McpServers> {
  const settled = await Promise.allSettled(definitions.map(connectServer));
  const started = settled.flatMap((outcome) => (outcome.status === "fulfilled" ? [outcome.value] : []));
  const failed = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected");
  const close = async () => {
    await Promise.all(started.map((server) => server.close()));
  };
  if (failed !== undefined) {
    await close();
    throw failed.reason;
  }
  return { tools: started.flatMap((server) => server.tools), close };
}

interface ConnectedServer {
  tools: Tool[];
  close(): Promise<void>;
}

async function connectServer(definition: McpServerDefinition): Promise<ConnectedServer> {
  const stderr = new StderrTail();
  let auth: OAuthClientProvider | undefined;
  let session: Session | undefined;
  try {
    if (definition.transport.kind === "http" && definition.transport.auth !== undefined)
      auth = await authProviderFor(definition.name, definition.transport.url, definition.transport.auth);
    session = newSession(definition, stderr, auth);
    try {
      await session.client.connect(session.transport, { timeout: START_TIMEOUT_MS });
    } catch (error) {
      // A person signed in meanwhile: the handshake starts again with the tokens.
      if (!(await finishSignIn(error, session.transport, auth))) throw error;
      await session.close();
      session = newSession(definition, stderr, auth);
      await session.client.connect(session.transport, { timeout: START_TIMEOUT_MS });
    }
    const connected = session;
    const listed = await signedIn(() => listTools(connected.client, START_TIMEOUT_MS), connected.transport, auth);
    checkNamedTools(definition, listed);
    return { tools: listed.map((tool) => mcpTool(definition, connected, auth, tool)), close: connected.close };
  } catch (error) {
    await session?.close();
    if (error instanceof McpSignInNeededError) throw error;
    // The stderr of a server that exited is still on its way through the pipe.
    await new Promise((resolve) => setImmediate(resolve));
    throw new McpServerError(startFailure(definition, error, stderr.lastLine()));
  }
}

interface Session {
  client: Client;
  transport: Transport;
  close(): Promise<void>;
}

function newSession(definition: McpServerDefinition, stderr: StderrTail, auth: OAuthClientProvider | undefined): Session {
  const transport = transportFor(definition.transport, stderr, auth);
  // Form questions only, with the schema's defaults filled in by the SDK for what an answer leaves out.
  const client = new Client(CLIENT, { capabilities: { elicitation: { form: { applyDefaults: true } } } });
  client.setRequestHandler(ElicitRequestSchema, (request) => answerElicitation(definition.name, request.params, definition.elicit));
  let closed: Promise<void> | undefined;
  return {
    client,
    transport,
    close: () => {
      closed ??= client.close().catch(() => undefined);
      return closed;
    },
  };
}

/**
 * Runs `request`; when it stopped for a sign-in that a person then finished (a first
 * sign-in, or more scopes for this request), takes the code and runs it once more.
 */
async function signedIn<T>(request: () => Promise<T>, transport: Transport, auth: OAuthClientProvider | undefined): Promise<T> {
  try {
    return await request();
  } catch (error) {
    if (!(await finishSignIn(error, transport, auth))) throw error;
    return request();
  }
}

/** True when `error` was a sign-in's redirect and the code that came back is exchanged for tokens. */
async function finishSignIn(error: unknown, transport: Transport, auth: OAuthClientProvider | undefined): Promise<boolean> {
  if (!(error instanceof UnauthorizedError) || !(auth instanceof SignInProvider)) return false;
  const code = auth.takeCode();
  if (code === undefined) return false;
  await (transport as StreamableHTTPClientTransport).finishAuth(await code);
  return true;
}

function transportFor(definition: McpTransportDefinition, stderr: StderrTail, authProvider: OAuthClientProvider | undefined): Transport {
  if (definition.kind === "http") {
    return new StreamableHTTPClientTransport(new URL(definition.url), {
      requestInit: { headers: definition.headers ?? {} },
      ...(authProvider === undefined ? {} : { authProvider }),
    });
  }
  const server = { ...definition, args: definition.args ?? [], env: definition.env ?? toolEnvironment(process.env, [], []) };
  return new GroupedStdioTransport(server, (chunk) => stderr.add(chunk));
}

interface ListedTool {
  name: string;
  description?: string | undefined;
  inputSchema: JsonSchema;
}

async function listTools(client: Client, timeout: number): Promise<ListedTool[]> {
  const tools: ListedTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}

/** A confirm list or on_crash map naming a tool the server does not offer is a mistake to report, not ignore. */
function checkNamedTools(definition: McpServerDefinition, listed: readonly ListedTool[]): void {
  const offered = new Set(listed.map((tool) => tool.name));
  const named = [
    ...(Array.isArray(definition.confirm) ? definition.confirm.map((name) => ["confirm", name] as const) : []),
    ...(typeof definition.onCrash === "object" ? Object.keys(definition.onCrash).map((name) => ["on_crash", name] as const) : []),
  ];
  const unknown = named.find(([, name]) => !offered.has(name));
  if (unknown !== undefined) {
    throw new Error(`its ${unknown[0]} names the tool ${unknown[1]}, which it does not offer (it offers: ${[...offered].join(", ") || "none"})`);
  }
}

function mcpTool(definition: McpServerDefinition, { client, transport }: Session, auth: OAuthClientProvider | undefined, listed: ListedTool): Tool {
  const name = mcpToolName(definition.name, listed.name);
  if (!TOOL_NAME.test(name)) {
    throw new Error(`its tool ${JSON.stringify(listed.name)} cannot be offered as ${name}: a tool name is 1 to 64 letters, digits, '_' or '-'`);
  }
  const { confirm = false, onCrash = "rerun", timeoutMs = MCP_CALL_TIMEOUT_MS, outputLimitBytes = MCP_OUTPUT_LIMIT_BYTES } = definition;
  return {
    name,
    description: listed.description ?? `${listed.name}, from the MCP server ${definition.name}`,
    input_schema: listed.inputSchema,
    confirm: typeof confirm === "boolean" ? confirm : confirm.includes(listed.name),
    onCrash: mcpCrashPolicy(onCrash, listed.name),
    mcpServer: definition.name,
    run: async (input, context) => {
      // A timeout or a broken connection rejects; the tool set makes it an is_error result.
      const call = () => client.callTool({ name: listed.name, arguments: input }, undefined, { timeout: timeoutMs, signal: context.signal });
      const result = await signedIn(call, transport, auth);
      return toolOutputOf(result, outputLimitBytes);
    },
  };
}

function startFailure(definition: McpServerDefinition, error: unknown, stderr: string | undefined): string {
  const reason = (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";
  const what = definition.transport.kind === "stdio" ? `'${definition.transport.command}'` : definition.transport.url;
  const tail = stderr === undefined ? "" : `; its stderr said: ${stderr}`;
  return `MCP server ${definition.name} (${what}) did not start or list its tools: ${reason}${tail}`;
}

/** The last few KiB a server wrote to stderr: its last line explains a failed start. */
class StderrTail {
  #text = "";

  add(chunk: Buffer): void {
    this.#text = (this.#text + chunk.toString("utf8")).slice(-4096);
  }

  lastLine(): string | undefined {
    const lines = this.#text
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "");
    return lines.at(-1);
  }
}
