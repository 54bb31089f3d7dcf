// `fisk-ai run`: parses the command line, builds the run from agent.yaml and the
// environment, wires signals to suspend, and renders. All the work is the library's.
import { parseArgs } from "node:util";
import { resumeRun, startRun, type RunOptions } from "../agent/agent-loop.js";
import { loadAgentConfig } from "../agent/config.js";
import type { RunOutcome } from "../agent/events.js";
import { settingsFromConfig } from "../agent/settings-from-config.js";
import { RunStateError } from "../runstate/errors.js";
import type { Store } from "../runstate/store.js";
import { assertRunId } from "../runstate/run-id.js";
import { commandLineError, UsageError } from "./cli-errors.js";
import { withCrashPoint } from "./crash-point.js";
import { EXIT, EXIT_CODES_HELP, exitCodeFor } from "./exit-codes.js";
import { stderrRenderer, styleFor } from "./render.js";
import { resumableSessions } from "./session-list.js";
import { pickSession } from "./session-picker.js";
import { configPathFrom, storeFor } from "./session-store.js";
import { terminalAskRerun, terminalConfirm } from "./terminal-confirm.js";

const RUN_HELP = `Usage: fisk-ai run [PROMPT] [options]

Runs the agent on PROMPT (or on stdin when PROMPT is - or absent and stdin is not a
terminal). The final answer goes to stdout; narration and tool traces to stderr.

Options:
  --config FILE      the agent configuration (default: ./agent.yaml when it exists)
  --checkpoint       journal the run so it can be suspended (Ctrl-C) and resumed
  --name ID          the session id of a checkpointed run (default: a new KSUID)
  --resume ID        resume a checkpointed session (no ID: pick one, on a terminal)
  --continue         resume the most recently updated session that is not completed
  --force            resume even though the configuration changed (not the provider)
  --state-dir DIR    where sessions are kept (default: $XDG_STATE_HOME/fisk-ai/runs)
  --model M          override the configured model
  --provider P       override the configured provider: anthropic, openai or script

${EXIT_CODES_HELP}`;

export interface CommandIO {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
}

function parseRunArgs(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        config: { type: "string" },
        checkpoint: { type: "boolean" },
        continue: { type: "boolean" },
        name: { type: "string" },
        resume: { type: "string" },
        force: { type: "boolean" },
        "state-dir": { type: "string" },
        model: { type: "string" },
        provider: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    throw commandLineError(error, "fisk-ai run");
  }
}

/** `--resume` with no id after it asks for the picker; parseArgs would take the next flag as the id. */
function splitBareResume(argv: string[]): { args: string[]; pick: boolean } {
  const index = argv.findIndex((arg, i) => arg === "--resume" && (i === argv.length - 1 || (argv[i + 1] as string).startsWith("-")));
  return index < 0 ? { args: argv, pick: false } : { args: argv.filter((_arg, i) => i !== index), pick: true };
}

export async function runCommand(argv: string[], io: CommandIO): Promise<number> {
  const { args, pick } = splitBareResume(argv);
  const { values, positionals } = parseRunArgs(args);
  if (values.help === true) {
    io.stdout.write(RUN_HELP);
    return EXIT.completed;
  }
  if (positionals.length > 1) throw new UsageError("give the prompt as one argument (quote it), or on stdin");
  const resuming = values.resume !== undefined || values.continue === true || pick;
  const checkpoint = values.checkpoint === true || resuming;
  if ([values.resume !== undefined, values.continue === true, pick].filter(Boolean).length > 1) {
    throw new UsageError("choose one of --resume ID, --resume (to pick) and --continue");
  }
  if (resuming && positionals.length > 0) throw new UsageError("--resume continues a session: it takes no prompt");
  if (resuming && values.name !== undefined) throw new UsageError("--name names a new session: it cannot go with --resume");
  if (values.name !== undefined && !checkpoint) throw new UsageError("--name names a checkpointed session: add --checkpoint");
  if (values.force === true && !resuming) throw new UsageError("--force applies only to --resume");
  if (values.resume !== undefined) assertRunId(values.resume);
  if (values.name !== undefined) assertRunId(values.name);

  const config = loadAgentConfig(configPathFrom(values.config), { provider: values.provider, model: values.model, stateDir: values["state-dir"] });
  const settings = settingsFromConfig(config, io.env);
  const store = checkpoint ? await storeFor(config) : undefined;
  let resumeId: string | undefined;
  if (store !== undefined && resuming) {
    resumeId = values.resume ?? (pick ? await pickSession(store, io.stdin, io.stderr) : await latestResumable(store));
  }
  const prompt = resumeId === undefined ? await readPrompt(positionals[0], io.stdin) : "";

  const abort = new AbortController();
  const suspend = { requested: false };
  // Set once the outcome is known: a Ctrl-C after that finds nothing to stop and must not
  // turn the outcome's exit code into 130, so the handlers stay until the process is gone.
  let finishedWith: number | undefined;
  const onSignal = () => {
    if (finishedWith !== undefined) process.exit(finishedWith);
    if (!checkpoint || suspend.requested) {
      // Crash semantics: stop tools at once, write nothing more.
      abort.abort(new Error("interrupted"));
      io.stderr.write("\nfisk-ai: interrupted\n");
      process.exit(EXIT.interrupted);
    }
    suspend.requested = true;
    io.stderr.write("\nfisk-ai: suspending at the next step (Ctrl-C again aborts at once)\n");
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);

  const options: RunOptions = {
    settings,
    events: withCrashPoint(stderrRenderer(io.stderr, styleFor(io.stderr, io.env)), io.env.FISK_AI_TEST_CRASH_AT),
    confirm: terminalConfirm(io.stdin, io.stderr),
    askRerun: terminalAskRerun(io.stdin, io.stderr),
    suspend,
    signal: abort.signal,
  };
  try {
    const outcome: RunOutcome =
      store !== undefined && resumeId !== undefined
        ? await resumeRun({ ...options, store }, { runId: resumeId, force: values.force === true })
        : await startRun({ ...options, store }, { prompt, runId: values.name });
    finishedWith = exitCodeFor(outcome.reason);
    if (outcome.reason === "completed") io.stdout.write(outcome.answer?.endsWith("\n") ? outcome.answer : `${outcome.answer ?? ""}\n`);
    return finishedWith;
  } finally {
    if (finishedWith === undefined) {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    }
  }
}

async function latestResumable(store: Store): Promise<string> {
  const [latest] = await resumableSessions(store);
  if (latest === undefined) {
    throw new RunStateError("ERR_NOT_FOUND", "there is no session to continue: none is suspended or stopped early and free ('fisk-ai session ls' lists them)");
  }
  return latest.runId;
}

async function readPrompt(argument: string | undefined, stdin: NodeJS.ReadStream): Promise<string> {
  if (argument !== undefined && argument !== "-") {
    if (argument.trim() === "") throw new UsageError("the prompt is empty: say what the agent should do");
    return argument;
  }
  if (stdin.isTTY === true) throw new UsageError('give a prompt: fisk-ai run "what to do" (or pipe it on stdin)');
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(chunk as Buffer);
  const prompt = Buffer.concat(chunks).toString("utf8").trim();
  if (prompt === "") throw new UsageError("the prompt on stdin is empty: say what the agent should do");
  return prompt;
}
