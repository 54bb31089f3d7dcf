// `fisk-ai mcp login NAME`: sign in to a remote MCP server of agent.yaml in the browser, once,
// before runs that cannot ask.
import type { AgentConfig, McpServerConfig } from "../../config/agent-config.js";
import { UsageError } from "../cli-errors.js";
import type { McpContext } from "../context/mcp-context.js";
import { configPathFrom } from "../context/stores.js";
import { EXIT } from "../exit-codes.js";

export async function run({ values, io, name, signIn }: McpContext): Promise<number> {
  const [{ loadAgentConfig }, { mcpDefinitions }, { showSignInPage }] = await Promise.all([
    import("../../config/agent-config.js"),
    import("../../config/run-options.js"),
    import("../run/open-browser.js"),
  ]);
  const config = loadAgentConfig(configPathFrom(values.config as string | undefined));
  const server = signInServer(config, name);
  // A login signs in afresh: the saved tokens go, the registered client stays.
  if (signIn.read().tokens !== undefined) signIn.update({ tokens: undefined });
  const [definition] = mcpDefinitions({ ...config, mcpServers: [server] }, io.env, { showSignInPage: showSignInPage(io.stderr, io.env) });
  const { connectMcpServers } = await import("../../tools/mcp/mcp-servers.js");
  const connected = await connectMcpServers([definition as NonNullable<typeof definition>]);
  await connected.close();
  const tools = `${connected.tools.length} tool${connected.tools.length === 1 ? "" : "s"}`;
  io.stderr.write(
    signIn.read().tokens === undefined
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
