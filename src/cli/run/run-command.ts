// `fisk-ai run`: parses the command line, builds the run from agent.yaml and the
// environment, wires signals to suspend, and renders. All the work is the library's.
import { telemetryEnvironment } from "../../telemetry/config-environment.js";
import { tracingWanted } from "../../telemetry/otel-setup.js";
import type { TracedRun } from "../../telemetry/traced-run.js";
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { COMPACT, runAgent, type RunAgentOptions } from "../../agent/run-agent.js";
import { loadAgentConfig, type AgentConfig } from "../../config/agent-config.js";
import { bothEvents, type AgentEvents, type RunOutcome } from "../../agent/events.js";
import type { CommandIO } from "../context/command-io.js";
import type { Flags } from "../context/options.js";
import type { RUN_OPTIONS } from "./options.js";
import { startAgent, type LoadedAgent } from "../../config/load-agent.js";
import { RunStateError } from "../../runstate/errors.js";
import type { MetaPayload } from "../../runstate/records/records.js";
import type { Store } from "../../runstate/store/store.js";
import { assertRunId, newRunId } from "../../runstate/records/run-id.js";
import { SignInNeededError, UsageError } from "../cli-errors.js";
import { installationKeys } from "../../trust/installation-keys.js";
import { foreignReason } from "../../trust/session-trust.js";
import { EXIT, exitCodeFor } from "../exit-codes.js";
import { stderrRenderer, styleFor } from "./render.js";
import { resumableSessions } from "../../session/list-sessions.js";
import { pickSession } from "./session-picker.js";
import { chatInput, type ChatInput } from "./chat-input.js";
import { liveStatus, wantsLiveStatus } from "./live-status.js";
import { commandLine, traceAgain, type ResumeWhere } from "../context/resume-hint.js";
import { RunSignals } from "./run-signals.js";
import { resolveSession } from "../context/resolve-session.js";
import { checkedTitle } from "../context/checked-title.js";
import { titleSession } from "../../session/session-title.js";
import { configPathFrom, storeFor, storeFromFlags, storeHolds } from "../context/stores.js";
import { streamJsonEvents } from "./stream-json.js";
import { terminalAskRerun, terminalAskUser, terminalConfirm, terminalLine } from "./terminal-confirm.js";
import { terminalElicit } from "./terminal-elicit.js";
import { showSignInPage } from "./open-browser.js";
import { McpSignInNeededError } from "../../tools/mcp/sign-in-provider.js";

/** `run`'s flags, as commander gives them. */
export type RunFlags = Flags<typeof RUN_OPTIONS>;

export async function runCommand(positionals: string[], flags: RunFlags, io: CommandIO): Promise<number> {
  const mode = checkRunFlags(positionals, flags);
  const { values, checkpoint, streamJson } = mode;
  const target = await resolveTarget(positionals, mode, io);
  const { config, store, resumeId, meta } = target;
  enterRunCwd(values.cwd, target);

  // A chat's session reopens its input on a resume, unless the resume brings its own prompt:
  // that is a one-shot follow-up, answered and done (--chat makes it a chat again).
  const chat = values.chat === true || (meta?.interactive === true && target.followUp === undefined);
  if (streamJson && chat) throw new UsageError("--output-format stream-json cannot go with a chat: give one prompt, or drop --output-format");
  const input = chat ? chatInput(io.stdin, io.stderr) : undefined;
  const prompt = resumeId === undefined ? await newSessionPrompt(positionals[0], input, io.stdin) : "";

  const signals = new RunSignals(checkpoint, target.where, io);
  const prompts = input === undefined ? undefined : new ChatPrompts(input, signals);
  const output = outputFor(io, target.where, streamJson);
  // stream-json's stdout is a program's, not a person's: its decisions are made apart.
  const asks = values.approvals !== "defer" && !streamJson;
  let agent: LoadedAgent | undefined;
  let traced: TracedRun | undefined;
  try {
    const start = await tracedStart(config, target, values.name, io.env);
    traced = start.traced;
    // Started where the tools run, once for the whole process (a chat's /clear keeps them).
    agent = await startAgentAsking(config, io, target, asks, traced?.serverEnvironment);
    const options: RunAgentOptions = {
      ...agent.spec,
      // The recorded path is the one the run was started with, also when the defaults ran.
      configPath: target.usedConfig,
      cwd: process.cwd(),
      title: values.title,
      force: values.force === true,
      events: runEventsFor(prompts === undefined ? output.events : chatEvents(output, prompts), signals, traced, io),
      ...(traced === undefined ? {} : { callEnvironment: traced.callEnvironment, childRuns: traced.childRuns }),
      ...terminalDecisions(io, asks),
      decidedBy: "terminal",
      suspendSignal: signals.suspend.signal,
      abortSignal: signals.abort.signal,
      store,
      ...(prompts === undefined ? {} : { nextPrompt: () => prompts.next() }),
    };
    const outcome = await runSessions(
      { ...options, movedHeld: (to) => storeHolds(to, target.resumeId as string, io.stderr) },
      target,
      { prompt, runId: start.runId },
      prompts,
    );
    signals.finishedWith = prompts?.ended === true && outcome.reason === "suspended" ? EXIT.completed : exitCodeFor(outcome.reason);
    if (!chat && !streamJson && outcome.reason === "completed") output.printAnswer(outcome.answer ?? "");
    return signals.finishedWith;
  } finally {
    input?.close();
    await shutDownTracing(traced, signals.currentRunId, target.where, io);
    await agent?.close();
    await store?.close();
    signals.release();
  }
}

