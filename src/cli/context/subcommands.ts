// A group's subcommands as a table (session, queue, memory, mcp, store): each row names a
// module holding the subcommand's options as data and its handler. Help and completion read
// the rows; a module is loaded for its options only when the command line names it (or
// completion asks for every word), and its handler's own imports only when it runs.
import type { Command, OptionValues } from "commander";
import { names, type CommandContext } from "./command-context.js";
import type { CommandIO } from "./command-io.js";
import { addOptions, type Flags, type Options } from "./options.js";

/** What a subcommand's handler is given: the words after its options, its flags, the streams. */
export interface SubcommandContext<O extends Options = Options> {
  positionals: string[];
  values: Flags<O>;
  io: CommandIO;
}

/** A subcommand's module: its own options, and its handler, given its group's context `C`. */
export interface SubcommandModule<C> {
  options?: Options;
  run(context: C): Promise<number>;
}

/** A row of a group's table. */
export interface SubcommandEntry<C> {
  name: string;
  usage: string;
  description: string;
  /** A required argument commander checks itself: its name and help. */
  argument?: readonly [string, string];
  /** Help after the options. */
  helpAfter?: string;
  /** The group's options this one does not take (init-stream names a JetStream store, never a directory). */
  without?: readonly string[];
  load: () => Promise<SubcommandModule<C>>;
}

/** How a group runs its subcommands: the options every one takes, and the context each handler is given. */
export interface Group<C> {
  options: Options;
  /** `name`: the subcommand's. */
  run(module: SubcommandModule<C>, positionals: string[], values: OptionValues, io: CommandIO, name: string): Promise<number>;
}

/** Adds the rows of `entries` to `group`, each with the group's options, and its own where the command line names it. */
export async function defineSubcommands<C>(
  group: Command,
  { io, action, argv, all }: CommandContext,
  entries: readonly SubcommandEntry<C>[],
  { options, run }: Group<C>,
): Promise<void> {
  for (const entry of entries) {
    const command = group.command(entry.name).usage(entry.usage).description(entry.description);
    if (entry.argument !== undefined) command.argument(`<${entry.argument[0]}>`, entry.argument[1]).allowExcessArguments(false);
    const taken = entry.without === undefined ? options : Object.fromEntries(Object.entries(options).filter(([name]) => !entry.without?.includes(name)));
    addOptions(command, taken).action(action(async (args, flags) => run(await entry.load(), args, flags, io, entry.name)));
    if (entry.helpAfter !== undefined) command.addHelpText("after", `\n${entry.helpAfter}`);
    if (all || names(argv, 1, entry.name)) addOptions(command, (await entry.load()).options ?? {});
  }
}

/** A group whose handlers are given only the words, the flags and the streams. */
export function plainGroup(options: Options): Group<SubcommandContext> {
  return { options, run: (module, positionals, values, io) => module.run({ positionals, values, io }) };
}
