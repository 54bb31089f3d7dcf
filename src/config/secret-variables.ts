// The variables holding secrets that a run of an agent.yaml reads, in one list: the runtime's
// own credentials (provider keys, NATS, OTLP headers) and every variable the file names as a
// secret. Every one is withheld from command tools and stdio MCP servers, and a tool or
// server gets one back only by naming it in its `env`.
// A new place a config can name a secret (a database password, a service's keys) is one
// more entry here; test/secret-variables.test.ts names a secret through every entry.
import { CREDENTIAL_VARIABLES } from "../tools/tool-env.js";
import type { AgentConfig } from "./agent-config.js";

/** `${NAME}` in a header value: the value comes from that variable. */
export const ENV_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** One place in agent.yaml that names variables holding secrets. */
export interface SecretSource {
  /** The agent.yaml field, as docs/agent-yaml.md names it. */
  field: string;
  /** The variables a config names there. */
  names(config: AgentConfig): string[];
}

export const SECRET_SOURCES: readonly SecretSource[] = [
  { field: "(always) provider keys, NATS and OTLP credentials", names: () => [...CREDENTIAL_VARIABLES] },
  { field: "env_deny", names: (config) => config.envDeny },
  { field: "telemetry.headers_env", names: (config) => Object.values(config.telemetry?.headersEnv ?? {}) },
  {
    field: "mcp_servers[].auth.client_secret_env",
    names: (config) => config.mcpServers.flatMap((server) => (server.auth?.client_secret_env === undefined ? [] : [server.auth.client_secret_env])),
  },
  {
    field: "mcp_servers[].headers",
    names: (config) =>
      config.mcpServers.flatMap((server) =>
        Object.values(server.headers ?? {}).flatMap((value) => [...value.matchAll(ENV_REFERENCE)].map((match) => match[1] as string)),
      ),
  },
];

/** Every variable the config names as a secret, each once. */
export function secretVariables(config: AgentConfig): string[] {
  return [...new Set(SECRET_SOURCES.flatMap((source) => source.names(config)))];
}
