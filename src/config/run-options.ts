// From a validated agent.yaml and the environment to the options runAgent takes. The
// environment is read here and only here: credentials never enter the config or a record.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { packageFile } from "../package/package-files.js";
import type { ModelProvider } from "../llm/model-provider.js";
import { notesBesideSessions } from "../backends/session-notes.js";
import type { NoteStore } from "../memory/note-store.js";
import { memoryTools } from "../memory/memory-tools.js";
import { askUserTool } from "../tools/ask-user.js";
import { commandTool } from "../tools/command-tool.js";
import { compileInputCheck, type InputCheck } from "../tools/tool-input.js";
import { toolEnvironment } from "../tools/tool-env.js";
import type { McpServerDefinition, McpServers, McpTransportDefinition } from "../tools/mcp/mcp-servers.js";
import { answerFromValues, type McpElicit } from "../tools/mcp/mcp-elicitation.js";
import type { ShowSignInPage } from "../tools/mcp/sign-in-provider.js";
import { fiskStateHome } from "../runstate/state-dir.js";
import type { Tool } from "../tools/tool.js";
import { ConfigError } from "../agent/agent-errors.js";
import { agentSpec, type AgentSpec } from "../agent/agent-spec.js";
import { loadAgentConfig, type AgentConfig, type McpServerConfig } from "./agent-config.js";
import { agentTool } from "../agent/agent-tool.js";
import { shellWord } from "./shell-word.js";
import { ENV_REFERENCE, secretVariables } from "./secret-variables.js";

/** The notes example the package ships, by absolute path: the offline run a missing key's hint names works from any directory. */
const NOTES_EXAMPLE = packageFile("examples/notes/agent.yaml");

// Each provider's module (and its SDK, hundreds of files) is loaded only for the provider the
// config names: a run on the script provider loads neither SDK.
async function providerFromConfig(config: AgentConfig, env: NodeJS.ProcessEnv = process.env): Promise<ModelProvider> {
  switch (config.provider) {
    case "anthropic": {
      const apiKey = env.ANTHROPIC_API_KEY;
      if (apiKey === undefined || apiKey === "") {
        throw new ConfigError(
          `ANTHROPIC_API_KEY is not set: type export ANTHROPIC_API_KEY=<your Anthropic API key> and run again, or run offline with a script: fisk-ai run --config ${shellWord(NOTES_EXAMPLE)} "Remember to buy milk" (docs/script-provider.md)`,
        );
      }
      const { AnthropicProvider } = await import("../llm/anthropic-provider.js");
      return new AnthropicProvider({ apiKey, baseURL: config.baseUrl ?? nonEmpty(env.ANTHROPIC_BASE_URL) });
    }
    case "openai": {
      const baseURL = config.baseUrl ?? nonEmpty(env.OPENAI_BASE_URL);
      const apiKey = nonEmpty(env.OPENAI_API_KEY);
      if (apiKey === undefined && baseURL === undefined) {
        throw new ConfigError(
          "OPENAI_API_KEY is not set: type export OPENAI_API_KEY=<your OpenAI API key> and run again, or set base_url for a local server such as Ollama",
        );
      }
      // Local OpenAI-compatible servers (Ollama, llama.cpp, vLLM) take any key.
      const { OpenAIProvider } = await import("../llm/openai-provider.js");
      return new OpenAIProvider({ apiKey: apiKey ?? "unused", baseURL });
    }
    case "script": {
      const { ScriptProvider } = await import("../llm/script-provider.js");
      try {
        return new ScriptProvider(config.script as string);
      } catch (error) {
        throw new ConfigError((error as Error).message);
      }
    }
  }
}

/**
 * The agent an agent.yaml describes, every default applied; its tools are the config's own
 * (startConfiguredAgent adds its MCP servers' once they are started). `label` names the
 * file in a ConfigError (a command tool's input_schema that is not a JSON Schema).
 */
