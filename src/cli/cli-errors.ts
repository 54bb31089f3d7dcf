// Every failure the CLI reports becomes one line on stderr and an exit code: never a
// stack trace. Errors that stop a run before it starts are usage errors (exit 2).
import { ConfigError, ResumeRefusedError } from "../agent/agent-errors.js";
import { RunStateError } from "../runstate/errors.js";
import { EXIT, exitCodeForStoreError } from "./exit-codes.js";

/** A command line that does not make sense: one line saying what to do instead. */
export class UsageError extends Error {
  override readonly name = "UsageError";
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
