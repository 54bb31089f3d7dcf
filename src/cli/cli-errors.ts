// Every failure the CLI reports becomes one line on stderr and an exit code: never a
// stack trace. Errors that stop a run before it starts are usage errors (exit 2).
import { CompactionError, ConfigError, DecisionRefusedError, GO_V3_HASHES_NOTE, ResumeRefusedError } from "../agent/agent-errors.js";
import { RunStateError } from "../runstate/errors.js";
import { EXIT, exitCodeForStoreError } from "./exit-codes.js";

/** A command line that does not make sense: one line saying what to do instead. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** A title given for a session that more than one session's title matches. */
export class AmbiguousTitleError extends Error {
  override readonly name = "AmbiguousTitleError";

  constructor(title: string, candidates: string) {
    super(`${JSON.stringify(title)} names more than one session: ${candidates}; give the session's id`);
  }
}

/** An MCP server needs a sign-in the run could not ask for: the line names the commands that go on. */
export class SignInNeededError extends Error {
  override readonly name = "SignInNeededError";
}

export function reportFailure(error: unknown, stderr: NodeJS.WritableStream): number {
  if (error instanceof AmbiguousTitleError) {
    stderr.write(`fisk-ai: ${error.message}\n`);
    return EXIT.ambiguous;
  }
  // A compaction refused by hand (nothing to compact, a batch waiting) asks for another command, as a usage error does.
  if (error instanceof UsageError || error instanceof ConfigError || error instanceof CompactionError) {
    stderr.write(`fisk-ai: ${error.message}\n`);
    return EXIT.usage;
  }
  if (error instanceof ResumeRefusedError) {
    stderr.write(`fisk-ai: ${resumeRefusal(error)}\n`);
    return EXIT.usage;
  }
  if (error instanceof DecisionRefusedError) {
    stderr.write(`fisk-ai: ${error.message}${decisionAdvice(error)}\n`);
    return error.refusal === "already-decided" ? EXIT.decided : EXIT.usage;
  }
  if (error instanceof SignInNeededError) {
    stderr.write(`fisk-ai: ${error.message}\n`);
    return EXIT.signIn;
  }
  if (error instanceof RunStateError) {
    stderr.write(`fisk-ai: ${storeMessage(error)}${storeAdvice(error)}\n`);
    return exitCodeForStoreError(error.code);
  }
  const message = error instanceof Error ? error.message : String(error);
  stderr.write(`fisk-ai: ${message.split("\n")[0]}\n`);
  return EXIT.error;
}

/** The command that shows what can be decided. */
function decisionAdvice({ refusal, runId }: DecisionRefusedError): string {
  switch (refusal) {
    case "already-decided":
      return "";
    case "ambiguous":
      return ": give it with --call TOOL_USE_ID";
    default:
      return ` ('fisk-ai session show ${runId}' shows its calls)`;
  }
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

/**
 * A refused resume in the CLI's words: the library says what is wrong and that `force`
 * would help; the CLI names the flag, the agent.yaml field and the command to type.
 */
function resumeRefusal({ refusal, runId, changes, limit }: ResumeRefusedError): string {
  const lines = changes.map((change) => `\n  ${change}`).join("");
  switch (refusal) {
    case "completed":
      return `session ${runId} is completed: there is nothing to resume; give a follow-up (fisk-ai run --resume ${runId} "next question") or start a new run`;
    case "provider-changed":
      return `cannot resume session ${runId} with another provider (${changes[0]}): its turns cannot continue on a different API, even with --force`;
    case "go-hashes-unverifiable":
      return `cannot resume session ${runId} without --force: the Go implementation wrote it, and its hashes cannot all be compared here:${lines}\nif this configuration is the one it ran with, resume it with --force`;
    case "configuration-changed":
    case "go-hashes-changed":
      return `cannot resume session ${runId}: its configuration changed:${lines}\nrestore the configuration, or resume anyway with --force${refusal === "go-hashes-changed" ? GO_V3_HASHES_NOTE : ""}`;
    case "token-budget":
      return `cannot resume session ${runId}: token budget reached: ${limit?.used} of ${limit?.max} tokens used; raise budget.max_tokens, then resume with --force`;
    case "iteration-cap":
      return `cannot resume session ${runId}: it has made ${limit?.used} of its ${limit?.max} model calls for its latest prompt; raise budget.max_iterations, then resume with --force, or give a follow-up`;
  }
}

/** The library names the `nats` command that makes a missing stream; the CLI first offers its own. */
const MISSING_STREAM = /^(no JetStream stream \S+: create it), for example (with: .*)$/s;

function storeMessage(error: RunStateError): string {
  const missing = error.code === "ERR_STORE_CONFIG" ? MISSING_STREAM.exec(error.message) : null;
  return missing === null ? error.message : `${missing[1]} with 'fisk-ai session init-stream', or ${missing[2]}`;
}
