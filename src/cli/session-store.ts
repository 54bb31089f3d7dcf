// Where the CLI's sessions live: the config's session block, overridden by --state-dir,
// else the XDG default. `run` and the `session` commands share this.
import { existsSync } from "node:fs";
import { loadAgentConfig, type AgentConfig } from "../agent/config.js";
import { FileStore } from "../runstate/file/file-store.js";

/** --config, else ./agent.yaml when there is one, else the defaults. */
export function configPathFrom(flag: string | undefined): string | undefined {
  return flag ?? (existsSync("agent.yaml") ? "agent.yaml" : undefined);
}

export function storeFor(config: AgentConfig): FileStore {
  return new FileStore({ dir: config.stateDir });
}

export function sessionStore(flags: { config?: string; "state-dir"?: string }): FileStore {
  return storeFor(loadAgentConfig(configPathFrom(flags.config), { stateDir: flags["state-dir"] }));
}
