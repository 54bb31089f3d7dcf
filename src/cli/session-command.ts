// `fisk-ai session ...`: the operator's window into the journal. Each subcommand is a
// few lines over the store; the work is in the library.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { AgentConfig, Retention } from "../config/agent-config.js";
import { assertRunId } from "../runstate/run-id.js";
import { UsageError } from "./cli-errors.js";
import { EXIT } from "./exit-codes.js";
import type { CommandIO } from "./run-command.js";
import type { CrashPolicyOf } from "./session-show.js";
import type { ResumeWhere } from "./resume-hint.js";
import type { Store } from "../runstate/store.js";
import { configPathFrom, openStore, sessionStoreConfig, type StoreFlags } from "./session-store.js";

export type SessionCommandName =
  | "ls"
  | "show"
  | "rm"
  | "verify"
  | "export"
  | "import"
  | "mv"
  | "fork"
  | "compact"
  | "init-stream"
  | "approve"
  | "deny"
  | "answer"
  | "pending"
  | "stats"
  | "du"
  | "prune"
  | "rename"
  | "search"
  | "trace";

/** The options the session commands declare in program.ts, as commander names them. */
export interface SessionFlags extends StoreFlags {
  json?: boolean;
  here?: boolean;
  transcript?: boolean;
  full?: boolean;
  follow?: boolean;
  /** false under --no-tui: the plain print even on a terminal. */
  tui?: boolean;
  output?: string;
  format?: string;
  name?: string;
  to?: string;
  at?: string;
  prefix?: string;
  undo?: boolean;
  all?: boolean;
  reason?: string;
  call?: string;
  resume?: boolean;
  since?: string;
  by?: string;
  olderThan?: string;
  status?: string;
  keepLast?: string;
  dryRun?: boolean;
  endpoint?: string;
  tree?: boolean;
  flat?: boolean;
  force?: boolean;
}

function ids(positionals: string[], command: string, { atMostOne = false } = {}): string[] {
  if (positionals.length === 0) throw new UsageError(`session ${command} needs a session id; 'fisk-ai session ls' lists them`);
  if (atMostOne && positionals.length > 1) throw new UsageError(`session ${command} takes one session id`);
  return positionals;
}

export async function sessionCommand(command: SessionCommandName, positionals: string[], values: SessionFlags, io: CommandIO): Promise<number> {
  const opened: Store[] = [];
  const sessionStore = async (flags: StoreFlags) => {
    const store = await openStore(await sessionStoreConfig(flags), io.stderr);
    opened.push(store);
    return store;
  };
  try {
    return await sessionSubcommand(command, positionals, values, io, sessionStore);
  } finally {
    // A server connection would otherwise keep the process alive after the command.
    for (const store of opened) await store.close();
  }
}

