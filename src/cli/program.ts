// The fisk-ai command line as a commander tree: every command's options, usage and help,
// and its action, which loads the command's module only when it runs, so `--help` and
// `session ls` do not pay for the model SDKs, zod or NATS.
import { readFileSync } from "node:fs";
import { Argument, Command, CommanderError, Option, type OptionValues } from "commander";
import { UsageError } from "./cli-errors.js";
import type { CommandWords } from "./completion.js";
import { EXIT, EXIT_CODES_HELP } from "./exit-codes.js";
import type { CommandIO } from "./run-command.js";
import type { SessionCommandName } from "./session-command.js";
import type { MemoryCommandName } from "./memory-command.js";
import type { McpCommandName } from "./mcp-command.js";

const STORE_OPTION = "keep sessions on NATS JetStream: nats://HOST:PORT/STREAM; credentials from NATS_CREDS, NATS_USER and NATS_PASSWORD, or NATS_TOKEN";

const STATUS_HELP = `STATUS is the terminal reason (completed, suspended, error, budget, max_iterations,
awaiting_approval: calls wait for a decision), open
when the journal ends without one (its process died), moved when it was moved to another
store (session mv), running PID@HOST while a live process holds it, corrupt when it cannot be read.`;

const MCP_EXIT_CODES = "Exit codes: 0 done, 1 the server did not start or the sign-in failed, 2 usage or configuration error";
const MEMORY_EXIT_CODES = "Exit codes: 0 done, 1 error, 2 usage error or bad key, 6 no such note";

function version(): string {
  const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  return manifest.version;
}

/**
 * Parses `argv` (the words after `fisk-ai`) and runs the command it names; resolves to
 * the exit code. Usage errors are thrown as UsageError: one line, for the caller to print.
 */
export async function runCommandLine(argv: string[], io: CommandIO): Promise<number> {
  let code: number = EXIT.completed;
  const program = cliProgram(
    io,
    // Commander passes the declared arguments, the flags, then the command itself.
    (run) =>
      async (...params: unknown[]) => {
        const command = params.at(-1) as Command;
        code = await run(command.args, command.opts());
      },
    argv,
  );
  // A command group given alone (`fisk-ai`, `fisk-ai session`) shows its help, not an error.
  const group = commandAt(program, argv);
  if (group !== undefined && group.commands.length > 0) {
    group.outputHelp();
    return EXIT.completed;
  }
  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (error) {
    // --help and --version end the parse with a CommanderError of exit code 0.
    if (error instanceof CommanderError && error.exitCode === 0) return EXIT.completed;
    throw error;
  }
  return code;
}

/** The command that `argv` names when it holds nothing but command names. */
function commandAt(program: Command, argv: string[]): Command | undefined {
  let command: Command | undefined = program;
  for (const word of argv) command = command?.commands.find((sub) => sub.name() === word);
  return command;
}

/** Every command's completion words, root first. */
export function commandWords(io: CommandIO): CommandWords[] {
  const program = cliProgram(io, () => async () => undefined);
  const words: CommandWords[] = [];
  const visit = (command: Command, path: string[]) => {
    const help = command.createHelp();
    const options = help.visibleOptions(command);
    words.push({
      path,
      words: [...help.visibleCommands(command).map((sub) => sub.name()), ...command.registeredArguments.flatMap((argument) => argument.argChoices ?? [])],
      options: options.flatMap((option) => option.long ?? []),
      valued: options.filter((option) => option.required || option.optional).flatMap((option) => [option.long, option.short].filter((flag) => flag !== undefined)),
    });
    for (const sub of command.commands) visit(sub, [...path, sub.name()]);
  };
  visit(program, []);
  return words;
}

// The flags as commander parsed them, typed by each command's module after the options declared here.
type Run = (args: string[], flags: OptionValues) => Promise<number>;
type Action = (run: Run) => (...params: unknown[]) => Promise<void>;

