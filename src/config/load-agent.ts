// An agent.yaml as a program uses it: loaded and checked once, its MCP servers started, and
// turned into what runAgent takes. The CLI, a worker and a server embedding the library all
// load an agent this way, so a run started by any of them is the same run.
import { resolve } from "node:path";
import type { Backend } from "../backends/backend.js";
import { createStore, openBackend } from "../backends/open-backend.js";
import type { Store } from "../runstate/store/store.js";
import { loadAgentConfig, type AgentConfig, type ConfigOverrides } from "./agent-config.js";
import type { AgentSpec } from "../agent/agent-spec.js";
import { startConfiguredAgent, type McpPeople } from "./run-options.js";

/** Where loadAgent reads what the file does not hold. */
export interface LoadAgentOptions {
  /** Where credentials and tools' variables come from (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Settings that replace the file's, as the CLI's --provider, --model and --store do. */
  overrides?: ConfigOverrides;
}

/** A loaded agent.yaml: spread `spec` into runAgent with a prompt (or resume) and a store; close it when done. */
export interface LoadedAgent {
  /** The agent.yaml's absolute path; undefined for the defaults. */
  readonly path: string | undefined;
  /** The agent it describes, every default applied: provider, model, system prompt, tools (its MCP servers' among them), budgets, memory. */
  readonly spec: AgentSpec;
  /** The session store of its `session:` block (the overrides' when given). */
  openStore(report?: (line: string) => void): Promise<Store>;
  /** The backend of its `session:` block (the overrides' when given): the store and, where the backend has one, the worker pool's queue. */
  openBackend(report?: (line: string) => void): Promise<Backend>;
  /** Stops its MCP servers. */
  close(): Promise<void>;
}

/**
 * Loads the agent.yaml at `path` (undefined: the defaults) and starts its MCP servers.
 * Rejects with a ConfigError naming the field for a file that does not check, or an
 * MCP server's error when one cannot be started.
 */
export async function loadAgent(path: string | undefined, options: LoadAgentOptions = {}): Promise<LoadedAgent> {
  return startAgent(loadAgentConfig(path, options.overrides), path, options.env);
}

/**
 * The agent of an already loaded config: its MCP servers start in the current directory,
 * where its tools run. `people` says who can sign in to them and answer their questions
 * (no one by default: a server that needs a sign-in rejects with McpSignInNeededError).
 */
export async function startAgent(
  config: AgentConfig,
  path: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  people: McpPeople = {},
): Promise<LoadedAgent> {
  const started = await startConfiguredAgent(config, path, env, people);
  return {
    path: path === undefined ? undefined : resolve(path),
    spec: started.spec,
    openStore: (report) => createStore(config.store, report),
    openBackend: (report) => openBackend(config.store, { report }),
    close: () => started.close(),
  };
}
