// The agent a pool command works with, from an agent.yaml: its configuration, the
// settings a run is driven (and fingerprinted) with, and its MCP servers, started once.
import { resolve } from "node:path";
import { loadAgentConfig, type AgentConfig } from "../agent/config.js";
import type { AgentSettings } from "../agent/agent-loop.js";
import { mcpDefinitions, settingsFromConfig } from "../agent/settings-from-config.js";
import type { StoreConfig } from "../runstate/create-store.js";

export interface PoolAgent {
  config: AgentConfig;
  /** The absolute agent.yaml, recorded in a submitted run's meta. */
  path: string | undefined;
  settings: AgentSettings;
  close(): Promise<void>;
}

export async function poolAgent(path: string | undefined, env: NodeJS.ProcessEnv, store: StoreConfig | undefined): Promise<PoolAgent> {
  const config = loadAgentConfig(path, store === undefined ? {} : { store });
  const mcp = config.mcpServers.length > 0 ? await (await import("../tools/mcp/mcp-servers.js")).connectMcpServers(mcpDefinitions(config, env)) : undefined;
  return {
    config,
    path: path === undefined ? undefined : resolve(path),
    settings: settingsFromConfig(config, env, mcp?.tools),
    close: async () => await mcp?.close(),
  };
}
