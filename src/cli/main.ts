#!/usr/bin/env node
// The fisk-ai command: a thin layer over the library that parses, calls and prints.
import { reportFailure } from "./cli-errors.js";
import { EXIT } from "./exit-codes.js";
import { runCommandLine } from "./program.js";
import type { CommandIO } from "./run-command.js";

// A reader that stops reading (`fisk-ai session ls | head -1`) is no failure of ours:
// the rest of the output has nowhere to go, so the command ends quietly.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(EXIT.completed);
    throw error;
  });
}

const io: CommandIO = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env };
runCommandLine(process.argv.slice(2), io).then(
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
