// The fisk-ai process around a command line: it runs the command against `io`, reports a
// failure as one line, and exits once the output is out. main.ts runs it as shipped; a
// test entry runs the same with hooks of its own in `io`.
import { reportFailure } from "./cli-errors.js";
import { EXIT } from "./exit-codes.js";
import { runCommandLine } from "./program.js";
import type { CommandIO } from "./context/command-io.js";

export function runCliProcess(io: CommandIO): void {
  interpretSchemas();
  // A reader that stops reading (`fisk-ai session ls | head -1`) is no failure of ours:
  // the rest of the output has nowhere to go, so the command ends quietly.
  for (const stream of [io.stdout, io.stderr]) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EPIPE") process.exit(EXIT.completed);
      throw error;
    });
  }
  runCommandLine(process.argv.slice(2), io).then(
    (code) => exitOnceWritten(code, io),
    (error: unknown) => exitOnceWritten(reportFailure(error, io.stderr), io),
  );
}

/**
 * Exits as soon as the output is out rather than when the event loop drains: a natural
 * exit closes the signal handlers before the process is gone, and a Ctrl-C in that
 * window would turn a finished command's exit code into 130.
 */
function exitOnceWritten(code: number, io: CommandIO): void {
  process.exitCode = code;
  // An empty write calls back once everything written before it is out.
  let remaining = 2;
  for (const stream of [io.stdout, io.stderr]) stream.write("", () => --remaining === 0 && process.exit(code));
}

/**
 * Has zod check values by walking each schema rather than compiling a checker for each object
 * schema with `new Function` on its first use: a short process pays for that compilation more
 * than it gains, a long `session show --json` a little less than it gains (`npm run bench:cli-cpu`;
 * figures in docs/internals/performance.md). zod takes its configuration from this global, which it creates only when absent (`??=`, zod PR #5889), and reads `jitless`
 * as each schema is made: set before any command module loads zod. A library user's process
 * keeps zod's default.
 */
function interpretSchemas(): void {
  const shared = globalThis as { __zod_globalConfig?: { jitless?: boolean } };
  shared.__zod_globalConfig ??= {};
  shared.__zod_globalConfig.jitless = true;
}
