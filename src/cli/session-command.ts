// `fisk-ai session ...`: the operator's window into the journal. Each subcommand is a
// few lines over the store; the work is in the library.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs, type ParseArgsConfig } from "node:util";
import type { AgentConfig } from "../agent/config.js";
import { crashPolicyAmong } from "../tools/mcp/mcp-names.js";
import { assertRunId } from "../runstate/run-id.js";
import { commandLineError, UsageError } from "./cli-errors.js";
import { EXIT, EXIT_CODES_HELP } from "./exit-codes.js";
import type { CommandIO } from "./run-command.js";
import { listSessions } from "./session-list.js";
import { removeSessions, verifySessions } from "./session-maintenance.js";
import { showSession, type CrashPolicyOf } from "./session-show.js";
import { resumeCommand, type ResumeWhere } from "./resume-hint.js";
import type { Store } from "../runstate/store.js";
import { configPathFrom, openStore, sessionStoreConfig, STORE_HELP, type StoreFlags } from "./session-store.js";
import { exportSession, forkSession, importSession } from "./session-transfer.js";

// Each subcommand's usage and what it does: the overview lists them all, and
// `session <sub> --help` prints its own.
const SESSION_COMMANDS: Record<string, { usage: string; does: string[] }> = {
  ls: { usage: "ls [--json] [--here]", does: ["every session (--here: those started in this directory),", "newest first: ID, STATUS, MODEL, UPDATED, PROMPT"] },
  show: {
    usage: "show ID [--transcript [--full]] [--json]",
    does: ["status, counters, tokens, the pending batch, the prompt;", "--transcript adds the conversation (--full: whole tool results)"],
  },
  rm: { usage: "rm ID...", does: ["remove sessions (a running one is refused)"] },
  verify: { usage: "verify ID...", does: ["check every record; exit 0 only when clean"] },
  export: { usage: "export ID [-o FILE]", does: ["the journal as it is (JSON Lines), after verifying it"] },
  import: { usage: "import FILE [--name ID]", does: ["a verified journal into the store, atomically ('-' reads stdin)"] },
  fork: { usage: "fork ID [--at SEQ] [--name NEW]", does: ["a new session repeating ID's records up to SEQ"] },
  "init-stream": {
    usage: "init-stream [--prefix P]",
    does: ["create the JetStream stream --store (or session.stream) names,", "binding P.> (default: session.prefix, else fisk-ai.runs)"],
  },
};

const USAGE_WIDTH = 37;

const COMMON_OPTIONS = `  --state-dir DIR    where sessions are kept (default: the config's session.state_dir,
                     else $XDG_STATE_HOME/fisk-ai/runs or ~/.local/state/fisk-ai/runs)
${STORE_HELP}
  --config FILE      the agent configuration whose session block to use (default ./agent.yaml)`;

const STATUS_HELP = `STATUS is the terminal reason (completed, suspended, error, budget, max_iterations), open
when the journal ends without one (its process died), running PID@HOST while a live
process holds it, corrupt when it cannot be read.`;

function overviewLine({ usage, does }: { usage: string; does: string[] }): string {
  const indent = " ".repeat(USAGE_WIDTH + 2);
  const [first, ...rest] = does;
  const head = usage.length < USAGE_WIDTH ? `  ${usage.padEnd(USAGE_WIDTH)}${first}` : `  ${usage}\n${indent}${first}`;
  return [head, ...rest.map((line) => `${indent}${line}`)].join("\n");
}

const SESSION_HELP = `Usage: fisk-ai session COMMAND [options]

Commands:
${Object.values(SESSION_COMMANDS).map(overviewLine).join("\n")}

Options for every command:
${COMMON_OPTIONS}

${STATUS_HELP}

${EXIT_CODES_HELP}`;

function commandHelp(command: string): string {
  const { usage, does } = SESSION_COMMANDS[command] as { usage: string; does: string[] };
  const status = command === "ls" || command === "show" ? `\n${STATUS_HELP}\n` : "";
  return `Usage: fisk-ai session ${usage} [options]\n\n${does.map((line) => `  ${line}`).join("\n")}\n\nOptions:\n${COMMON_OPTIONS}\n${status}\n${EXIT_CODES_HELP}`;
}

