// From a validated agent.yaml and the environment to what the loop runs with. The
// environment is read here and only here: credentials never enter the config or a record.
import { AnthropicProvider } from "../llm/anthropic-provider.js";
import type { ModelProvider } from "../llm/model-provider.js";
import { OpenAIProvider } from "../llm/openai-provider.js";
import { ScriptProvider } from "../llm/script-provider.js";
import { FileNoteStore, memoryDir } from "../memory/file-note-store.js";
import { memoryTools } from "../memory/memory-tools.js";
import { askUserTool } from "../tools/ask-user.js";
import { commandTool } from "../tools/command-tool.js";
import { toolEnvironment } from "../tools/tool-env.js";
import type { McpServerDefinition } from "../tools/mcp/mcp-servers.js";
import type { Tool } from "../tools/tool.js";
import { ToolSet } from "../tools/tool-set.js";
import type { AgentSettings } from "./agent-loop.js";
import { ConfigError } from "./agent-errors.js";
import type { AgentConfig } from "./config.js";

function providerFromConfig(config: AgentConfig, env: NodeJS.ProcessEnv = process.env): ModelProvider {
  switch (config.provider) {
    case "anthropic": {
      const apiKey = env.ANTHROPIC_API_KEY;
      if (apiKey === undefined || apiKey === "") {
        throw new ConfigError("ANTHROPIC_API_KEY is not set: type export ANTHROPIC_API_KEY=<your Anthropic API key> and run again, or run offline with a script: fisk-ai run --config examples/notes/agent.yaml \"Remember to buy milk\" (docs/script-provider.md)");
      }
      return new AnthropicProvider({ apiKey, baseURL: config.baseUrl ?? nonEmpty(env.ANTHROPIC_BASE_URL) });
    }
    case "openai": {
      const baseURL = config.baseUrl ?? nonEmpty(env.OPENAI_BASE_URL);
      const apiKey = nonEmpty(env.OPENAI_API_KEY);
      if (apiKey === undefined && baseURL === undefined) {
        throw new ConfigError("OPENAI_API_KEY is not set: type export OPENAI_API_KEY=<your OpenAI API key> and run again, or set base_url for a local server such as Ollama");
      }
      // Local OpenAI-compatible servers (Ollama, llama.cpp, vLLM) take any key.
      return new OpenAIProvider({ apiKey: apiKey ?? "unused", baseURL });
    }
    case "script": {
      try {
        return new ScriptProvider(config.script as string);
      } catch (error) {
        throw new ConfigError((error as Error).message);
      }
    }
  }
}

/** `mcpTools`: the tools of the config's MCP servers, once they are started (connectMcpServers). */
export function settingsFromConfig(config: AgentConfig, env: NodeJS.ProcessEnv = process.env, mcpTools: readonly Tool[] = []): AgentSettings {
  const memory = config.memoryNamespace === undefined ? undefined : new FileNoteStore(memoryDir(config.memoryNamespace, env));
  let tools: ToolSet;
  try {
    tools = new ToolSet([...configuredTools(config, env, memory), ...mcpTools]);
  } catch (error) {
    throw new ConfigError(`tools: ${(error as Error).message}`);
  }
  return {
    provider: providerFromConfig(config, env),
    model: config.model,
    system: config.system,
    tools,
    parallelTools: config.parallelTools,
    maxOutputTokens: config.maxOutputTokens,
    maxTokens: config.maxTokens,
    maxIterations: config.maxIterations,
    thinking: config.thinking,
    retry: { attempts: config.retryAttempts, baseDelayMs: config.retryBaseDelayMs, timeoutMs: config.callTimeoutMs },
    ...(memory === undefined ? {} : { memory }),
    ...(config.compaction === undefined ? {} : { compaction: config.compaction }),
    ...(config.approvalTimeoutMs === undefined ? {} : { approvalTimeoutMs: config.approvalTimeoutMs }),
  };
}

/** The config's command tools, the memory tools when it keeps notes (`memory`), and ask_user when it is on. */
function configuredTools(config: AgentConfig, env: NodeJS.ProcessEnv, memory: FileNoteStore | undefined): Tool[] {
  return [
    ...config.tools.map((tool) =>
      commandTool({
        name: tool.name,
        description: tool.description,
        command: tool.command,
        input_schema: tool.input_schema,
        timeoutMs: tool.timeout,
        outputLimitBytes: tool.output_limit,
        confirm: tool.confirm,
        onCrash: tool.on_crash,
        env: toolEnvironment(env, config.envDeny, tool.env),
      }),
    ),
    ...(memory === undefined ? [] : memoryTools(memory)),
    ...(config.askUser ? [askUserTool] : []),
  ];
}

/**
 * What `fisk-ai session compact` summarizes with: the config's provider, model, system
 * prompt and tools (not its MCP servers', which it does not start).
 */
export function summarizerFromConfig(config: AgentConfig, env: NodeJS.ProcessEnv = process.env): { provider: ModelProvider; model: string; system: string; tools: Tool[]; maxOutputTokens: number } {
  const memory = config.memoryNamespace === undefined ? undefined : new FileNoteStore(memoryDir(config.memoryNamespace, env));
  return { provider: providerFromConfig(config, env), model: config.model, system: config.system, tools: configuredTools(config, env, memory), maxOutputTokens: config.maxOutputTokens };
}

/** How to start the config's MCP servers: a stdio server gets a tool's environment, a header its `${NAME}` values. */
export function mcpDefinitions(config: AgentConfig, env: NodeJS.ProcessEnv = process.env): McpServerDefinition[] {
  return config.mcpServers.map((server, index) => ({
    name: server.name,
    transport:
      server.url !== undefined
        ? { kind: "http", url: server.url, headers: expandHeaders(server.headers ?? {}, env, `mcp_servers[${index}].headers`) }
        : {
            kind: "stdio",
            command: server.command as string,
            args: server.args ?? [],
            env: toolEnvironment(env, config.envDeny, server.env ?? []),
            ...(server.cwd === undefined ? {} : { cwd: server.cwd }),
          },
    confirm: server.confirm,
    onCrash: server.on_crash,
    timeoutMs: server.timeout,
  }));
}

const ENV_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

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