async function sessionSubcommand(
  command: SessionCommandName,
  positionals: string[],
  values: SessionFlags,
  io: CommandIO,
  sessionStore: (flags: StoreFlags) => Promise<Store>,
): Promise<number> {
  const streams = { stdout: io.stdout, stderr: io.stderr };
  switch (command) {
    case "ls": {
      if (positionals.length > 0) throw new UsageError("session ls takes no arguments");
      // Each subcommand loads only its own modules: `session ls` is the one run often.
      if (values.tree === true && values.flat === true) throw new UsageError("session ls lays children out as a tree (--tree) or not at all (--flat): give one of them");
      const { listSessions } = await import("./session-list.js");
      const layout = values.tree === true ? "tree" : values.flat === true ? "flat" : "indented";
      await listSessions(await sessionStore(values), { json: values.json === true, here: values.here === true ? process.cwd() : undefined, layout }, io.stdout);
      return EXIT.completed;
    }
    case "show": {
      const [named] = ids(positionals, command, { atMostOne: true }) as [string];
      const flags = { json: values.json === true, transcript: values.transcript === true, full: values.full === true, follow: values.follow === true };
      if (flags.json && flags.follow) throw new UsageError("session show --json is the state as it is now: give --json or --follow, not both");
      const store = await sessionStore(values);
      const [{ resolveSession }, { pricesFrom }] = await Promise.all([import("./session-resolve.js"), import("./session-ledger.js")]);
      const runId = await resolveSession(store, named);
      if ((flags.transcript || flags.follow) && !flags.json && values.tui !== false && onTerminal(io)) {
        const { viewSession } = await import("./viewer/view-session.js");
        return viewSession(store, runId, { follow: flags.follow }, io);
      }
      const recorded = (await store.summarize(runId)).meta?.config;
      const { showSession } = await import("./session-show.js");
      await showSession(store, runId, flags, io.stdout, await crashPolicies(values.config, recorded), await pricesFrom(values.config));
      return EXIT.completed;
    }
    case "stats": {
      if (positionals.length > 0) throw new UsageError("session stats takes no arguments");
      const [{ checkStatsFlags, sessionStats }, { pricesFrom }] = await Promise.all([import("./session-stats.js"), import("./session-ledger.js")]);
      const { sinceMs, by } = checkStatsFlags(values);
      await sessionStats(await sessionStore(values), { sinceMs, by, json: values.json === true, prices: await pricesFrom(values.config), now: Date.now() }, io.stdout);
      return EXIT.completed;
    }
    case "du": {
      if (positionals.length > 0) throw new UsageError("session du takes no arguments");
      const { sessionDiskUse } = await import("./session-du.js");
      await sessionDiskUse(await sessionStore(values), { json: values.json === true }, io.stdout);
      return EXIT.completed;
    }
    case "prune": {
      if (positionals.length > 0) throw new UsageError("session prune takes no arguments: say what to remove with --older-than, --status and --keep-last");
      const { pruneFilters, pruneSessions } = await import("./session-prune.js");
      const filters = pruneFilters(values, await retentionFrom(values));
      return pruneSessions(await sessionStore(values), filters, { dryRun: values.dryRun === true, json: values.json === true, now: Date.now() }, streams);
    }
    case "rename": {
      if (positionals.length !== 2) throw new UsageError('session rename takes a session (its id or title) and the new title: fisk-ai session rename ID "TITLE"');
      const [named, title] = positionals as [string, string];
      const store = await sessionStore(values);
      const [{ resolveSession }, { checkedTitle }, { titleSession }] = await Promise.all([import("./session-resolve.js"), import("./session-title.js"), import("../runstate/session-title.js")]);
      const runId = await resolveSession(store, named);
      await titleSession(store, runId, checkedTitle(title, "the title"));
      io.stdout.write(`session ${runId} is titled ${JSON.stringify(title)}\n`);
      return EXIT.completed;
    }
    case "search": {
      if (positionals.length !== 1) throw new UsageError('session search takes the text to find, as one argument (quote it): fisk-ai session search "TEXT"');
      const { searchSessions } = await import("./session-search.js");
      await searchSessions(await sessionStore(values), positionals[0] as string, { json: values.json === true }, io.stdout);
      return EXIT.completed;
    }
    case "trace": {
      const [named] = ids(positionals, command, { atMostOne: true }) as [string];
      const [{ tracingWanted }, { resolveSession }] = await Promise.all([import("../telemetry/otel-setup.js"), import("./session-resolve.js")]);
      if (values.endpoint === undefined && !tracingWanted(io.env)) {
        throw new UsageError("session trace needs a collector to send to: give --endpoint URL (such as http://localhost:4318) or set OTEL_EXPORTER_OTLP_ENDPOINT");
      }
      if (values.endpoint !== undefined && !/^https?:\/\/[^/\s]+/.test(values.endpoint)) {
        throw new UsageError(`--endpoint ${values.endpoint} is not an http(s) URL: give the collector's OTLP/HTTP address, such as http://localhost:4318`);
      }
      const store = await sessionStore(values);
      const runId = await resolveSession(store, named);
      const { exportSessionTrace } = await import("../telemetry/traced-run.js");
      try {
        const sent = await exportSessionTrace(store, runId, io.env, values.endpoint);
        io.stdout.write(`sent ${sent} spans of session ${runId}\n`);
        return EXIT.completed;
      } catch (error) {
        io.stderr.write(`fisk-ai: ${(error as Error).message}; check the collector's address and that it is running\n`);
        return EXIT.error;
      }
    }
    case "rm":
    case "verify": {
      const store = await sessionStore(values);
      const runIds = ids(positionals, command);
      const { removeSessions, verifySessions } = await import("./session-maintenance.js");
      return command === "rm" ? removeSessions(store, runIds, streams, { force: values.force === true }) : verifySessions(store, runIds, streams);
    }
    case "export": {
      const [runId] = ids(positionals, command, { atMostOne: true }) as [string];
      assertRunId(runId);
      if (values.format === "html") {
        const [{ exportHtml }, { pricesFrom }] = await Promise.all([import("./session-html.js"), import("./session-ledger.js")]);
        await exportHtml(await sessionStore(values), runId, values.output, io.stdout, await pricesFrom(values.config));
        return EXIT.completed;
      }
      const { exportSession } = await import("./session-transfer.js");
      await exportSession(await sessionStore(values), runId, values.output, streams);
      return EXIT.completed;
    }
    case "import": {
      if (positionals.length !== 1) throw new UsageError("session import takes one file (or - for stdin)");
      const [{ importSession }, { resumeCommand }] = await Promise.all([import("./session-transfer.js"), import("./resume-hint.js")]);
      const runId = await importSession(await sessionStore(values), positionals[0] as string, values.name, io.stdin);
      io.stdout.write(`imported session ${runId}; resume with: ${resumeCommand(runId, storeWhere(values), io.env)}\n`);
      return EXIT.completed;
    }
    case "mv": {
      const [runId] = ids(positionals, command, { atMostOne: true }) as [string];
      assertRunId(runId);
      const [{ moveStoredSession }, { resumeCommand }] = await Promise.all([import("./session-move.js"), import("./resume-hint.js")]);
      if (values.to === undefined) throw new UsageError("session mv needs --to STORE: nats://HOST:PORT/STREAM, or a directory");
      const from = { store: await sessionStore(values), config: await sessionStoreConfig(values) };
      const { outcome, where } = await moveStoredSession(from, (flags) => sessionStore(flags), runId, values.to, io.moveStep);
      const done = outcome === "done" ? `session ${runId} is in ${where.store ?? where.stateDir} already` : `${outcome === "finished" ? "finished moving" : "moved"} session ${runId} to ${where.store ?? where.stateDir}`;
      io.stdout.write(`${done}; resume with: ${resumeCommand(runId, where, io.env)}\n`);
      return EXIT.completed;
    }
    case "fork": {
      const [runId] = ids(positionals, command, { atMostOne: true }) as [string];
      assertRunId(runId);
      const [{ forkSession }, { resumeCommand }] = await Promise.all([import("./session-transfer.js"), import("./resume-hint.js")]);
      const { forkId, at } = await forkSession(await sessionStore(values), runId, { at: values.at, name: values.name });
      io.stdout.write(`forked ${runId} at seq ${at} as ${forkId}; resume with: ${resumeCommand(forkId, storeWhere(values), io.env)}\n`);
      return EXIT.completed;
    }
    case "compact": {
      const [runId] = ids(positionals, command, { atMostOne: true }) as [string];
      assertRunId(runId);
      const { compactStoredSession } = await import("./session-compact.js");
      await compactStoredSession(await sessionStore(values), runId, { config: values.config, undo: values.undo === true }, { ...streams, env: io.env });
      return EXIT.completed;
    }
    case "approve":
    case "deny":
    case "answer": {
      const { decideRequest, decideCalls } = await import("./session-decide.js");
      const request = decideRequest(command, positionals, values);
      assertRunId(request.runId);
      await decideCalls(await sessionStore(values), request, io.stdout, { where: storeWhere(values), env: io.env, decisionsJournaled: io.decisionsJournaled, resuming: values.resume === true });
      if (values.resume !== true) return EXIT.completed;
      const { runCommand } = await import("./run-command.js");
      return runCommand([], { resume: request.runId, config: values.config, stateDir: values.stateDir, store: values.store }, io);
    }
    case "pending": {
      if (positionals.length > 0) throw new UsageError("session pending takes no arguments");
      const { showPending } = await import("./session-decide.js");
      await showPending(await sessionStore(values), values.json === true, io.stdout);
      return EXIT.completed;
    }
    case "init-stream": {
      if (positionals.length > 0) throw new UsageError("session init-stream takes no arguments");
      const config = await sessionStoreConfig(values);
      if (config.backend !== "jetstream") throw new UsageError("session init-stream needs a JetStream store: give --store nats://HOST:PORT/STREAM or session.backend: jetstream");
      const { initRunStream } = await import("../runstate/jetstream/run-stream.js");
      const { created, prefix } = await initRunStream({ ...config, prefix: values.prefix ?? config.prefix });
      io.stdout.write(`${created ? "created" : "found"} stream ${config.stream} binding ${prefix}.>, with one write-once message per subject and no max age\n`);
      return EXIT.completed;
    }
  }
}

