// Every failure the CLI reports becomes one line on stderr and an exit code: never a
// stack trace. Errors that stop a run before it starts are usage errors (exit 2).
import { ConfigError, ResumeRefusedError } from "../agent/agent-errors.js";
import { RunStateError } from "../runstate/errors.js";
import { EXIT, exitCodeForStoreError } from "./exit-codes.js";

/** A command line that does not make sense: one line saying what to do instead. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/**
 * A node:util parseArgs failure as one line. Its "ambiguous" message (an option whose
 * value starts with '-', as in `--name -x`) takes three lines; it is said in one here.
 */
export function commandLineError(error: unknown, command: string): UsageError {
  const message = error instanceof Error ? error.message : String(error);
  const ambiguous = /^Option '(-[^' ]+)' argument is ambiguous/.exec(message);
  const text = ambiguous === null ? message.replace(/\s*\n\s*/g, " ") : `option ${ambiguous[1]} needs a value (a value that starts with '-' is written ${ambiguous[1]}=-VALUE)`;
  return new UsageError(`${text}; see '${command} --help'`);
}

export function reportFailure(error: unknown, stderr: NodeJS.WritableStream): number {
  if (error instanceof UsageError || error instanceof ConfigError || error instanceof ResumeRefusedError) {
    stderr.write(`fisk-ai: ${error.message}\n`);
    return EXIT.usage;
  }
  if (error instanceof RunStateError) {
    stderr.write(`fisk-ai: ${error.message}\n`);
    return exitCodeForStoreError(error.code);
  }
  const message = error instanceof Error ? error.message : String(error);
  stderr.write(`fisk-ai: ${message.split("\n")[0]}\n`);
  return EXIT.error;
}