function cliProgram(io: CommandIO, action: Action, argv: string[] = []): Command {
  const program = new Command("fisk-ai")
    .usage("COMMAND [options]")
    .description("fisk-ai: a durable agent runtime")
    .option("-V, --version", "print the version")
    // -v printed the version before -V did: it still does.
    .addOption(new Option("-v").hideHelp())
    .helpOption("-h, --help", "print this help")
    .helpCommand("help [COMMAND]", "print a command's help")
    .enablePositionalOptions()
    .allowExcessArguments()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      // Every error is reported once, as one line, by the caller: commander prints none.
      writeErr: () => undefined,
      outputError: () => undefined,
    })
    .configureHelp({ subcommandTerm: (command) => `${command.name()} ${command.usage()}` })
    .addHelpText(
      "after",
      `
'fisk-ai COMMAND --help' describes a command. Sessions are kept in
$XDG_STATE_HOME/fisk-ai/runs (or ~/.local/state/fisk-ai/runs), or on NATS JetStream with
--store nats://HOST:PORT/STREAM.

${EXIT_CODES_HELP}`,
    );
  // The version is read only when asked for, not at every start.
  const printVersion = () => {
    io.stdout.write(`${version()}\n`);
    throw new CommanderError(0, "commander.version", "printed the version");
  };
  program.on("option:version", printVersion).on("option:v", printVersion);

  program
    .command("run")
    .usage("[PROMPT] [options]")
    .summary("run the agent on PROMPT, or resume a session")
    .description(
      `Runs the agent on PROMPT (or on stdin when PROMPT is - or absent and stdin is not a terminal). The final answer goes to stdout; narration and tool traces to stderr. A resume without --config uses the agent.yaml the session started with, when it exists.`,
    )
    .option("--config <FILE>", "the agent configuration (default: ./agent.yaml when it exists)")
    .option("--checkpoint", "journal the run so it can be suspended (Ctrl-C) and resumed")
    .option("--name <ID>", "the session id of a checkpointed run (default: a new KSUID)")
    .option("--title <TEXT>", "a title for the session, shown by session ls; --resume and session show take it in place of the id")
    .option("--chat", "after each answer, ask for a follow-up (/exit, Ctrl-D or the end of stdin ends the chat; /clear starts a new session; /compact compacts this one)")
    .option("--resume [ID]", "resume a checkpointed session by its id or title (no ID: pick one, on a terminal); with PROMPT, a follow-up that takes the session further, even a completed one")
    .option("--continue", "resume the most recently updated session started in this directory that is not completed (any, with PROMPT as a follow-up)")
    .option("--all", "--continue and the picker look at the sessions of every directory")
    .option("--cwd <DIR>", "run the tools in DIR (default: where the session started)")
    .option("--force", "resume even though the configuration changed (not the provider)")
    .option("--state-dir <DIR>", "where sessions are kept (default: $XDG_STATE_HOME/fisk-ai/runs)")
    .option("--store <URL>", STORE_OPTION)
    .option("--model <M>", "override the configured model")
    .option("--provider <P>", "override the configured provider: anthropic, openai or script")
    .option("--output-format <F>", "text (default: the answer on stdout) or stream-json (every event of the run as one JSON object a line on stdout)")
    .option("--approvals <MODE>", "ask (default: a confirm tool or ask_user asks on the terminal when there is one) or defer (a checkpointed run parks the call until 'session approve|deny|answer')")
    .addHelpText("after", `\n${EXIT_CODES_HELP}`)
    .action(action(async (args, flags) => (await import("./run-command.js")).runCommand(args, flags, io)));

  program
    .command("submit")
    .usage("PROMPT --config FILE [options]")
    .summary("journal a session and queue it for the worker pool")
    .description("Journals a new session on PROMPT (or, with --resume ID, a follow-up to a session) and queues it for 'fisk-ai worker'; prints its id and exits at once. --wait follows it to its end as run does and exits with the run's exit code.")
    .option("--config <FILE>", "the agent configuration (default: ./agent.yaml when it exists)")
    .option("--name <ID>", "the new session's id (default: a new KSUID)")
    .option("--title <TEXT>", "a title for the session")
    .option("--resume <ID>", "queue PROMPT as a follow-up to session ID")
    .option("--wait", "follow the run to its end: its narration on stderr, its answer on stdout, its exit code")
    .option("--if-running <WHAT>", "with --resume, when a process holds the session now: queue (default: wait for it to let go) or reject (exit 7)")
    .option("--state-dir <DIR>", "where sessions are kept (default: $XDG_STATE_HOME/fisk-ai/runs)")
    .option("--store <URL>", STORE_OPTION)
    .addHelpText("after", `\n${EXIT_CODES_HELP}`)
    .action(action(async (args, flags) => (await import("./submit-command.js")).submitCommand(args, flags, io)));

  program
    .command("worker")
    .usage("--config FILE... [options]")
    .summary("take queued runs and drive them to their end, taking over those of workers that died")
    .description(
      "Takes queued sessions whose configuration is one of the --config agents, N at a time, printing one line per run taken and let go of. A run whose worker died is taken over from its journal. SIGTERM or SIGINT hands the runs back suspended and exits 0; a second aborts them (exit 130).",
    )
    .option("--config <FILE...>", "the agents it drives (default: ./agent.yaml); the first names the store")
    .option("--concurrency <N>", "runs driven at once (default 1)")
    .option("--poll <MS>", "how often an idle worker looks at the queue, in milliseconds (default 200)")
    .option("--adopt", "also take open sessions of its agents that no process holds (a run --checkpoint whose process died), looked for every 5 s")
    .option("--state-dir <DIR>", "where sessions are kept (default: the first config's session block)")
    .option("--store <URL>", STORE_OPTION)
    .action(action(async (args, flags) => (await import("./worker-command.js")).workerCommand(args, flags, io)));

  const queue = program.command("queue").usage("COMMAND [options]").summary("list and withdraw the sessions queued for the worker pool");
  for (const [name, usage, description] of [
    ["ls", "[options]", "the queued sessions, oldest first: ID, QUEUED, and where each is (running on which worker, parked, or waiting and why)"],
    ["rm", "ID... [options]", "withdraw queued sessions no worker has started"],
  ] as const) {
    const command = queue
      .command(name)
      .usage(usage)
      .description(description)
      .option("--state-dir <DIR>", "where sessions are kept")
      .option("--store <URL>", STORE_OPTION)
      .option("--config <FILE>", "the agent configuration whose session block to use (default: ./agent.yaml)")
      .action(action(async (args, flags) => (await import("./queue-command.js")).queueCommand(name, args, flags, io)));
    if (name === "ls") command.option("--json", "one JSON array of the entries");
  }

  const session = program
    .command("session")
    .usage("COMMAND [options]")
    .summary("list, show, verify, remove, export, import, move, fork, compact, title, search, measure and prune sessions; decide the calls they wait on")
    .description("The sessions in the store: --state-dir DIR, --store URL, else the config's session block, else $XDG_STATE_HOME/fisk-ai/runs.")
    .addHelpText("after", `\n'fisk-ai session COMMAND --help' lists a command's options.\n\n${STATUS_HELP}\n\n${EXIT_CODES_HELP}`);
  const sessionCommand = (name: SessionCommandName, usage: string, description: string, statusHelp = false) =>
    session
      .command(name)
      .usage(usage)
      .description(description)
      .option("--state-dir <DIR>", "where sessions are kept (default: the config's session.state_dir, else $XDG_STATE_HOME/fisk-ai/runs or ~/.local/state/fisk-ai/runs)")
      .option("--store <URL>", STORE_OPTION)
      .option("--config <FILE>", "the agent configuration whose session block to use (default: ./agent.yaml)")
      .addHelpText("after", `\n${statusHelp ? `${STATUS_HELP}\n\n` : ""}${EXIT_CODES_HELP}`)
      .action(action(async (args, flags) => (await import("./session-command.js")).sessionCommand(name, args, flags, io)));
  sessionCommand("ls", "[options]", "every session (--here: those started in this directory), newest first: ID, STATUS, MODEL, UPDATED, PROMPT", true)
    .option("--json", "one JSON array of the sessions")
    .option("--here", "only the sessions started in this directory")
    .option("--tree", "child sessions under their parent with the lines of a tree drawn (with --json: nested in `children`)")
    .option("--flat", "one row a session, newest first, children not set under their parent");
  sessionCommand(
    "show",
    "ID|TITLE [options]",
    "status, counters, tokens, the pending batch, the prompt; --transcript adds the conversation (--full: whole tool results), in a full-screen viewer on a terminal (q leaves)",
    true,
  )
    .option("--transcript", "add the conversation")
    .option("--full", "with --transcript: whole tool results")
    .option("--follow", "show the conversation and then each record a running session journals, until it ends")
    .option("--no-tui", "print the conversation even on a terminal (as does NO_TUI=1)")
    .option("--json", "the session's state as JSON");
  sessionCommand("rm", "ID... [options]", "remove sessions and their child sessions (a running one is refused, and a child its parent can still resume into unless --force)").option(
    "--force",
    "remove a child session even though its parent can still resume into it",
  );
  sessionCommand("verify", "ID... [options]", "check every record; exit 0 only when clean");
  sessionCommand("export", "ID [options]", "the journal as it is (JSON Lines), after verifying it; --format html: one self-contained page to read it in a browser")
    .option("-o, --output <FILE>", "write it to FILE (default: stdout)")
    .addOption(new Option("--format <FORMAT>", "jsonl: the journal; html: a page with the conversation, its folds, a search and the tokens per call").choices(["jsonl", "html"]).default("jsonl"));
  sessionCommand("import", "FILE [options]", "a verified journal into the store, atomically ('-' reads stdin)").option("--name <ID>", "the id of the imported session (default: the journal's)");
  sessionCommand("mv", "ID --to STORE [options]", "move a session to another store (nats://HOST:PORT/STREAM or a directory): copied there and marked moved here, so it goes on there only")
    .requiredOption("--to <STORE>", "the store it goes to: nats://HOST:PORT/STREAM, or a file store's directory");
  sessionCommand("fork", "ID [options]", "a new session repeating ID's records up to SEQ")
    .option("--at <SEQ>", "the last record to repeat (default: the last one)")
    .option("--name <NEW>", "the new session's id (default: a new KSUID)");
  sessionCommand("compact", "ID [options]", "summarize all but the latest messages of ID with its model, journaled as one record the model is sent in their place (--undo: revert the latest)").option(
    "--undo",
    "journal the undo of the latest compaction: the next model call is sent the whole conversation again",
  );
  sessionCommand("pending", "[options]", "every call waiting for a decision, oldest first: SESSION, CALL, TOOL, KIND, WAITING, INPUT").option("--json", "one JSON array of the calls");
  sessionCommand("approve", "ID [TOOL_USE_ID...] [options]", "approve calls a parked session waits on (no ids: every approval); a resume runs them with the input they were parked with")
    .option("--all", "every approval that waits (the default without ids)")
    .option("--resume", "then resume the session");
  sessionCommand("deny", "ID [TOOL_USE_ID...] --reason TEXT [options]", "deny calls a parked session waits on (no ids: every one); the model is told TEXT and the calls never run")
    .option("--reason <TEXT>", "why: the model reads it as the call's error")
    .option("--all", "every call that waits (the default without ids)")
    .option("--resume", "then resume the session");
  sessionCommand("answer", "ID TEXT [options]", "answer the ask_user question a parked session waits on; the model gets TEXT as the tool's result")
    .option("--call <TOOL_USE_ID>", "the question to answer, where more than one waits")
    .option("--resume", "then resume the session");
  sessionCommand("stats", "[options]", "tokens and cost over the store: sessions, calls, the four token tiers, US dollars (a model with no price: its tokens and 'no price')")
    .option("--since <AGE>", "only sessions written in the last AGE: 30m, 12h, 7d, 2w")
    .option("--by <KEY>", "a row per model, day (the day a session was last written) or cwd")
    .option("--json", "the totals as JSON");
  sessionCommand("du", "[options]", "the bytes each session takes (its journal, and its lock file while there is one), largest first, and the total").option("--json", "the sizes as JSON");
  sessionCommand(
    "prune",
    "[options]",
    "remove the sessions matching every filter given (with none, agent.yaml's session.retention); running, open, suspended, awaiting_approval and corrupt ones only when --status names their status",
  )
    .option("--older-than <AGE>", "last written more than AGE ago: 30m, 12h, 7d, 2w")
    .option("--status <LIST>", "in one of these statuses, comma-separated")
    .option("--keep-last <N>", "not among the N most recently written sessions")
    .option("--dry-run", "print what would be removed and its bytes, and remove nothing")
    .option("--json", "what was (or would be) removed, as JSON");
  sessionCommand("rename", "ID TITLE [options]", "give a session a title, journaled: ls shows it, and --resume and show take it in place of the id");
  sessionCommand("search", "TEXT [options]", "the sessions whose title, prompt or conversation holds TEXT (any case when TEXT is lower case), newest first").option("--json", "the matches as JSON");
  sessionCommand("trace", "ID|TITLE [options]", "send the session's spans (OpenTelemetry, OTLP/HTTP) to a collector, as a live export of it would have: one trace per session").option(
    "--endpoint <URL>",
    "the collector's OTLP/HTTP address, such as http://localhost:4318 (default: OTEL_EXPORTER_OTLP_ENDPOINT)",
  );
  sessionCommand("init-stream", "[options]", "create the JetStream stream --store (or session.stream) names, binding P.> (default: session.prefix, else fisk-ai.runs)").option(
    "--prefix <P>",
    "the subject prefix the stream binds",
  );

  const memory = program
    .command("memory")
    .usage("COMMAND [options]")
    .summary("list, show and remove the notes a model keeps")
    .description(
      `Notes live in $XDG_STATE_HOME/fisk-ai/memory/NAMESPACE (or ~/.local/state/fisk-ai/memory/...). The namespace is --namespace, else the config's memory.namespace (--config, default ./agent.yaml, when memory is enabled there), else "default".`,
    )
    .addHelpText("after", `\n${MEMORY_EXIT_CODES}`);
  const memoryCommand = (name: MemoryCommandName, usage: string, description: string) =>
    memory
      .command(name)
      .usage(usage)
      .description(description)
      .option("--namespace <N>", "the notes' namespace")
      .option("--config <FILE>", "the agent configuration whose memory.namespace to use (default: ./agent.yaml)")
      .addHelpText("after", `\n${MEMORY_EXIT_CODES}`)
      .action(action(async (args, flags) => (await import("./memory-command.js")).memoryCommand(name, args, flags, io)));
  memoryCommand("ls", "[options]", "every note: key and description");
  memoryCommand("show", "KEY [options]", "a note's content");
  memoryCommand("rm", "KEY [options]", "delete a note");

  const mcp = program
    .command("mcp")
    .usage("COMMAND [options]")
    .summary("sign in to a remote MCP server, or out")
    .description(
      "Sign-ins are kept in $XDG_STATE_HOME/fisk-ai/mcp-auth (or ~/.local/state/fisk-ai/mcp-auth), one file per server that only you can read. The browser BROWSER names opens on the sign-in page; its URL is printed too.",
    )
    .addHelpText("after", `\n${MCP_EXIT_CODES}`);
  const mcpCommand = (name: McpCommandName, description: string) =>
    mcp
      .command(name)
      .usage("NAME [options]")
      .description(description)
      .option("--config <FILE>", "the agent configuration that names the server (default: ./agent.yaml)")
      .addHelpText("after", `\n${MCP_EXIT_CODES}`)
      .action(action(async (args, flags) => (await import("./mcp-command.js")).mcpCommand(name, args, flags, io)));
  mcpCommand("login", "sign in to the MCP server NAME of agent.yaml in the browser, and keep its tokens for runs");
  mcpCommand("logout", "remove the tokens kept for the MCP server NAME");

  program
    .command("completion")
    .usage("bash|zsh")
    .addArgument(new Argument("<SHELL>").choices(["bash", "zsh"]))
    .allowExcessArguments(false)
    .summary("print a shell completion script")
    .description(
      `Prints the completion script for bash or zsh. bash: fisk-ai completion bash > ~/.local/share/bash-completion/completions/fisk-ai; zsh: fisk-ai completion zsh > "\${fpath[1]}/_fisk-ai" (or source it after compinit).`,
    )
    .action(action(async ([shell]) => (await import("./completion.js")).completionCommand(shell as "bash" | "zsh", commandWords(io), io)));

  for (const command of allCommands(program)) {
    command.exitOverride((error) => {
      throw error.exitCode === 0 ? error : usageError(error, command);
    });
  }
  // A hook of the root's runs before the action of every command under it.
  program.hook("preAction", (_program, acting) => refuseDashValues(acting, argv));
  return program;
}