/**
 * The configured tools' `on_crash` policies, shown beside a pending call. An agent.yaml
 * found only in the working directory may not be the session's: if it does not load,
 * the policies are left out rather than failing the show. The agent.yaml the session
 * recorded comes before it, as it does for a resume.
 */
async function crashPolicies(configFlag: string | undefined, recorded: string | undefined): Promise<CrashPolicyOf> {
  const path = configFlag ?? (recorded !== undefined && existsSync(recorded) ? recorded : configPathFrom(undefined));
  if (path === undefined) return () => undefined;
  const [{ loadAgentConfig }, { crashPolicyAmong }] = await Promise.all([import("../config/agent-config.js"), import("../tools/mcp/mcp-names.js")]);
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
async function retentionFrom(flags: StoreFlags): Promise<Retention | undefined> {
  const path = configPathFrom(flags.config);
  if (path === undefined) return undefined;
  const { loadAgentConfig } = await import("../config/agent-config.js");
  return loadAgentConfig(path).retention;
}

/** Whether the full-screen viewer may take the terminal: both ends a terminal, and NO_TUI not set (to anything but "" or "0"). */
function onTerminal(io: CommandIO): boolean {
  const refused = (io.env.NO_TUI ?? "") !== "" && io.env.NO_TUI !== "0";
  return !refused && io.stdin.isTTY === true && (io.stdout as NodeJS.WriteStream).isTTY === true;
}

/** The options a pasted resume needs to find this store from any directory. */
function storeWhere(flags: StoreFlags): ResumeWhere {
  if (flags.store !== undefined) return { store: flags.store };
  const stateDir = flags.stateDir;
  if (stateDir !== undefined) return { stateDir: resolve(stateDir) };
  const config = configPathFrom(flags.config);
  return config === undefined ? {} : { config: resolve(config) };
}
