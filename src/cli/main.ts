#!/usr/bin/env node
// The fisk-ai command: a thin layer over the library that parses, calls and prints.
import { readFileSync } from "node:fs";
import { reportFailure } from "./cli-errors.js";
import { EXIT, EXIT_CODES_HELP } from "./exit-codes.js";
import type { CommandIO } from "./run-command.js";

const HELP = `fisk-ai: a durable agent runtime

Usage:
  fisk-ai run [PROMPT] [--config FILE] [--checkpoint] [--name ID] [--resume [ID]]
                       [--continue] [--force] [--state-dir DIR | --store URL] [--model M] [--provider P]
  fisk-ai session ls|show|rm|verify|export|import|fork|init-stream ...
  fisk-ai memory ls|show KEY|rm KEY [--namespace N]
  fisk-ai --help | --version

'fisk-ai run --help' and 'fisk-ai session --help' describe the options. Sessions are kept in
$XDG_STATE_HOME/fisk-ai/runs (or ~/.local/state/fisk-ai/runs), or on NATS JetStream with
--store nats://HOST:PORT/STREAM.

${EXIT_CODES_HELP}`;

function version(): string {
  const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  return manifest.version;
}

async function main(argv: string[], io: CommandIO): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case undefined:
    case "help":
    case "--help":
    case "-h":
      io.stdout.write(HELP);
      return EXIT.completed;
    case "--version":
    case "-v":
      io.stdout.write(`${version()}\n`);
      return EXIT.completed;
    // Loaded on demand: `session ls` should not pay for the model SDKs' start-up.
    case "run":
      return (await import("./run-command.js")).runCommand(rest, io);
    case "session":
      return (await import("./session-command.js")).sessionCommand(rest, io);
    case "memory":
      return (await import("./memory-command.js")).memoryCommand(rest, io);
    default:
      io.stderr.write(`fisk-ai: unknown command '${command}': see 'fisk-ai --help'\n`);
      return EXIT.usage;
  }
}

// A reader that stops reading (`fisk-ai session ls | head -1`) is no failure of ours:
// the rest of the output has nowhere to go, so the command ends quietly.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(EXIT.completed);
    throw error;
  });
}

const io: CommandIO = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env };
main(process.argv.slice(2), io).then(
  (code) => exitOnceWritten(code),
  (error: unknown) => exitOnceWritten(reportFailure(error, io.stderr)),
);

/**
 * Exits as soon as the output is out rather than when the event loop drains: a natural
 * exit closes the signal handlers before the process is gone, and a Ctrl-C in that
 * window would turn a finished command's exit code into 130.
 */
function exitOnceWritten(code: number): void {
  process.exitCode = code;
  // An empty write calls back once everything written before it is out.
  let remaining = 2;
  for (const stream of [process.stdout, process.stderr]) stream.write("", () => --remaining === 0 && process.exit(code));
}
