// `fisk-ai session ...`: the operator's window into the journal. Each subcommand is a module
// of session/, a few lines over the store; the work is in the library. This is what they
// share: the context their handler is given, the stores they open, and the helpers more
// than one uses.
import { resolve } from "node:path";
import type { AgentConfig, Retention } from "../../config/agent-config.js";
import { reportFailure, UsageError } from "../cli-errors.js";
import { EXIT } from "../exit-codes.js";
import type { CommandIO } from "./command-io.js";
import type { CrashPolicyOf } from "../text/session-show.js";
import type { ResumeWhere } from "./resume-hint.js";
import type { MetaPayload } from "../../runstate/records/records.js";
import type { Store } from "../../runstate/store/store.js";
import type { Backend } from "../../backends/backend.js";
import type { STORE_OPTIONS } from "./command-context.js";
import type { Flags, Options } from "./options.js";
import type { SubcommandModule } from "./subcommands.js";
import { configPathFrom, openSessionBackend, sessionStoreConfig, type StoreFlags } from "./stores.js";

export function ids(positionals: string[], command: string, { atMostOne = false } = {}): string[] {
  if (positionals.length === 0) throw new UsageError(`session ${command} needs a session id; 'fisk-ai session ls' lists them`);
  if (atMostOne && positionals.length > 1) throw new UsageError(`session ${command} takes one session id`);
  return positionals;
}

/** What a session subcommand's handler is given. */
export interface SessionContext<O extends Options = Options> {
  positionals: string[];
  values: Flags<typeof STORE_OPTIONS & O>;
  io: CommandIO;
  /** Opens the store the flags name; the command closes every store it opened when it ends. */
  sessionStore: (flags: StoreFlags) => Promise<Store>;
  /** Opens the backend the flags name: its store and, where it has one, the worker pool's queue; closed when the command ends. */
  sessionBackend: (flags: StoreFlags) => Promise<Backend>;
}

export async function sessionCommand(
  subcommand: SubcommandModule<SessionContext>,
  positionals: string[],
  values: Flags<typeof STORE_OPTIONS>,
  io: CommandIO,
): Promise<number> {
  const opened: Backend[] = [];
  const sessionBackend = async (flags: StoreFlags) => {
    const backend = await openSessionBackend(await sessionStoreConfig(flags), io.stderr);
    opened.push(backend);
    return backend;
  };
  const sessionStore = async (flags: StoreFlags) => (await sessionBackend(flags)).store;
  try {
    return await subcommand.run({ positionals, values, io, sessionStore, sessionBackend });
  } finally {
    // A server connection would otherwise keep the process alive after the command.
    const { closeBackend } = await import("../../backends/pool-queue.js");
    for (const backend of opened) await closeBackend(backend);
  }
}

/**
 * The configured tools' `on_crash` policies, shown beside a pending call. An agent.yaml
 * found only in the working directory may not be the session's: if it does not load,
 * the policies are left out rather than failing the show. The agent.yaml the session
 * recorded comes before it, as it does for a resume.
 */
export async function crashPolicies(configFlag: string | undefined, meta: Pick<MetaPayload, "config"> | undefined): Promise<CrashPolicyOf> {
  const { sessionAgentPath } = await import("../../session/session-agent-path.js");
  const path = sessionAgentPath(meta, { given: configFlag, fallback: configPathFrom(undefined) });
  if (path === undefined) return () => undefined;
  const [{ loadAgentConfig }, { crashPolicyAmong }] = await Promise.all([import("../../config/agent-config.js"), import("../../tools/mcp/mcp-names.js")]);
  let config: Pick<AgentConfig, "tools" | "mcpServers">;
  try {
    config = loadAgentConfig(path);
  } catch (error) {
    if (configFlag !== undefined) throw error;
    return () => undefined;
  }
  const policies = new Map(config.tools.map((tool) => [tool.name, tool.on_crash]));
  return (name) => policies.get(name) ?? crashPolicyAmong(config.mcpServers, name);
}

/** agent.yaml's session.retention (--config, else ./agent.yaml when there is one). */
export async function retentionFrom(flags: StoreFlags): Promise<Retention | undefined> {
  const path = configPathFrom(flags.config);
  if (path === undefined) return undefined;
  const { loadAgentConfig } = await import("../../config/agent-config.js");
  return loadAgentConfig(path).retention;
}

/**
 * The tracing environment of a session command that sends spans of its own: the
 * environment with agent.yaml's telemetry block beneath it, as a run reads it (--config,
 * else ./agent.yaml when there is one); undefined when it does not turn tracing on.
 */
export async function tracingEnvironment(flags: StoreFlags, env: NodeJS.ProcessEnv): Promise<NodeJS.ProcessEnv | undefined> {
  const path = configPathFrom(flags.config);
  const [{ telemetryEnvironment }, { tracingWanted }, { loadAgentConfig }] = await Promise.all([
    import("../../telemetry/config-environment.js"),
    import("../../telemetry/otel-setup.js"),
    import("../../config/agent-config.js"),
  ]);
  const traced = telemetryEnvironment(path === undefined ? undefined : loadAgentConfig(path).telemetry, env);
  return tracingWanted(traced) ? traced : undefined;
}

/**
 * Runs `each` for every id. The exit code is 0 when all went well, the failure's own code
 * when every id that failed failed alike (one unknown id: 6), and 1 when some of the ids
 * were dealt with and others failed for different reasons.
 */
export async function forEachId(runIds: string[], streams: { stderr: NodeJS.WritableStream }, each: (runId: string) => Promise<number>): Promise<number> {
  const failures = new Set<number>();
  for (const runId of runIds) {
    let code: number;
    try {
      code = await each(runId);
    } catch (error) {
      code = reportFailure(error, streams.stderr);
    }
    if (code !== EXIT.completed) failures.add(code);
  }
  if (failures.size === 0) return EXIT.completed;
  return failures.size === 1 ? ([...failures][0] as number) : EXIT.error;
}

/** Whether the full-screen viewer may take the terminal: both ends a terminal, and NO_TUI not set (to anything but "" or "0"). */
export function onTerminal(io: CommandIO): boolean {
  const refused = (io.env.NO_TUI ?? "") !== "" && io.env.NO_TUI !== "0";
  return !refused && io.stdin.isTTY === true && (io.stdout as NodeJS.WriteStream).isTTY === true;
}

/**
 * The options a pasted resume of a stored session needs: the store, named as itself rather than
 * by an agent.yaml, since a bare resume runs with the configuration the session recorded
 * (a child's is not the lead's); the agent.yaml only for a session that recorded none.
 */
export async function recordedSessionWhere(flags: StoreFlags, recordedConfig: string | undefined): Promise<ResumeWhere> {
  const where = storeWhere(flags);
  if (where.config === undefined || recordedConfig === undefined) return where;
  const config = await sessionStoreConfig(flags);
  if (config.backend === "file") return config.dir === undefined ? {} : { stateDir: resolve(config.dir) };
  if (config.backend === "jetstream" && typeof config.servers === "string") return { store: `${config.servers}/${config.stream}` };
  return where;
}

/** The options a pasted resume needs to find this store from any directory. */
export function storeWhere(flags: StoreFlags): ResumeWhere {
  if (flags.store !== undefined) return { store: flags.store };
  const stateDir = flags.stateDir;
  if (stateDir !== undefined) return { stateDir: resolve(stateDir) };
  const config = configPathFrom(flags.config);
  return config === undefined ? {} : { config: resolve(config) };
}
