// A command's options as data: each keyed by the name commander gives its value, with its flag as
// commander writes it. The handler's flag types are inferred from the flags, so an option is
// declared once, and --help and completion read the same data the handler is typed by.
import { type Command, Option } from "commander";

export interface OptionSpec {
  /** As commander writes it: "--json", "--state-dir <DIR>", "--resume [ID]", "--no-tui", "-o, --output <FILE>". */
  readonly flag: string;
  readonly help: string;
  readonly choices?: readonly string[];
  readonly default?: string;
  /** The command is refused without it. */
  readonly required?: boolean;
}

export type Options = Readonly<Record<string, OptionSpec>>;

/** The value commander gives a flag: a list for `<X...>`, a string for `<X>`, a string or true for `[X]`, else a switch. */
type FlagValue<F extends string> = F extends `${string}<${string}...>`
  ? string[]
  : F extends `${string}<${string}>`
    ? string
    : F extends `${string}[${string}]`
      ? string | true
      : boolean;

/** The flags of a command line, as the handler of a command declaring `O` is given them. */
export type Flags<O extends Options> = { -readonly [K in keyof O]?: FlagValue<O[K]["flag"]> | undefined };

/** Adds `options` to `command`; a key that is not the name commander gives the flag's value is a mistake of ours. */
export function addOptions(command: Command, options: Options): Command {
  for (const [key, spec] of Object.entries(options)) {
    const option = new Option(spec.flag, spec.help);
    if (spec.choices !== undefined) option.choices(spec.choices);
    if (spec.default !== undefined) option.default(spec.default);
    if (spec.required === true) option.makeOptionMandatory();
    if (option.attributeName() !== key) throw new Error(`option ${spec.flag} is keyed ${key}: key it ${option.attributeName()}`);
    command.addOption(option);
  }
  return command;
}