export async function agentSpecFromConfig(config: AgentConfig, env: NodeJS.ProcessEnv = process.env, label = "the configuration"): Promise<AgentSpec> {
  const memory = config.memoryNamespace === undefined ? undefined : notesBesideSessions(config.store, config.memoryNamespace, env);
  return agentSpec({
    provider: await providerFromConfig(config, env),
    model: config.model,
    system: config.system,
    tools: await configuredTools(config, env, memory, label),
    parallelTools: config.parallelTools,
    budget: { maxOutputTokens: config.maxOutputTokens, maxTokens: config.maxTokens, maxIterations: config.maxIterations },
    thinking: config.thinking,
    retry: { attempts: config.retryAttempts, baseDelayMs: config.retryBaseDelayMs, timeoutMs: config.callTimeoutMs },
    recordVersion: config.recordVersion,
    memory,
    // Unlike a program's, an agent.yaml's compaction is off unless the file turns it on.
    compaction: config.compaction ?? { auto: false },
    approvalTimeoutMs: config.approvalTimeoutMs,
  });
}

/** The config's command tools and child agents, the memory tools when it keeps notes (`memory`), and ask_user when it is on. */
async function configuredTools(config: AgentConfig, env: NodeJS.ProcessEnv, memory: NoteStore | undefined, label: string): Promise<Tool[]> {
  const own = await Promise.all(
    config.tools.map(async (tool, index) =>
      tool.agent !== undefined
        ? childAgentTool(tool, tool.agent, config.maxDepth, env)
        : commandTool({
            name: tool.name,
            description: tool.description,
            command: tool.command as string[],
            input_schema: tool.input_schema,
            timeoutMs: tool.timeout,
            outputLimitBytes: tool.output_limit,
            confirm: tool.confirm,
            onCrash: tool.on_crash,
            env: toolEnvironment(env, secretVariables(config), tool.env),
            allowLeadingDash: tool.allow_leading_dash,
            inputCheck: await inputCheckOf(tool, `${label}: tools[${index}].input_schema (tool ${tool.name})`),
          }),
    ),
  );
  return [...own, ...(memory === undefined ? [] : memoryTools(memory)), ...(config.askUser ? [askUserTool] : [])];
}

/** A command tool's input check, compiled as the agent loads: a schema that is none is a ConfigError at `where`, not an error at each call. */
async function inputCheckOf(tool: AgentConfig["tools"][number], where: string): Promise<InputCheck> {
  try {
    return await compileInputCheck(tool.input_schema);
  } catch (error) {
    throw new ConfigError(`${where}: ${(error as Error).message}`);
  }
}

/**
 * A child agent as a tool: its agent.yaml is checked now, so a mistake in it stops the
 * start; the agent itself (its provider, tools, MCP servers) is made for each call and
 * closed after it, so a child of a child is only made when it is called.
 */
function childAgentTool(tool: AgentConfig["tools"][number], path: string, maxDepth: number, env: NodeJS.ProcessEnv): Tool {
  const config = loadAgentConfig(path);
  return agentTool({ name: tool.name, description: tool.description, maxDepth, agent: async () => startConfiguredAgent(config, path, env) });
}

/** A loaded agent.yaml's agent, its MCP servers started (they stop on close). */
export async function startConfiguredAgent(
  config: AgentConfig,
  path: string | undefined,
  env: NodeJS.ProcessEnv,
  people: McpPeople = {},
): Promise<{ spec: AgentSpec; close(): Promise<void> }> {
  // Built before any server starts: a missing key fails without starting and stopping them.
  const spec = await agentSpecFromConfig(config, env, path);
  let mcp: McpServers | undefined;
  if (config.mcpServers.length > 0) mcp = await (await import("../tools/mcp/mcp-servers.js")).connectMcpServers(mcpDefinitions(config, env, people));
  return {
    spec: agentSpec({ ...spec, tools: [...spec.tools, ...(mcp?.tools ?? [])], configPath: path === undefined ? undefined : resolve(path) }),
    close: async () => {
      await mcp?.close();
    },
  };
}

/** What only the caller knows about its MCP servers: whether a person is there to sign in or answer. */
export interface McpPeople {
  /** Shows a sign-in page to a person; absent where none can sign in. */
  showSignInPage?: ShowSignInPage;
  /** Asks a person a server's question; absent where none can answer (the config's answers are used, else it is declined). */
  ask?: McpElicit;
}