const COMMON = {
  "state-dir": { type: "string" },
  store: { type: "string" },
  config: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const satisfies ParseArgsConfig["options"];

function parse<O extends ParseArgsConfig["options"]>(args: string[], options: O) {
  try {
    return parseArgs({ args, options: { ...COMMON, ...options }, allowPositionals: true, strict: true });
  } catch (error) {
    throw commandLineError(error, "fisk-ai session");
  }
}

function ids(positionals: string[], command: string, { atMostOne = false } = {}): string[] {
  if (positionals.length === 0) throw new UsageError(`session ${command} needs a session id; 'fisk-ai session ls' lists them`);
  if (atMostOne && positionals.length > 1) throw new UsageError(`session ${command} takes one session id`);
  return positionals;
}

export async function sessionCommand(argv: string[], io: CommandIO): Promise<number> {
  const opened: Store[] = [];
  const sessionStore = async (flags: StoreFlags) => {
    const store = await openStore(await sessionStoreConfig(flags), io.stderr);
    opened.push(store);
    return store;
  };
  try {
    return await sessionSubcommand(argv, io, sessionStore);
  } finally {
    // A server connection would otherwise keep the process alive after the command.
    for (const store of opened) await store.close();
  }
}

async function sessionSubcommand(argv: string[], io: CommandIO, sessionStore: (flags: StoreFlags) => Promise<Store>): Promise<number> {
  const [command, ...args] = argv;
  if (command === undefined || command === "--help" || command === "-h" || command === "help") {
    io.stdout.write(SESSION_HELP);
    return EXIT.completed;
  }
  const streams = { stdout: io.stdout, stderr: io.stderr };
  switch (command) {
    case "ls": {
      const { values, positionals } = parse(args, { json: { type: "boolean" }, here: { type: "boolean" } });
      if (values.help === true) return help(io, command);
      if (positionals.length > 0) throw new UsageError("session ls takes no arguments");
      await listSessions(await sessionStore(values), { json: values.json === true, here: values.here === true ? process.cwd() : undefined }, io.stdout);
      return EXIT.completed;
    }
    case "show": {
      const options = { json: { type: "boolean" }, transcript: { type: "boolean" }, full: { type: "boolean" } } as const;
      const { values, positionals } = parse(args, options);
      if (values.help === true) return help(io, command);
      const [runId] = ids(positionals, command, { atMostOne: true }) as [string];
      assertRunId(runId);
      const flags = { json: values.json === true, transcript: values.transcript === true, full: values.full === true };
      const store = await sessionStore(values);
      const recorded = (await store.summarize(runId)).meta?.config;
      await showSession(store, runId, flags, io.stdout, await crashPolicies(values.config, recorded));
      return EXIT.completed;
    }
    case "rm":
    case "verify": {
      const { values, positionals } = parse(args, {});
      if (values.help === true) return help(io, command);
      const store = await sessionStore(values);
      const runIds = ids(positionals, command);
      return command === "rm" ? removeSessions(store, runIds, streams) : verifySessions(store, runIds, streams);
    }
    case "export": {
      const { values, positionals } = parse(args, { output: { type: "string", short: "o" } });
      if (values.help === true) return help(io, command);
      const [runId] = ids(positionals, command, { atMostOne: true }) as [string];
      assertRunId(runId);
      await exportSession(await sessionStore(values), runId, values.output, streams);
      return EXIT.completed;
    }
    case "import": {
      const { values, positionals } = parse(args, { name: { type: "string" } });
      if (values.help === true) return help(io, command);
      if (positionals.length !== 1) throw new UsageError("session import takes one file (or - for stdin)");
      const runId = await importSession(await sessionStore(values), positionals[0] as string, values.name);
      io.stdout.write(`imported session ${runId}; resume with: ${resumeCommand(runId, storeWhere(values), io.env)}\n`);
      return EXIT.completed;
    }
    case "fork": {
      const { values, positionals } = parse(args, { at: { type: "string" }, name: { type: "string" } });
      if (values.help === true) return help(io, command);
      const [runId] = ids(positionals, command, { atMostOne: true }) as [string];
      assertRunId(runId);
      const { forkId, at } = await forkSession(await sessionStore(values), runId, { at: values.at, name: values.name });
      io.stdout.write(`forked ${runId} at seq ${at} as ${forkId}; resume with: ${resumeCommand(forkId, storeWhere(values), io.env)}\n`);
      return EXIT.completed;
    }
    case "init-stream": {
      const { values, positionals } = parse(args, { prefix: { type: "string" } });
      if (values.help === true) return help(io, command);
      if (positionals.length > 0) throw new UsageError("session init-stream takes no arguments");
      const config = await sessionStoreConfig(values);
      if (config.backend !== "jetstream") throw new UsageError("session init-stream needs a JetStream store: give --store nats://HOST:PORT/STREAM or session.backend: jetstream");
      const { initRunStream } = await import("../runstate/jetstream/jetstream-store.js");
      const { created, prefix } = await initRunStream({ ...config, prefix: values.prefix ?? config.prefix });
      io.stdout.write(`${created ? "created" : "found"} stream ${config.stream} binding ${prefix}.>, with one write-once message per subject and no max age\n`);
      return EXIT.completed;
    }
    default:
      throw new UsageError(`unknown session command '${command}': see 'fisk-ai session --help'`);
  }
}

function help(io: CommandIO, command: string): number {
  io.stdout.write(commandHelp(command));
  return EXIT.completed;
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
  const { loadAgentConfig } = await import("../agent/config.js");
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

/** The options a pasted resume needs to find this store from any directory. */
function storeWhere(flags: StoreFlags): ResumeWhere {
  if (flags.store !== undefined) return { store: flags.store };
  const stateDir = flags["state-dir"];
  if (stateDir !== undefined) return { stateDir: resolve(stateDir) };
  const config = configPathFrom(flags.config);
  return config === undefined ? {} : { config: resolve(config) };
}
