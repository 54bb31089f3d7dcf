// From a validated agent.yaml and the environment to the options runAgent takes. The
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
import { ConfigError } from "../agent/agent-errors.js";
import type { RunAgentOptions } from "../agent/run-agent.js";
import type { AgentConfig } from "./agent-config.js";

function providerFromConfig(config: AgentConfig, env: NodeJS.ProcessEnv = process.env): ModelProvider {
  switch (config.provider) {
    case "anthropic": {
      const apiKey = env.ANTHROPIC_API_KEY;
      if (apiKey === undefined || apiKey === "") {
        throw new ConfigError("ANTHROPIC_API_KEY is not set: export your Anthropic API key, or run offline with --provider script");
      }
      return new AnthropicProvider({ apiKey, baseURL: config.baseUrl ?? nonEmpty(env.ANTHROPIC_BASE_URL) });
    }
    case "openai": {
      const baseURL = config.baseUrl ?? nonEmpty(env.OPENAI_BASE_URL);
      const apiKey = nonEmpty(env.OPENAI_API_KEY);
      if (apiKey === undefined && baseURL === undefined) {
        throw new ConfigError("OPENAI_API_KEY is not set: export your OpenAI API key, or set base_url for a local server such as Ollama");
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

/** What an agent.yaml says of a run: everything runAgent takes but the session (prompt or resume, store) and the callbacks. */
export type AgentRunOptions = Pick<
  RunAgentOptions,
  "provider" | "model" | "system" | "tools" | "parallelTools" | "budget" | "thinking" | "retry" | "memory" | "compaction" | "approvalTimeoutMs" | "recordVersion" | "configPath"
>;

/** The tools are the config's own: loadAgent adds its MCP servers' once they are started. */
export function runOptionsFromConfig(config: AgentConfig, env: NodeJS.ProcessEnv = process.env): AgentRunOptions {
  const memory = config.memoryNamespace === undefined ? undefined : new FileNoteStore(memoryDir(config.memoryNamespace, env));
  return {
    provider: providerFromConfig(config, env),
    model: config.model,
    system: config.system,
    tools: configuredTools(config, env, memory),
    parallelTools: config.parallelTools,
    budget: { maxOutputTokens: config.maxOutputTokens, maxTokens: config.maxTokens, maxIterations: config.maxIterations },
    thinking: config.thinking,
    retry: { attempts: config.retryAttempts, baseDelayMs: config.retryBaseDelayMs, timeoutMs: config.callTimeoutMs },
    recordVersion: config.recordVersion,
    ...(memory === undefined ? {} : { memory }),
    ...(config.compaction === undefined ? { compaction: { auto: false } } : { compaction: config.compaction }),
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