function allCommands(command: Command): Command[] {
  return [command, ...command.commands.flatMap(allCommands)];
}

function commandPath(command: Command): string[] {
  return command.parent === null ? [command.name()] : [...commandPath(command.parent), command.name()];
}

/** Whose help a usage error points to: `fisk-ai` and the command under it, which lists its subcommands too. */
function helpPath(command: Command): string {
  return commandPath(command).slice(0, 2).join(" ");
}

/** Commander's error as one line in fisk-ai's words, with its "did you mean". */
function usageError(error: CommanderError, command: Command): UsageError {
  const [first = "", hint] = error.message.replace(/^error: /, "").split("\n");
  const suggestion = hint === undefined ? "" : ` ${hint.replace("(Did you mean", "(did you mean")}`;
  const path = commandPath(command).join(" ");
  const group = command.parent === null ? "" : `${command.name()} `;
  if (error.code === "commander.unknownCommand") return new UsageError(`unknown ${group}command '${command.args[0]}'${suggestion}: see '${path} --help'`);
  // `fisk-ai help NOSUCH`
  if (error.code === "commander.help") return new UsageError(`unknown ${group}command '${command.args.at(-1)}': see '${path} --help'`);
  const line = first.replace(/\.$/, "");
  return new UsageError(`${line.charAt(0).toUpperCase()}${line.slice(1)}${suggestion}; see '${helpPath(command)} --help'`);
}

/**
 * `--name -x` more likely forgets the value than gives one that starts with '-', so it is
 * refused with the way to give such a value; commander alone would take `-x` as the name.
 */
function refuseDashValues(command: Command, argv: string[]): void {
  const end = argv.indexOf("--");
  const words = end < 0 ? argv : argv.slice(0, end);
  for (const [index, word] of words.entries()) {
    const value = words[index + 1];
    const option = command.options.find((candidate) => candidate.required && (candidate.long === word || candidate.short === word));
    if (option !== undefined && value !== undefined && value.length > 1 && value.startsWith("-")) {
      throw new UsageError(`option ${word} needs a value (a value that starts with '-' is written ${option.long ?? word}=-VALUE); see '${helpPath(command)} --help'`);
    }
  }
}
