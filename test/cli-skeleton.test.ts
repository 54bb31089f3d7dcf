// covers: src/cli/context/command-context.ts, src/cli/command-table.ts, src/cli/completion/completion.ts, src/cli/completion/completion-script.ts
// covers: src/cli/program.ts, src/config/config-hints.ts
// covers: src/cli/context/options.ts, src/cli/run/options.ts
// process: shared
// The command line's skeleton: help for every command and subcommand, the version, "did you
// mean" for a mistyped command or option, and the completion scripts, run by a real bash and
// zsh. The first command line of each group spawns the CLI; the others, whose output and exit
// code are all they check, run in this process (test/helpers/in-process-cli.ts).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { commandWords } from "../src/cli/program.js";
import type { runCli } from "./helpers/cli-harness.js";
import { spawnedFirst } from "./helpers/in-process-cli.js";
import { COMMANDS, SESSION_SUBCOMMANDS } from "./helpers/cli-commands.js";
import { skipWithout } from "./helpers/programs.js";

const ROOT = mkdtempSync(join(tmpdir(), "fisk-ai-cli-skeleton-"));
after(() => rmSync(ROOT, { recursive: true, force: true }));
const ENV: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: ROOT, XDG_STATE_HOME: join(ROOT, "xdg"), NO_COLOR: "1" };
/** Runs fisk-ai: in a process the first time, in this one after that. */
function spawningFirst(): (args: string[]) => ReturnType<typeof runCli> {
  const run = spawnedFirst(() => true);
  return (args) => run(args, { cwd: ROOT, env: ENV });
}
const VERSION = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;

describe("help", () => {
  const cli = spawningFirst();
  it("the list of commands these tests go through is the CLI's", async () => {
    const io = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: {} };
    assert.deepEqual(
      (await commandWords(io)).map(({ path }) => path).filter((path) => path.length > 0),
      COMMANDS,
    );
  });

  for (const command of COMMANDS) {
    it(`fisk-ai ${command.join(" ")} --help prints that command's usage and options on stdout, exit 0`, async () => {
      const result = await cli([...command, "--help"]);
      assert.deepEqual([result.code, result.stderr], [0, ""]);
      assert.match(result.stdout, new RegExp(`^Usage: fisk-ai ${command.join(" ")} `));
      assert.match(result.stdout, /\nOptions:\n(?: {2}.*\n)* {2}-h, --help +print this help\n/);
      // The exit-code table is the top-level help's alone: a command's help does not repeat it.
      assert.doesNotMatch(result.stdout, /^ {2}130 /m);
      // A group lists its commands; a command names no other.
      assert.equal(
        /\nCommands:\n/.test(result.stdout),
        command.length === 1 && !["run", "submit", "worker", "serve", "replay", "init", "completion"].includes(command[0] as string),
      );
    });
  }

  it("fisk-ai help COMMAND is COMMAND --help, and a group given alone prints its help", async () => {
    for (const [asked, same] of [
      [
        ["help", "session"],
        ["session", "--help"],
      ],
      [
        ["session", "help", "fork"],
        ["session", "fork", "--help"],
      ],
      [["session"], ["session", "--help"]],
      [[], ["--help"]],
    ] as const) {
      const [one, other] = await Promise.all([cli([...asked]), cli([...same])]);
      assert.deepEqual(one, other, `fisk-ai ${asked.join(" ")}`);
      assert.equal(one.code, 0);
    }
  });

  it("fisk-ai --help lists every command and the exit codes", async () => {
    const { stdout } = await cli(["--help"]);
    for (const command of [
      "run",
      "submit",
      "worker",
      "serve",
      "queue",
      "session",
      "replay",
      "store",
      "key",
      "signing-key",
      "memory",
      "mcp",
      "init",
      "completion",
      "help",
    ])
      assert.match(stdout, new RegExp(`\n {2}${command} `), command);
    assert.match(stdout, /Exit codes:\n {2}0 {4}completed[^]*130 {2}interrupted/);
  });
});

describe("the version", () => {
  const cli = spawningFirst();
  for (const flag of ["--version", "-V", "-v"]) {
    it(`fisk-ai ${flag} prints the package's version`, async () => {
      assert.deepEqual(await cli([flag]), { code: 0, signal: null, stdout: `${VERSION}\n`, stderr: "" });
    });
  }
});

