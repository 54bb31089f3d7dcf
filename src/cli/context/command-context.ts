// What a command's module is given to define itself (command-table.ts loads the modules;
// they import only this, so the table and its modules do not import each other).
import type { Command, OptionValues } from "commander";
import type { CommandWords } from "../completion/completion-script.js";
import type { CommandIO } from "./command-io.js";
import type { Options } from "./options.js";

/** A command's handler as commander calls it: the words after its options, and its flags. */
export type Run = (args: string[], flags: OptionValues) => Promise<number>;
/** Wraps a handler into commander's action, which records its exit code. */
export type Action = (run: Run) => (...params: unknown[]) => Promise<void>;

/** What a command's module is given to define it. */
export interface CommandContext {
  io: CommandIO;
  action: Action;
  /** The words after `fisk-ai`: a group defines only the subcommand they name, unless `all`. */
  argv: readonly string[];
  /** Define every subcommand (completion reads them all). */
  all: boolean;
  /** Every command's completion words, the whole table loaded. */
  commandWords(): Promise<CommandWords[]>;
}

/** A command module: it adds its description, options, subcommands and action to `command`. */
export interface CommandModule {
  define(command: Command, context: CommandContext): Promise<void>;
}

/** Whether the command line names `name` at `depth` (0: a command, 1: a subcommand), `help NAME` included. */
export function names(argv: readonly string[], depth: number, name: string): boolean {
  // `help` names no command: `fisk-ai help session` and `fisk-ai session help fork` mean the one after it.
  const path = argv.filter((word) => !word.startsWith("-") && word !== "help");
  return path[depth] === name;
}

export const STORE_OPTION =
  "keep sessions on NATS JetStream (nats://HOST:PORT/STREAM; credentials from NATS_CREDS, NATS_USER and NATS_PASSWORD, or NATS_TOKEN) or in Postgres (postgres://USER@HOST:PORT/DATABASE?schema=NAME; PG* variables and ~/.pgpass fill in the rest)";

/** The options every session subcommand takes: where its sessions are. */
export const STORE_OPTIONS = {
  stateDir: {
    flag: "--state-dir <DIR>",
    help: "where sessions are kept (default: the config's session.state_dir, else $XDG_STATE_HOME/fisk-ai/runs or ~/.local/state/fisk-ai/runs)",
  },
  store: { flag: "--store <URL>", help: STORE_OPTION },
  config: { flag: "--config <FILE>", help: "the agent configuration whose session block to use (default: ./agent.yaml)" },
} as const satisfies Options;
