// Every failure the CLI reports becomes one line on stderr and an exit code: never a
// stack trace. Errors that stop a run before it starts are usage errors (exit 2).
import { GO_V3_HASHES_NOTE, type DecisionRefusedError, type ResumeRefusedError } from "../agent/agent-errors.js";
import { isStoreUrl } from "../backends/url-form.js";
import { isFiskError } from "../errors/fisk-error.js";
import { maskUrlCredentials } from "../errors/masked-url.js";
import type { McpSignInNeededError } from "../tools/mcp/sign-in-provider.js";
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

/** The person stopped the command at a question (Ctrl-C): nothing was done, exit 130. */
export class InterruptedError extends Error {
  override readonly name = "InterruptedError";
}

/** An MCP server needs a sign-in the run could not ask for: the line names the commands that go on. */
export class SignInNeededError extends Error {
  override readonly name = "SignInNeededError";
}

export function reportFailure(error: unknown, stderr: NodeJS.WritableStream): number {
  const { line, exit } = failureOf(error);
  // A URL a user typed or configured may carry a password: no failure line shows it.
  stderr.write(`fisk-ai: ${maskUrlCredentials(line)}\n`);
  return exit;
}

/** The line and exit code of a failure: the CLI's own errors, then each library error by its code. */
function failureOf(error: unknown): { line: string; exit: number } {
  if (error instanceof UsageError) return { line: error.message, exit: EXIT.usage };
  if (error instanceof AmbiguousTitleError) return { line: error.message, exit: EXIT.ambiguous };
  if (error instanceof SignInNeededError) return { line: error.message, exit: EXIT.signIn };
  if (error instanceof InterruptedError) return { line: error.message, exit: EXIT.interrupted };
  if (!isFiskError(error)) return { line: firstLine(error instanceof Error ? error.message : String(error)), exit: EXIT.error };
  if (error instanceof RunStateError) return { line: `${storeMessage(error)}${storeAdvice(error)}`, exit: exitCodeForStoreError(error.code) };
  switch (error.code) {
    // A compaction refused by hand (nothing to compact, a batch waiting) asks for another command, as a usage error does.
    case "ERR_CONFIG":
    case "ERR_COMPACTION":
      return { line: error.message, exit: EXIT.usage };
    case "ERR_SIGN_IN_NEEDED":
      return { line: `${error.message}: sign in with 'fisk-ai mcp login ${(error as McpSignInNeededError).server}', then run again`, exit: EXIT.signIn };
    case "ERR_UNKNOWN_SCHEME":
      return { line: error.message, exit: EXIT.unknownBackend };
    case "ERR_STORE_URL":
    case "ERR_SCHEME_TAKEN":
      return { line: error.message, exit: EXIT.usage };
    case "ERR_RESUME_REFUSED":
      return { line: resumeRefusal(error as ResumeRefusedError), exit: EXIT.usage };
    // A missing or unusable keyring: the message names the file and what to do.
    case "ERR_NO_SIGNING_KEY":
    case "ERR_SIGNING_KEYS":
    case "ERR_UNSIGNABLE":
    case "ERR_IMPORT_REFUSED":
    case "ERR_KEY_FILE":
      return { line: error.message, exit: EXIT.usage };
    case "ERR_DECISION_REFUSED": {
      const refused = error as DecisionRefusedError;
      return { line: `${error.message}${decisionAdvice(refused)}`, exit: refused.refusal === "already-decided" ? EXIT.decided : EXIT.usage };
    }
    default:
      // A model call, an MCP server, a note: the command ends as on an error.
      return { line: firstLine(error.message), exit: EXIT.error };
  }
}

function firstLine(text: string): string {
  return text.split("\n")[0] ?? text;
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
    case "ERR_MOVED":
      return error.movedTo === undefined ? "" : ` (fisk-ai run --resume ${error.runId} ${storeFlag(error.movedTo)} ${error.movedTo})`;
    default:
      return "";
  }
}

/** The option that names a store: a URL is given with --store, a file store's directory with --state-dir. */
export function storeFlag(store: string): "--store" | "--state-dir" {
  return isStoreUrl(store) ? "--store" : "--state-dir";
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
function storeMessage(error: RunStateError): string {
  if (error.code !== "ERR_NO_STREAM") return error.message;
  const store = error.store === undefined ? "" : ` --store ${error.store}`;
  return `no JetStream stream ${error.stream}: create it with 'fisk-ai session init-stream${store}', or with: ${error.expected}`;
}