/** How to start the config's MCP servers: a stdio server gets a tool's environment, a header its `${NAME}` values, an HTTP server its way to sign in. */
export function mcpDefinitions(config: AgentConfig, env: NodeJS.ProcessEnv = process.env, people: McpPeople = {}): McpServerDefinition[] {
  return config.mcpServers.map((server, index) => ({
    name: server.name,
    transport:
      server.url !== undefined
        ? httpTransport(
            server,
            server.url,
            expandHeaders(server.headers ?? {}, env, `mcp_servers[${index}].headers`),
            env,
            people,
            `mcp_servers[${index}].auth`,
          )
        : {
            kind: "stdio",
            command: server.command as string,
            args: server.args ?? [],
            env: toolEnvironment(env, secretVariables(config), server.env ?? []),
            ...(server.cwd === undefined ? {} : { cwd: server.cwd }),
          },
    confirm: server.confirm,
    onCrash: server.on_crash,
    timeoutMs: server.timeout,
    outputLimitBytes: server.output_limit,
    ...elicitFor(server, people),
  }));
}

/** A person asks on the terminal; else the config's answers; else no one does (every question is declined). */
function elicitFor(server: McpServerConfig, people: McpPeople): { elicit?: McpElicit } {
  if (people.ask !== undefined) return { elicit: people.ask };
  return server.elicitation === undefined ? {} : { elicit: answerFromValues(server.elicitation.answers) };
}

/** An HTTP server signs in when it asks, unless the config sends its own Authorization header. */
function httpTransport(
  server: McpServerConfig,
  url: string,
  headers: Record<string, string>,
  env: NodeJS.ProcessEnv,
  people: McpPeople,
  field: string,
): McpTransportDefinition {
  const auth = server.auth;
  if (auth === undefined && Object.keys(headers).some((name) => name.toLowerCase() === "authorization")) return { kind: "http", url, headers };
  const secret = auth?.client_secret_env === undefined ? undefined : env[auth.client_secret_env];
  if (auth?.client_secret_env !== undefined && (secret === undefined || secret === "")) {
    throw new ConfigError(`${field}.client_secret_env: ${auth.client_secret_env} is not set: export the client's secret in it`);
  }
  const scope = auth?.scope === undefined ? {} : { scope: auth.scope };
  if (auth?.grant === "client_credentials") {
    const clientId = auth.client_id as string;
    if (secret !== undefined) return { kind: "http", url, headers, auth: { kind: "client-credentials", clientId, clientSecret: secret, ...scope } };
    const keyFile = auth.private_key_file as string;
    let privateKey: string;
    try {
      privateKey = readFileSync(keyFile, "utf8");
    } catch (error) {
      throw new ConfigError(
        `${field}.private_key_file: cannot read ${keyFile} (${(error as NodeJS.ErrnoException).code ?? "unreadable"}): give the path of the client's PEM private key`,
      );
    }
    return { kind: "http", url, headers, auth: { kind: "private-key-jwt", clientId, privateKey, algorithm: auth.algorithm, ...scope } };
  }
  return {
    kind: "http",
    url,
    headers,
    auth: {
      kind: "sign-in",
      dir: mcpSignInDir(env),
      ...(auth?.callback_port === undefined ? {} : { port: auth.callback_port }),
      ...(auth?.client_id === undefined ? {} : { clientId: auth.client_id }),
      ...(secret === undefined ? {} : { clientSecret: secret }),
      ...(auth?.client_metadata_url === undefined ? {} : { clientMetadataUrl: auth.client_metadata_url }),
      ...scope,
      ...(people.showSignInPage === undefined ? {} : { showPage: people.showSignInPage }),
    },
  };
}

/** Where sign-ins to MCP servers are kept: `$XDG_STATE_HOME/fisk-ai/mcp-auth`, one 0600 file per server. */
export function mcpSignInDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(fiskStateHome(env), "mcp-auth");
}

/** Header values may name variables; the error names a missing one, never a value. */
function expandHeaders(headers: Record<string, string>, env: NodeJS.ProcessEnv, field: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [
      name,
      value.replace(ENV_REFERENCE, (_reference, variable: string) => {
        const found = env[variable];
        if (found === undefined) throw new ConfigError(`${field}.${name}: \${${variable}} is not set: export ${variable}, or remove it from the header`);
        return found;
      }),
    ]),
  );
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}
