// The fisk-ai command line as a commander tree, built from the command table
// (command-table.ts): only the command the line names has its module loaded, and its
// action loads its handler only when it runs, so `--help` and `session ls` do not pay for
// the model SDKs, zod or NATS. Usage errors become one line in fisk-ai's words.
import { packageVersion } from "../package/package-files.js";
import { Command, CommanderError, Option } from "commander";
import { UsageError } from "./cli-errors.js";
import type { CommandWords } from "./completion/completion-script.js";
import { EXIT, EXIT_CODES_HELP } from "./exit-codes.js";
import type { CommandIO } from "./context/command-io.js";
import { names, type Action } from "./context/command-context.js";
import { COMMANDS } from "./command-table.js";

/**
 * Parses `argv` (the words after `fisk-ai`) and runs the command it names; resolves to
 * the exit code. Usage errors are thrown as UsageError: one line, for the caller to print.
 */
export async function runCommandLine(argv: string[], io: CommandIO): Promise<number> {
  let code: number = EXIT.completed;
  const program = await cliProgram(
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

/** `fisk-ai` itself: its help, its version and how it reports errors. */
function rootCommand(io: CommandIO): Command {
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
    io.stdout.write(`${packageVersion()}\n`);
    throw new CommanderError(0, "commander.version", "printed the version");
  };
  program.on("option:version", printVersion).on("option:v", printVersion);
  return program;
}

/** Every command's completion words, root first. */
export async function commandWords(io: CommandIO): Promise<CommandWords[]> {
  const program = await cliProgram(io, () => async () => undefined, [], true);
  const words: CommandWords[] = [];
  const visit = (command: Command, path: string[]) => {
    const help = command.createHelp();
    const options = help.visibleOptions(command);
    words.push({
      path,
      words: [...help.visibleCommands(command).map((sub) => sub.name()), ...command.registeredArguments.flatMap((argument) => argument.argChoices ?? [])],
      options: options.flatMap((option) => option.long ?? []),
      valued: options
        .filter((option) => option.required || option.optional)
        .flatMap((option) => [option.long, option.short].filter((flag) => flag !== undefined)),
    });
    for (const sub of command.commands) visit(sub, [...path, sub.name()]);
  };
  visit(program, []);
  return words;
}

async function cliProgram(io: CommandIO, action: Action, argv: readonly string[], all = false): Promise<Command> {
  const program = rootCommand(io);
  for (const entry of COMMANDS) {
    const command = program.command(entry.name).usage(entry.usage).summary(entry.summary);
    if (all || names(argv, 0, entry.name)) await (await entry.load()).define(command, { io, action, argv, all, commandWords: () => commandWords(io) });
  }
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
function refuseDashValues(command: Command, argv: readonly string[]): void {
  const end = argv.indexOf("--");
  const words = end < 0 ? argv : argv.slice(0, end);
  for (const [index, word] of words.entries()) {
    const value = words[index + 1];
    const option = command.options.find((candidate) => candidate.required && (candidate.long === word || candidate.short === word));
    if (option !== undefined && value !== undefined && value.length > 1 && value.startsWith("-")) {
      throw new UsageError(
        `option ${word} needs a value (a value that starts with '-' is written ${option.long ?? word}=-VALUE); see '${helpPath(command)} --help'`,
      );
    }
  }
}
