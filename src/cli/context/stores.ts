// Where the CLI's sessions live: --store or --state-dir, else the config's session block,
// else the XDG default. `run` and the `session` commands share this, and name no backend class.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { AgentConfig } from "../../config/agent-config.js";
import type { Backend } from "../../backends/backend.js";
import { createStore, openBackend } from "../../backends/open-backend.js";
import type { StoreConfig } from "../../backends/store-config.js";
import { parseStoreUrl } from "../../backends/store-url.js";
import type { Store } from "../../runstate/store/store.js";
import { storeFlag, UsageError } from "../cli-errors.js";
import { maskUrlCredentials } from "../../errors/masked-url.js";
import type { STORE_OPTIONS } from "./command-context.js";
import type { Flags } from "./options.js";

/** --config, else ./agent.yaml when there is one, else the defaults. */
export function configPathFrom(flag: string | undefined): string | undefined {
  return flag ?? (existsSync("agent.yaml") ? "agent.yaml" : undefined);
}

/** The flags every command that keeps sessions takes. */
export type StoreFlags = Flags<typeof STORE_OPTIONS>;

/** The store the flags name, if they name one: then the config is not read for it. */
export function storeFromFlags(flags: StoreFlags): StoreConfig | undefined {
  if (flags.store !== undefined && flags.stateDir !== undefined) throw new UsageError("--store and --state-dir each name where sessions are kept: give one");
  if (flags.store !== undefined) return parseStoreUrl(flags.store);
  if (flags.stateDir !== undefined) return { backend: "file", dir: resolve(flags.stateDir) };
  return undefined;
}

/** The store flags a store's name stands for (`session mv --to`, a moved record): a URL is read by the store parser (its scheme's backend), anything else is a directory. */
export function storeFlagsOf(name: string): StoreFlags {
  return storeFlag(name) === "--store" ? { store: name } : { stateDir: name };
}

/** Whether the store a moved record names holds the session: then the move counts, and a resume goes on there. */
export async function storeHolds(to: string, runId: string, stderr: NodeJS.WritableStream): Promise<boolean> {
  const { holdsSession } = await import("../../session/move-session.js");
  const store = await openStore(storeFromFlags(storeFlagsOf(to)) as StoreConfig, stderr);
  try {
    return await holdsSession(store, runId);
  } finally {
    await store.close();
  }
}

/** Opens a store, reporting a server's comings and goings on stderr. */
export function openStore(config: StoreConfig, stderr: NodeJS.WritableStream): Promise<Store> {
  return createStore(config, reportOn(stderr));
}

/** Opens a backend's bundle (its store and, where it has one, its queue), reporting a server's comings and goings on stderr. */
export function openSessionBackend(config: StoreConfig, stderr: NodeJS.WritableStream): Promise<Backend> {
  return openBackend(config, { report: reportOn(stderr) });
}

function reportOn(stderr: NodeJS.WritableStream): (line: string) => void {
  return (line) => stderr.write(`fisk-ai: ${maskUrlCredentials(line)}\n`);
}

export function storeFor(config: AgentConfig, stderr: NodeJS.WritableStream): Promise<Store> {
  return openStore(config.store, stderr);
}

/**
 * With --state-dir or --store, or no agent.yaml to read, the config is not loaded at all:
 * listing should not pay for the YAML parser and the config's schema. Without an agent.yaml
 * the session block is its defaults: a file store in the default directory.
 */
export async function sessionStoreConfig(flags: StoreFlags): Promise<StoreConfig> {
  const named = storeFromFlags(flags);
  if (named !== undefined) return named;
  const path = configPathFrom(flags.config);
  if (path === undefined) return { backend: "file" };
  const { loadAgentConfig } = await import("../../config/agent-config.js");
  return loadAgentConfig(path).store;
}
