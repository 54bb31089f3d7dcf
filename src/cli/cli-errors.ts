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
    stderr.write(`fisk-ai: ${error.message}${storeAdvice(error)}\n`);
    return exitCodeForStoreError(error.code);
  }
  const message = error instanceof Error ? error.message : String(error);
  stderr.write(`fisk-ai: ${message.split("\n")[0]}\n`);
  return EXIT.error;
}

/** The command that helps with a store's error: the library names what is wrong, the CLI how to look further. */
function storeAdvice(error: RunStateError): string {
  if (error.runId === undefined) return "";
  switch (error.code) {
    case "ERR_NOT_FOUND":
      return ": 'fisk-ai session ls' lists the sessions there are";
    case "ERR_CORRUPT":
    case "ERR_EMPTY":
    case "ERR_NO_META":
      return ` ('fisk-ai session verify ${error.runId}' shows every problem)`;
    case "ERR_LOCKED":
      return error.holder === undefined ? " ('fisk-ai session ls' shows its pid and host once it has)" : "";
    default:
      return "";
  }
}
