/** The subcommands of `session`, in the order its help lists them. */
export const SESSION_SUBCOMMANDS: readonly string[] = [
  "ls",
  "show",
  "rm",
  "verify",
  "export",
  "import",
  "mv",
  "fork",
  "compact",
  "pending",
  "approve",
  "deny",
  "answer",
  "stats",
  "du",
  "prune",
  "rename",
  "search",
  "trace",
  "init-stream",
];

/** Every command the CLI has, groups first: the tests of help and of a closed pipe go through
 * each, and check this list against the command tree so a new command cannot be left out. */
export const COMMANDS: string[][] = [
  ["run"],
  ["submit"],
  ["worker"],
  ["serve"],
  ["queue"],
  ...["ls", "rm"].map((sub) => ["queue", sub]),
  ["session"],
  ...SESSION_SUBCOMMANDS.map((sub) => ["session", sub]),
  ["store"],
  ["store", "init"],
  ["memory"],
  ...["ls", "show", "rm"].map((sub) => ["memory", sub]),
  ["mcp"],
  ...["login", "logout"].map((sub) => ["mcp", sub]),
  ["init"],
  ["completion"],
];