describe("a mistyped command line: one line naming the nearest valid word, exit 2", () => {
  const cli = spawningFirst();
  const cases: [string[], string][] = [
    [["rnu", "hello"], "unknown command 'rnu' (did you mean run?): see 'fisk-ai --help'"],
    [["session", "lss"], "unknown session command 'lss' (did you mean ls?): see 'fisk-ai session --help'"],
    [["memory", "shw", "k"], "unknown memory command 'shw' (did you mean show?): see 'fisk-ai memory --help'"],
    [["run", "--chekpoint", "x"], "Unknown option '--chekpoint' (did you mean --checkpoint?); see 'fisk-ai run --help'"],
    [["session", "show", "x", "--trnascript"], "Unknown option '--trnascript' (did you mean --transcript?); see 'fisk-ai session --help'"],
    [["memory", "ls", "--namespac", "x"], "Unknown option '--namespac' (did you mean --namespace?); see 'fisk-ai memory --help'"],
    // Nothing near: no guess.
    [["session", "zzzzzz"], "unknown session command 'zzzzzz': see 'fisk-ai session --help'"],
    [["help", "zzzzzz"], "unknown command 'zzzzzz': see 'fisk-ai --help'"],
    [["--bogus"], "Unknown option '--bogus'; see 'fisk-ai --help'"],
    [["completion"], "Missing required argument 'SHELL'; see 'fisk-ai completion --help'"],
    [["completion", "fish"], "Command-argument value 'fish' is invalid for argument 'SHELL'. Allowed choices are bash, zsh; see 'fisk-ai completion --help'"],
    [["completion", "bash", "zsh"], "Too many arguments for 'completion'. Expected 1 argument but got 2; see 'fisk-ai completion --help'"],
    [
      ["session", "export", "x", "-o", "--json"],
      "option -o needs a value (a value that starts with '-' is written --output=-VALUE); see 'fisk-ai session --help'",
    ],
  ];
  for (const [args, line] of cases) {
    it(`fisk-ai ${args.join(" ")}`, async () => {
      assert.deepEqual(await cli(args), { code: 2, signal: null, stdout: "", stderr: `fisk-ai: ${line}\n` });
    });
  }
});

/** The words the bash script offers for the command line `words`, the last being the word under the cursor. */
function bashCompletes(script: string, words: string[]): string[] {
  const quoted = words.map((word) => `'${word}'`).join(" ");
  const line = `source "${script}"; COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _fisk_ai; printf '%s\\n' "\${COMPREPLY[@]}"; complete -p fisk-ai >&2`;
  const result = spawnSync("bash", ["--norc", "--noprofile", "-c", line], { encoding: "utf8" });
  assert.equal(result.status, 0, result.stderr);
  assert.equal(result.stderr, "complete -o default -F _fisk_ai fisk-ai\n", "registered for fisk-ai, falling back to file names");
  return result.stdout.split("\n").filter((word) => word !== "");
}

/** The same for zsh, with its completion builtins stood in for by functions that print what they are given. */
function zshCompletes(script: string, words: string[]): string[] {
  const quoted = words.map((word) => `'${word}'`).join(" ");
  const stubs = `compdef() { print -r -- "compdef $*" >&2 }; compadd() { [[ $1 == -- ]] && shift; print -rl -- "$@" }; _files() { print -r -- "(files)" }`;
  const line = `${stubs}; source "${script}"; words=(${quoted}); CURRENT=${words.length}; _fisk_ai`;
  const result = spawnSync("zsh", ["-f", "-c", line], { encoding: "utf8" });
  assert.equal(result.status, 0, result.stderr);
  assert.equal(result.stderr, "compdef _fisk_ai fisk-ai\n", "registered for fisk-ai");
  return result.stdout.split("\n").filter((word) => word !== "");
}

describe("shell completion", () => {
  const cli = spawningFirst();
  const cases: [string[], string[]][] = [
    [
      ["fisk-ai", ""],
      ["run", "submit", "worker", "serve", "queue", "session", "replay", "store", "key", "signing-key", "memory", "mcp", "init", "completion", "help"],
    ],
    [
      ["fisk-ai", "--"],
      ["--version", "--help"],
    ],
    [
      ["fisk-ai", "session", ""],
      [...SESSION_SUBCOMMANDS, "help"],
    ],
    [["fisk-ai", "session", "f"], ["fork"]],
    [["fisk-ai", "help", "me"], ["memory"]],
    [["fisk-ai", "memory", "s"], ["show"]],
    [["fisk-ai", "session", "show", "x", "--tr"], ["--transcript"]],
    [
      ["fisk-ai", "run", "--ch"],
      ["--checkpoint", "--chat"],
    ],
    [
      ["fisk-ai", "completion", ""],
      ["bash", "zsh"],
    ],
  ];

  for (const [shell, completes] of [
    ["bash", bashCompletes],
    ["zsh", zshCompletes],
  ] as const) {
    const skip = shell === "zsh" && skipWithout("zsh");
    it(`fisk-ai completion ${shell}: a script that ${shell} runs, completing commands, subcommands and options`, { skip }, async (t) => {
      const printed = await cli(["completion", shell]);
      assert.equal(printed.code, 0, printed.stderr);
      const script = join(ROOT, `completion.${shell}`);
      writeFileSync(script, printed.stdout);
      for (const [words, expected] of cases) {
        // zsh filters the offered words by the prefix itself; bash's compgen does it in the script.
        const offered = completes(script, words);
        const typed = words.at(-1) as string;
        assert.deepEqual(shell === "zsh" ? offered.filter((word) => word.startsWith(typed)) : offered, expected, `${shell}: ${words.join(" ")}|`);
      }
      // After an option that takes a value, the shell completes file names.
      const value = completes(script, ["fisk-ai", "run", "--config", ""]);
      assert.deepEqual(value, shell === "bash" ? [] : ["(files)"]);
      t.diagnostic(`${shell}: ${cases.length + 1} command lines`);
    });
  }
});
