// `fisk-ai session ...`: the table of its subcommands, each defined and handled by its own
// module under session/, loaded only when the command line names it.
import type { Command } from "commander";
import { names, STORE_OPTIONS, type CommandContext } from "../context/command-context.js";
import { addOptions } from "../context/options.js";
import { EXIT_CODES_POINTER } from "../exit-codes.js";
import type { SessionSubcommandModule } from "../context/session-context.js";

const STATUS_HELP = `STATUS is the terminal reason (completed, suspended, error, budget, max_iterations,
awaiting_approval: calls wait for a decision), open
when the journal ends without one (its process died), moved when it was moved to another
store (session mv), running PID@HOST while a live process holds it, corrupt when it cannot be read.`;

interface SessionEntry {
  name: string;
  usage: string;
  description: string;
  /** Whether its help explains the statuses it prints. */
  statusHelp?: boolean;
  load: () => Promise<SessionSubcommandModule>;
}

const SUBCOMMANDS: readonly SessionEntry[] = [
  {
    name: "ls",
    usage: "[options]",
    description: "every session (--here: those started in this directory), newest first: ID, STATUS, MODEL, UPDATED, TITLE/PROMPT (its title, else its prompt)",
    statusHelp: true,
    load: () => import("./ls.js"),
  },
  {
    name: "show",
    usage: "ID|TITLE [options]",
    description:
      "status, counters, tokens, the pending batch, the prompt; --transcript adds the conversation (--full: whole tool results), in a full-screen viewer on a terminal (q leaves)",
    statusHelp: true,
    load: () => import("./show.js"),
  },
  {
    name: "rm",
    usage: "ID... [options]",
    description: "remove sessions and their child sessions (a running one is refused, and a child its parent can still resume into unless --force)",
    load: () => import("./rm.js"),
  },
  { name: "verify", usage: "ID... [options]", description: "check every record; exit 0 only when clean", load: () => import("./verify.js") },
  {
    name: "export",
    usage: "ID [options]",
    description: "the journal as it is (JSON Lines), after verifying it; --format html: one self-contained page to read it in a browser",
    load: () => import("./export.js"),
  },
  {
    name: "import",
    usage: "FILE [options]",
    description: "a verified journal into the store, atomically ('-' reads stdin)",
    load: () => import("./import.js"),
  },
  {
    name: "mv",
    usage: "ID --to STORE [options]",
    description: "move a session to another store (nats://HOST:PORT/STREAM or a directory): copied there and marked moved here, so it goes on there only",
    load: () => import("./mv.js"),
  },
  { name: "fork", usage: "ID [options]", description: "a new session repeating ID's records up to SEQ", load: () => import("./fork.js") },
  {
    name: "compact",
    usage: "ID [options]",
    description:
      "summarize all but the latest messages of ID with its model, journaled as one record the model is sent in their place (--undo: revert the latest)",
    load: () => import("./compact.js"),
  },
  {
    name: "pending",
    usage: "[options]",
    description: "every call waiting for a decision, oldest first: SESSION, CALL, TOOL, KIND, WAITING, INPUT",
    load: () => import("./pending.js"),
  },
  {
    name: "approve",
    usage: "ID [TOOL_USE_ID...] [options]",
    description: "approve calls a parked session waits on (no ids: every approval); a resume runs them with the input they were parked with",
    load: () => import("./approve.js"),
  },
  {
    name: "deny",
    usage: "ID [TOOL_USE_ID...] --reason TEXT [options]",
    description: "deny calls a parked session waits on (no ids: every one); the model is told TEXT and the calls never run",
    load: () => import("./deny.js"),
  },
  {
    name: "answer",
    usage: "ID TEXT [options]",
    description: "answer the ask_user question a parked session waits on; the model gets TEXT as the tool's result",
    load: () => import("./answer.js"),
  },
  {
    name: "stats",
    usage: "[options]",
    description: "tokens and cost over the store: sessions, calls, the four token tiers, US dollars (a model with no price: its tokens and 'no price')",
    load: () => import("./stats.js"),
  },
  {
    name: "du",
    usage: "[options]",
    description: "the bytes each session takes (its journal, and its lock file while there is one), largest first, and the total",
    load: () => import("./du.js"),
  },
  {
    name: "prune",
    usage: "[options]",
    description:
      "remove the sessions matching every filter given (with none, agent.yaml's session.retention); running, open, suspended, awaiting_approval and corrupt ones only when --status names their status",
    load: () => import("./prune.js"),
  },
  {
    name: "rename",
    usage: "ID TITLE [options]",
    description: "give a session a title, journaled: ls shows it, and --resume and show take it in place of the id",
    load: () => import("./rename.js"),
  },
  {
    name: "search",
    usage: "TEXT [options]",
    description: "the sessions whose title, prompt or conversation holds TEXT (any case when TEXT is lower case), newest first",
    load: () => import("./search.js"),
  },
  {
    name: "trace",
    usage: "ID|TITLE [options]",
    description: "send the session's spans (OpenTelemetry, OTLP/HTTP) to a collector, as a live export of it would have: one trace per session",
    load: () => import("./trace.js"),
  },
  {
    name: "init-stream",
    usage: "[options]",
    description: "create the JetStream stream --store (or session.stream) names, binding P.> (default: session.prefix, else fisk-ai.runs)",
    load: () => import("./init-stream.js"),
  },
];

export async function define(session: Command, { io, action, argv, all }: CommandContext): Promise<void> {
  session
    .description("The sessions in the store: --state-dir DIR, --store URL, else the config's session block, else $XDG_STATE_HOME/fisk-ai/runs.")
    .addHelpText("after", `\n'fisk-ai session COMMAND --help' lists a command's options.\n\n${STATUS_HELP}\n\n${EXIT_CODES_POINTER}`);
  for (const entry of SUBCOMMANDS) {
    const command = session.command(entry.name).usage(entry.usage).description(entry.description);
    addOptions(command, STORE_OPTIONS)
      .addHelpText("after", `\n${entry.statusHelp === true ? `${STATUS_HELP}\n\n` : ""}${EXIT_CODES_POINTER}`)
      .action(action(async (args, flags) => (await import("../context/session-context.js")).sessionCommand(await entry.load(), args, flags, io)));
    if (all || names(argv, 1, entry.name)) addOptions(command, (await entry.load()).options ?? {});
  }
}
