// `fisk-ai mcp login|logout NAME`: sign in to a remote MCP server of agent.yaml in the
// browser, once, before runs that cannot ask; or forget the sign-in.
import { loadAgentConfig, type AgentConfig, type McpServerConfig } from "../../config/agent-config.js";
import { mcpDefinitions, mcpSignInDir } from "../../config/run-options.js";
import { SignInFile } from "../../tools/mcp/sign-in-file.js";
import { UsageError } from "../cli-errors.js";
import { EXIT } from "../exit-codes.js";
import { showSignInPage } from "../run/open-browser.js";
import type { CommandIO } from "../context/command-io.js";
import { configPathFrom } from "../context/stores.js";

export type McpCommandName = "login" | "logout";

/** The options the mcp commands declare in program.ts. */
export interface McpFlags {
  config?: string;
}

const SERVER_NAME = /^[a-zA-Z0-9-]{1,32}$/;

export async function mcpCommand(command: McpCommandName, [name]: string[], flags: McpFlags, io: CommandIO): Promise<number> {
  if (name === undefined || !SERVER_NAME.test(name))
    throw new UsageError(`mcp ${command} takes the name of an MCP server in agent.yaml (1 to 32 letters, digits or '-')`);
  const file = new SignInFile(mcpSignInDir(io.env), name);
  if (command === "logout") {
    io.stderr.write(file.remove() ? `fisk-ai: signed out of MCP server ${name}\n` : `fisk-ai: there was no sign-in to MCP server ${name} to remove\n`);
    return EXIT.completed;
  }
  const config = loadAgentConfig(configPathFrom(flags.config));
  const server = signInServer(config, name);
  // A login signs in afresh: the saved tokens go, the registered client stays.
  if (file.read().tokens !== undefined) file.update({ tokens: undefined });
  const [definition] = mcpDefinitions({ ...config, mcpServers: [server] }, io.env, { showSignInPage: showSignInPage(io.stderr, io.env) });
  const { connectMcpServers } = await import("../../tools/mcp/mcp-servers.js");
  const connected = await connectMcpServers([definition as NonNullable<typeof definition>]);
  await connected.close();
  const tools = `${connected.tools.length} tool${connected.tools.length === 1 ? "" : "s"}`;
  io.stderr.write(
    file.read().tokens === undefined
      ? `fisk-ai: MCP server ${name} did not ask for a sign-in; its ${tools} are ready\n`
      : `fisk-ai: signed in to MCP server ${name} (${tools})\n`,
  );
  return EXIT.completed;
}

/** The configuration's server `name`, when it is one a person signs in to. */
function signInServer(config: AgentConfig, name: string): McpServerConfig {
  const server = config.mcpServers.find((candidate) => candidate.name === name);
  if (server === undefined) {
    const names = config.mcpServers.map((candidate) => candidate.name);
    throw new UsageError(
      `there is no MCP server ${name} in the configuration (${names.length === 0 ? "it has none" : `it has: ${names.join(", ")}`}); give --config FILE for another`,
    );
  }
  if (server.url === undefined) throw new UsageError(`MCP server ${name} is started over stdio: there is nothing to sign in to`);
  if (server.auth?.grant === "client_credentials")
    throw new UsageError(`MCP server ${name} signs in with its client's own credentials (grant: client_credentials): no person signs in`);
  if (server.headers !== undefined && server.auth === undefined && Object.keys(server.headers).some((header) => header.toLowerCase() === "authorization")) {
    throw new UsageError(`MCP server ${name} sends its own Authorization header: remove it from headers: to sign in instead`);
  }
  return server;
}
