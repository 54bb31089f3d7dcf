// Where the CLI's sessions live: --state-dir, else the config's session block, else the
// XDG default. `run` and the `session` commands share this, and name no backend class.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { AgentConfig } from "../agent/config.js";
import { createStore } from "../runstate/create-store.js";
import type { Store } from "../runstate/store.js";

/** --config, else ./agent.yaml when there is one, else the defaults. */
export function configPathFrom(flag: string | undefined): string | undefined {
  return flag ?? (existsSync("agent.yaml") ? "agent.yaml" : undefined);
}

export function storeFor(config: AgentConfig): Promise<Store> {
  return createStore({ backend: "file", dir: config.stateDir });
}

/** With --state-dir the config is not read at all: listing should not pay for parsing YAML. */
export async function sessionStore(flags: { config?: string; "state-dir"?: string }): Promise<Store> {
  const stateDir = flags["state-dir"];
  if (stateDir !== undefined) return createStore({ backend: "file", dir: resolve(stateDir) });
  const { loadAgentConfig } = await import("../agent/config.js");
  return storeFor(loadAgentConfig(configPathFrom(flags.config)));
}