/** A new session's prompt: the argument or stdin, or in a chat given none, the first line typed. */
async function newSessionPrompt(argument: string | undefined, input: ChatInput | undefined, stdin: NodeJS.ReadStream): Promise<string> {
  return input === undefined || argument !== undefined ? await readPrompt(argument, stdin) : await firstChatPrompt(input);
}

/**
 * The run's tracing when the environment or agent.yaml asks for it, and the id of the session
 * it starts. Traced, a new session's id is chosen now, so that the MCP servers started for it
 * know its trace.
 */
async function tracedStart(
  config: AgentConfig,
  { store, resumeId }: RunTarget,
  name: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<{ runId: string | undefined; traced: TracedRun | undefined }> {
  const tracingEnv = telemetryEnvironment(config.telemetry, env);
  const tracing = tracingWanted(tracingEnv);
  const runId = name ?? (tracing && resumeId === undefined ? newRunId() : undefined);
  if (!tracing) return { runId, traced: undefined };
  const where = {
    provider: config.provider,
    model: config.model,
    runId: resumeId ?? (runId as string),
    ...(store === undefined ? {} : { store }),
    ...(resumeId === undefined ? {} : { resumeId }),
  };
  return { runId, traced: await (await import("../../telemetry/traced-run.js")).tracedRun(tracingEnv, where) };
}

/** Sends the run's last spans; says so when some could not be sent. */
async function shutDownTracing(traced: TracedRun | undefined, runId: string | undefined, where: ResumeWhere, io: CommandIO): Promise<void> {
  const notSent = await traced?.shutdown();
  if (notSent !== undefined) io.stderr.write(`fisk-ai: the run's traces were not all sent: ${notSent}; ${traceAgain(runId, where, io.env)}\n`);
}

/**
 * A chat's events: its answers on stdout, its narration on stderr, and no line at its end when
 * the person ended a chat that is not saved (nothing waits to be resumed; a saved one says how).
 */
function chatEvents(output: ReturnType<typeof outputFor>, prompts: ChatPrompts): AgentEvents {
  return {
    ...output.stderrEvents,
    answer: output.printAnswer,
    runFinished: (outcome) => {
      if (prompts.ended && outcome.reason === "suspended" && !outcome.checkpointed) return;
      output.stderrEvents.runFinished?.(outcome);
    },
  };
}

/** What the run reports to: `shown` (the terminal's or stream-json), the signals that name the run to resume, and its traces. */
function runEventsFor(shown: AgentEvents, signals: RunSignals, traced: TracedRun | undefined, io: CommandIO): AgentEvents {
  const events = bothEvents(shown, { runStarted: ({ runId }) => (signals.currentRunId = runId) });
  const runEvents = traced === undefined ? events : bothEvents(events, traced.events);
  return io.wrapRunEvents?.(runEvents) ?? runEvents;
}

/** Who decides at the terminal: approvals and the agent's questions when `asks`, and always whether to rerun an interrupted call. */
function terminalDecisions(io: CommandIO, asks: boolean): Pick<RunAgentOptions, "confirm" | "askUser" | "askRerun"> {
  const confirm = asks ? terminalConfirm(io.stdin, io.stderr) : undefined;
  const askUser = asks ? terminalAskUser(io.stdin, io.stderr) : undefined;
  const askRerun = terminalAskRerun(io.stdin, io.stderr);
  return { confirm, askUser, askRerun };
}

/**
 * Starts the agent and its MCP servers. A person at the terminal (or a browser BROWSER
 * names) can sign in and answer questions; where there is none, a server that needs a
 * sign-in stops the run here, before any model call, naming the commands that go on from there.
 */
async function startAgentAsking(
  config: AgentConfig,
  io: CommandIO,
  target: RunTarget,
  asks: boolean,
  traceEnvironment: Record<string, string> = {},
): Promise<LoadedAgent> {
  const terminal = io.stdin.isTTY === true && io.stderr.isTTY === true;
  const canSignIn = terminal || (io.env.BROWSER ?? "") !== "";
  const ask = asks ? terminalElicit(io.stdin, io.stderr) : undefined;
  const people = { ...(canSignIn ? { showSignInPage: showSignInPage(io.stderr, io.env) } : {}), ...(ask === undefined ? {} : { ask }) };
  try {
    return await startAgent(config, target.usedConfig, { ...io.env, ...traceEnvironment }, people);
  } catch (error) {
    if (!(error instanceof McpSignInNeededError)) throw error;
    const config = target.usedConfig === undefined || target.usedConfig === resolve("agent.yaml") ? [] : ["--config", target.usedConfig];
    const login = commandLine(["mcp", "login", error.server, ...config], {}, io.env);
    const then = target.resumeId === undefined ? "run this command again" : `'${commandLine(["run", "--resume", target.resumeId], target.where, io.env)}'`;
    throw new SignInNeededError(`${error.message}: sign in with '${login}', then ${then}`);
  }
}

/**
 * Takes up the target's session, or starts one; then in a chat each new session a `/clear`
 * asks for. The last session's outcome.
 */
async function runSessions(
  options: RunAgentOptions,
  { store, resumeId, followUp }: RunTarget,
  start: { prompt: string; runId: string | undefined },
  prompts: ChatPrompts | undefined,
): Promise<RunOutcome> {
  let outcome =
    store !== undefined && resumeId !== undefined
      ? await runAgent({ ...options, resume: resumeId, followUp })
      : await runAgent({ ...options, prompt: start.prompt, runId: start.runId });
  // `/clear` ended that session: the next starts with the prompt typed after it, and a new id.
  for (let fresh = prompts?.takeCleared(); fresh !== undefined; fresh = prompts?.takeCleared()) {
    // A new session: the title named the one the command started.
    outcome = await runAgent({ ...options, prompt: fresh, title: undefined });
  }
  return outcome;
}

/** `run`'s flags once checked against each other. `values.resume` is an id: `pick` says `--resume` came without one. */
interface RunMode {
  values: Omit<RunFlags, "resume"> & { resume?: string | undefined };
  pick: boolean;
  /** `--resume` or `--continue`: a prompt given is a follow-up. */
  resuming: boolean;
  checkpoint: boolean;
  streamJson: boolean;
}

function checkRunFlags(positionals: string[], flags: RunFlags): RunMode {
  const pick = flags.resume === true;
  const values = { ...flags, resume: flags.resume === true ? undefined : flags.resume };
  if (positionals.length > 1) throw new UsageError("give the prompt as one argument (quote it), or on stdin");
  const resuming = values.resume !== undefined || values.continue === true || pick;
  const checkpoint = values.checkpoint === true || resuming;
  if ([values.resume !== undefined, values.continue === true, pick].filter(Boolean).length > 1) {
    throw new UsageError("choose one of --resume ID, --resume (to pick) and --continue");
  }
  if (resuming && values.name !== undefined) throw new UsageError("--name names a new session: it cannot go with --resume");
  if (values.name !== undefined && !checkpoint) throw new UsageError("--name names a checkpointed session: add --checkpoint");
  if (values.force === true && !resuming) throw new UsageError("--force applies only to --resume");
  const format = values.outputFormat ?? "text";
  if (format !== "text" && format !== "stream-json") throw new UsageError(`--output-format is text or stream-json, not '${format}'`);
  if (values.approvals !== undefined && values.approvals !== "ask" && values.approvals !== "defer") {
    throw new UsageError(`--approvals is ask (on a terminal when there is one) or defer (park the run until a decision), not '${values.approvals}'`);
  }
  if (values.all === true && values.continue !== true && !pick) throw new UsageError("--all applies to --continue and to --resume without an id");
  if (values.name !== undefined) assertRunId(values.name);
  if (values.title !== undefined) {
    if (!checkpoint) throw new UsageError("--title names a checkpointed session: add --checkpoint");
    checkedTitle(values.title, "--title");
  }
  return { values, pick, resuming, checkpoint, streamJson: format === "stream-json" };
}

/** What a run works on: the session it takes up (none for a new one), its store and the configuration it runs with. */
interface RunTarget {
  config: AgentConfig;
  store: Store | undefined;
  followUp: string | undefined;
  resumeId: string | undefined;
  /** The meta record of the session taken up. */
  meta: MetaPayload | undefined;
  /** Why the session taken up is foreign (docs/security.md): its meta chooses neither the configuration nor the directory. */
  foreign: string | undefined;
  /** The absolute agent.yaml the run uses, if any. */
  usedConfig: string | undefined;
  /** What a resume hint names to find this session again. */
  where: ResumeWhere;
}

async function resolveTarget(positionals: string[], { values, pick, resuming, checkpoint }: RunMode, io: CommandIO): Promise<RunTarget> {
  const configPath = configPathFrom(values.config);
  const named = storeFromFlags(values);
  const overrides = { provider: values.provider, model: values.model, store: named };
  let config = loadAgentConfig(configPath, overrides);
  const store = checkpoint ? await storeFor(config, io.stderr) : undefined;
  // On a resume, a prompt is a follow-up: it takes the session further.
  const followUp = resuming && positionals[0] !== undefined ? await readPrompt(positionals[0], io.stdin) : undefined;
  let resumeId: string | undefined;
  if (store !== undefined && resuming) {
    const here = values.all === true ? undefined : process.cwd();
    resumeId =
      values.resume !== undefined
        ? await resolveSession(store, values.resume)
        : pick
          ? await pickSession(store, io.stdin, io.stderr, here)
          : await latestToContinue(store, here, followUp !== undefined);
    if (values.title !== undefined) await titleSession(store, resumeId, values.title);
  }
  const summary = store !== undefined && resumeId !== undefined ? await store.summarize(resumeId) : undefined;
  const meta = summary?.meta;
  let foreign = meta === undefined ? undefined : foreignReason(meta, summary?.digest?.imported, installationKeys(store, { env: io.env }));
  if (foreign !== undefined && values.config === undefined && meta !== undefined) {
    if (!(await foreignResumeConfirmed(resumeId as string, foreign, meta, io))) {
      throw new UsageError(
        `session ${resumeId} is foreign (${foreign}): its journal does not choose the configuration or the directory a resume runs with; resume it with --config FILE (and --cwd DIR), and decide its waiting calls here`,
      );
    }
    // A person on the terminal took the journal's word for where it runs; its calls still wait for a decision made here (the loop sees to that).
    foreign = undefined;
  }

  // A resume runs with the configuration the session started with, unless told otherwise.
  const { sessionAgentPath } = await import("../../session/session-agent-path.js");
  const found = configPath === undefined ? undefined : resolve(configPath);
  const usedConfig = sessionAgentPath(meta, { given: values.config === undefined ? undefined : found, foreign, fallback: found });
  if (usedConfig !== found && usedConfig !== undefined) {
    config = loadAgentConfig(usedConfig, overrides);
    io.stderr.write(`fisk-ai: using the session's configuration, ${usedConfig}\n`);
  }
  const recordedConfig = resumeId === undefined ? usedConfig : meta?.config;
  const defaultStore = config.store.backend === "file" && config.store.dir === undefined;
  const where = {
    // Named when a bare resume from elsewhere would miss it: it names the store, or it is not the recorded one.
    config: usedConfig !== undefined && ((named === undefined && !defaultStore) || usedConfig !== recordedConfig) ? usedConfig : undefined,
    stateDir: values.stateDir === undefined ? undefined : resolve(values.stateDir),
    store: values.store,
  };
  return { config, store, followUp, resumeId, meta, foreign, usedConfig, where };
}

/** Whether a person on the terminal lets a foreign session's journal choose its configuration and directory; false where there is no terminal. */
async function foreignResumeConfirmed(runId: string, why: string, meta: MetaPayload, io: CommandIO): Promise<boolean> {
  const ask = terminalLine(io.stdin, io.stderr);
  if (ask === undefined) return false;
  const config = meta.config === undefined ? "with the default configuration" : `with the configuration its journal names, ${meta.config},`;
  const where = meta.cwd === undefined ? "here" : `in the directory it names, ${meta.cwd}`;
  const answer = await ask(`session ${runId} is foreign (${why}). Resume it ${config} ${where}? Its waiting calls still need a decision made here. [y/N] `);
  return /^y(es)?$/i.test(answer ?? "");
}

/** Tools run where the session started (or in `--cwd`; a foreign session's, here); the target's paths are absolute by now. */
function enterRunCwd(cwdFlag: string | undefined, { meta, resumeId, foreign }: RunTarget): void {
  const runCwd = cwdFlag !== undefined ? resolve(cwdFlag) : foreign === undefined ? meta?.cwd : undefined;
  if (runCwd === undefined) return;
  if (!isDirectory(runCwd)) {
    throw new UsageError(
      cwdFlag !== undefined
        ? `--cwd ${cwdFlag}: no such directory`
        : `session ${resumeId} ran in ${runCwd}, which no longer exists: resume it with --cwd DIR to run its tools in another directory`,
    );
  }
  process.chdir(runCwd);
}

/** A chat's prompts after its first: `/exit` (or the end of input, or Ctrl-C at the prompt) ends the chat, `/clear` starts a new session, `/compact` compacts this one. */
class ChatPrompts {
  /** The chat ended at its prompt: the run's `suspended` is the user's own doing. */
  ended = false;
  private cleared: string | undefined;

  constructor(
    private readonly input: ChatInput,
    private readonly signals: RunSignals,
  ) {}

  async next(): Promise<string | typeof COMPACT | undefined> {
    let line: string | undefined;
    do {
      line = await new Promise<string | undefined>((resolvePrompt) => {
        this.signals.atPrompt = () => resolvePrompt(undefined);
        void this.input.next().then(resolvePrompt);
      }).finally(() => (this.signals.atPrompt = undefined));
    } while (line?.trim() === "");
    const command = line?.trim();
    if (command === "/compact") return COMPACT;
    if (command === "/clear") this.cleared = await firstChatPrompt(this.input).catch(() => undefined);
    else if (command !== undefined && command !== "/exit") return line;
    this.ended = true;
    return undefined;
  }

  /** The prompt typed after `/clear`, once: a new session starts with it, its chat not ended. */
  takeCleared(): string | undefined {
    const prompt = this.cleared;
    this.cleared = undefined;
    if (prompt !== undefined) this.ended = false;
    return prompt;
  }
}

/** Where a run's narration and answer go: stderr (with a live status on a terminal), stdout, and stream-json on stdout when asked. */
function outputFor(
  io: CommandIO,
  where: ResumeWhere,
  streamJson: boolean,
): { stderrEvents: AgentEvents; events: AgentEvents; printAnswer: (text: string) => void } {
  const style = styleFor(io.stderr, io.env);
  const showLive = wantsLiveStatus(io.stderr, io.env);
  const narration = stderrRenderer(io.stderr, style, (args) => commandLine(args, where, io.env), showLive);
  const live = showLive ? liveStatus(narration, io.stderr, style) : undefined;
  const stderrEvents = live?.events ?? narration;
  // On a terminal the streamed answer is already on the screen: stdout does not repeat it there.
  const printAnswer = (text: string) => {
    if (live?.answerShown() === true && (io.stdout as { isTTY?: boolean }).isTTY === true) return;
    io.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
  };
  return { stderrEvents, events: streamJson ? bothEvents(stderrEvents, streamJsonEvents(io.stdout)) : stderrEvents, printAnswer };
}

/** The first prompt of a chat (or the one after /clear): the next line that says something. */
async function firstChatPrompt(input: ChatInput): Promise<string> {
  for (let line = await input.next(); line !== undefined; line = await input.next()) {
    if (line.trim() !== "") return line;
  }
  throw new UsageError('give a prompt: fisk-ai run --chat "what to do" (or type it, or pipe it on stdin)');
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * What `--continue` takes up: the most recently updated session that is not completed
 * (completed ones too, given a follow-up), among those started in `here` when given.
 */
async function latestToContinue(store: Store, here: string | undefined, withFollowUp: boolean): Promise<string> {
  const [latest] = await resumableSessions(store, { here, includeCompleted: withFollowUp });
  if (latest !== undefined) return latest.runId;
  const none = withFollowUp ? "none is free to take a follow-up" : "none is suspended or stopped early and free";
  if (here !== undefined) {
    throw new RunStateError(
      "ERR_NOT_FOUND",
      `there is no session to continue in ${here}: ${none} ('fisk-ai run --continue --all' looks at the sessions of every directory)`,
    );
  }
  throw new RunStateError("ERR_NOT_FOUND", `there is no session to continue: ${none} ('fisk-ai session ls' lists them)`);
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
