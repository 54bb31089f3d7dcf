// The agent loop (docs/durability.md). The order inside a turn is what makes runs durable:
// the assistant turn is journaled before any tool runs, so a crash mid-batch never pays
// for the call again, and each tool result is journaled the instant its tool completes,
// so a crash repeats at most the one tool whose result never reached the journal.
import { callWithRetries } from "../llm/call-with-retries.js";
import { ModelCallError, type ModelTurn } from "../llm/model-provider.js";
import type { RunState } from "../runstate/views/fold.js";
import {
  CHILD_RECORD_VERSION,
  isOtherBlock,
  PROTOCOLS,
  type ParentLink,
  type AssistantMessage,
  type AssistantPayload,
  type Message,
  type MetaPayload,
  type TerminalReason,
  type ToolResultBlock,
  type ToolUseBlock,
} from "../runstate/records/records.js";
import { newRunId } from "../runstate/records/run-id.js";
import type { Store } from "../runstate/store/store.js";
import { checkedTenant, tenantField } from "../runstate/store/tenant.js";
import { allowDecided, cutCallResult, denyWithoutTerminal, interruptedResult, type ToolSet } from "../tools/tool-set.js";
import { CallHeld, type ToolContext } from "../tools/tool.js";
import { GO_V3_HASHES_NOTE, ResumeRefusedError } from "./agent-errors.js";
import { RunCompaction } from "./compaction.js";
import { compactionInEffect, toolSetOf, type AgentSpec } from "./agent-spec.js";
import { COMPACT, type RunContext } from "./run-context.js";
import { cannotHaveRun, decideCall, parkCalls, waitingMessage, type BatchApprovals } from "./approvals.js";
import { CHAT_ENDED, type AgentEvents, type RunOutcome } from "./events.js";
import { computeFingerprint, diffFingerprints, fingerprintStyle, writtenStyle, type FingerprintStyle } from "./fingerprint.js";
import { installationKeys, type InstallationKeys } from "../trust/installation-keys.js";
import { signMeta } from "../trust/signatures.js";
import { foreignReason } from "../trust/session-trust.js";
import { RunRecorder } from "./run-recorder.js";
import { buildSystemPrompt } from "./system-prompt.js";
import { TreeTally } from "./tree-tally.js";
import { waitingCalls, type WaitingCall } from "./waiting-calls.js";
import { partFirstSeq } from "./run-parts.js";
import { movedError } from "../runstate/errors.js";

/** What the loop runs: the agent, and the run's context with the keys resolved from its keyring. */
export type RunOptions = Omit<RunContext, "keyring"> & {
  spec: AgentSpec;
  /** What decisions and the meta are verified and signed with; default the installation's for the store (installationKeys). */
  keys?: InstallationKeys | undefined;
};

export { COMPACT };

/** What a new run records about itself in its meta record, besides the prompt and what its AgentSpec says (record version, agent.yaml). */
export interface RunStart {
  prompt: string;
  runId?: string | undefined;
  /** Started as a chat (`--chat`): a resume reopens its input. */
  interactive?: boolean | undefined;
  /** The absolute working directory its tools run in. */
  cwd?: string | undefined;
  /** A title, journaled right after the meta record. */
  title?: string | undefined;
  /** Makes the run a child session: its meta names its parent and is of CHILD_RECORD_VERSION, whatever `recordVersion` says. */
  parent?: ParentLink | undefined;
  /** The tenant a shared service runs the session for, journaled in its meta (none for the default tenant). */
  tenant?: string | undefined;
}

export interface RunResume {
  runId: string;
  force: boolean;
  /** A prompt to take the session further: journaled as a `user` record, also after a terminal one. */
  followUp?: string | undefined;
  /**
   * For a session moved to another store (`to`, as its moved record names it): whether
   * that store holds it. A move counts once it does; one cut short before leaves this copy
   * the one to resume, and resuming it cancels the move. Without it a moved session is
   * refused (ERR_MOVED).
   */
  movedHeld?: ((to: string) => Promise<boolean>) | undefined;
}

/**
 * The meta record a new run of `spec` starts its journal with (startRun's, and a submitted
 * run's), in the spec's record version: version 3, the Go implementation's current format,
 * keeps tool results as text and records neither `cwd` nor `config`.
 */
export function newRunMeta(spec: AgentSpec, start: RunStart): MetaPayload {
  const version = start.parent === undefined ? spec.recordVersion : CHILD_RECORD_VERSION;
  return {
    version,
    run_id: start.runId ?? newRunId(),
    created: new Date().toISOString(),
    fingerprint: fingerprintOf(spec, writtenStyle(version)),
    prompt: start.prompt,
    ...(start.interactive === true ? { interactive: true } : {}),
    ...(start.cwd === undefined ? {} : { cwd: start.cwd }),
    ...(spec.configPath === undefined ? {} : { config: spec.configPath }),
    ...(start.parent === undefined ? {} : { parent: start.parent }),
    ...tenantField(checkedTenant(start.tenant, version)),
  };
}

/** The meta signed with the keys' current key, when there is one: what a resume trusts of it is then known to be this installation's. */
export function signedMeta(meta: MetaPayload, keys: InstallationKeys): MetaPayload {
  return keys.trusted.current === undefined ? meta : signMeta(keys.trusted, meta);
}

export async function startRun(given: RunOptions, start: RunStart): Promise<RunOutcome> {
  const options = withKeys(given);
  const meta = signedMeta(newRunMeta(options.spec, start), options.keys);
  const runId = meta.run_id;
  const recorder = await RunRecorder.create(options.store, meta);
  try {
    if (start.title !== undefined) await recorder.append({ protocol: PROTOCOLS.title, title: { title: start.title } });
    options.events?.runStarted?.({ runId, resumed: false, checkpointed: recorder.checkpointed, firstSeq: 1, afterCrash: false, startedAt: meta.created });
    return await drive(
      recorder,
      options,
      await TreeTally.of(options.store, recorder.state(), options.spec.budget.maxTokens, options.parentBudget),
      await buildSystemPrompt({ system: options.spec.system, resumed: false, memory: options.spec.memory }),
      undefined,
    );
  } finally {
    await recorder.close();
  }
}

export async function resumeRun(given: RunOptions & { store: Store }, resume: RunResume): Promise<RunOutcome> {
  const keyed = withKeys(given);
  const recorder = await RunRecorder.open(keyed.store, resume.runId, "take");
  try {
    const state = recorder.state();
    const options = { ...keyed, foreign: foreignReason(state.meta, state.imported, keyed.keys) };
    // Asked while this copy is held, so a move cannot finish between the question and the resume.
    if (state.moved !== undefined && (resume.movedHeld === undefined || (await resume.movedHeld(state.moved.to)))) throw movedError(resume.runId, state.moved);
    const tally = await TreeTally.of(options.store, state, options.spec.budget.maxTokens, options.parentBudget);
    refuseResume(state, options.spec, tally, { force: resume.force, goesOn: resume.followUp !== undefined || options.nextPrompt !== undefined });
    // A submitted run that no model call has touched yet starts as a new run would.
    const resumed = state.nextIteration > 0;
    const startedAt = new Date().toISOString();
    const firstSeq = partFirstSeq(state);
    // A part of its own begins at its first record, which says so.
    if (firstSeq > 1) recorder.markPart(startedAt);
    options.events?.runStarted?.({
      runId: resume.runId,
      resumed,
      checkpointed: true,
      firstSeq,
      afterCrash: resumed && state.terminal === undefined,
      startedAt,
    });
    if (resumed) options.events?.replay?.(replayed(state));
    return await drive(
      recorder,
      options,
      tally,
      await buildSystemPrompt({ system: options.spec.system, resumed, memory: options.spec.memory }),
      resume.followUp,
    );
  } finally {
    await recorder.close();
  }
}

/** The conversation so far as a resume shows it: the committed messages, then a pending batch's turn and the results it has. */
function replayed(state: RunState): readonly Message[] {
  const pending = state.pending;
  if (pending === undefined) return state.messages;
  // A pending turn that continues a paused one is that message, joined: it takes its place.
  const committed = state.messages.at(-1)?.role === "assistant" ? state.messages.slice(0, -1) : state.messages;
  const results: Message[] = pending.results.length === 0 ? [] : [{ role: "user", content: [...pending.results] }];
  return [...committed, pending.turn.message, ...results];
}

/** The fingerprint of `spec` in `style`: what a run's meta records, and what a resume compares. */
export function fingerprintOf(spec: AgentSpec, style: FingerprintStyle, tools: ToolSet = toolSetOf(spec.tools)) {
  return computeFingerprint(
    {
      provider: spec.provider.name,
      model: spec.model,
      system: spec.system,
      tools: tools.specs(),
      mcpTools: tools.specsByServer(),
      thinking: spec.thinking,
      maxTokens: spec.budget.maxTokens,
      maxIterations: spec.budget.maxIterations,
    },
    style,
  );
}

/** `goesOn`: the resume brings a follow-up (or reopens a chat), so a finished session is taken further. */
function refuseResume(state: RunState, spec: AgentSpec, tally: TreeTally, { force, goesOn }: { force: boolean; goesOn: boolean }): void {
  const { runId } = state;
  if (state.terminal?.reason === "completed" && !goesOn) {
    throw new ResumeRefusedError("completed", `session ${runId} is completed: there is nothing to resume`, { runId });
  }
  const style = fingerprintStyle(state.meta);
  const { changes, providerChanged } = diffFingerprints(state.meta.fingerprint, fingerprintOf(spec, style), style);
  if (providerChanged) {
    throw new ResumeRefusedError(
      "provider-changed",
      `cannot resume session ${runId} with another provider (${changes[0]}): its turns cannot continue on a different API, even when forced`,
      { runId, changes },
    );
  }
  if (changes.length > 0 && !force) {
    const lines = changes.map((change) => `  ${change}`).join("\n");
    if (style === "go-v2") {
      throw new ResumeRefusedError(
        "go-hashes-unverifiable",
        `cannot resume session ${runId} unless forced: the Go implementation wrote it, and its hashes cannot all be compared here:\n${lines}\nif this configuration is the one it ran with, pass force to resume it`,
        { runId, changes },
      );
    }
    const changed = `cannot resume session ${runId}: its configuration changed:\n${lines}\nrestore the configuration, or pass force to resume anyway`;
    if (style === "go-v3") throw new ResumeRefusedError("go-hashes-changed", `${changed}${GO_V3_HASHES_NOTE}`, { runId, changes });
    throw new ResumeRefusedError("configuration-changed", changed, { runId, changes });
  }
  // A run with its answer only needs its terminal record: no limit stands in the way.
  if (committedFinalAnswer(state) !== undefined && !goesOn) return;
  // Asked before the pending batch runs: a session stopped at a limit it still exceeds
  // would only run the held-back tools and stop again. Raising a limit changes the
  // configuration, hence "then pass force".
  const overBudget = tally.ownExhausted(state.counters);
  if (overBudget !== undefined) {
    throw new ResumeRefusedError("token-budget", `cannot resume session ${runId}: ${overBudget}; raise the token budget, then pass force to resume it`, {
      runId,
      limit: { used: tally.spent(state.counters), max: spec.budget.maxTokens },
    });
  }
  // A follow-up starts a new count; a chat resting at an answer asks for one first.
  if (!goesOn && iterationCapReached(state, spec)) {
    const used = state.nextIteration - state.promptIteration;
    throw new ResumeRefusedError(
      "iteration-cap",
      `cannot resume session ${runId}: it has made ${used} of its ${spec.budget.maxIterations} model calls for its latest prompt; raise the iteration cap, then pass force to resume it`,
      { runId, limit: { used, max: spec.budget.maxIterations } },
    );
  }
}

/** `max_iterations` counts the model calls since the latest prompt: each follow-up gets its own. */
function iterationCapReached(state: RunState, spec: AgentSpec): boolean {
  return state.nextIteration - state.promptIteration >= spec.budget.maxIterations;
}

function firstRepeatedToolUseId(content: AssistantMessage["content"]): string | undefined {
  const seen = new Set<string>();
  for (const block of content) {
    if (isOtherBlock(block) || block.type !== "tool_use") continue;
    if (seen.has(block.id)) return block.id;
    seen.add(block.id);
  }
  return undefined;
}

/**
 * The final answer, when the conversation ends on one. On resume that is a crash that
 * took the terminal record with it: the run is complete, and calling the model again
 * would pay for the answer twice.
 */
function committedFinalAnswer(state: RunState): AssistantMessage | undefined {
  const last = state.messages.at(-1);
  return state.pending === undefined && !state.paused && last?.role === "assistant" ? last : undefined;
}

/**
 * A turn stopped at max_tokens whose last block is a tool_use was cut while that call was
 * being written: its input may be truncated (a path, a command), so it is never run, but it
 * is answered, with an error, so the conversation stays one the API accepts.
 */
function cutCall(turn: AssistantPayload): ToolUseBlock | undefined {
  const last = turn.message.content.at(-1);
  return turn.stop_reason === "max_tokens" && last !== undefined && !isOtherBlock(last) && last.type === "tool_use" ? last : undefined;
}

/** A final answer's text: its text blocks, joined. */
export function answerText(message: AssistantMessage): string {
  return message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

/** What driving one run works with, resolved once: the pieces below share it instead of closing over it. */
function withKeys<O extends RunOptions>(options: O): O & { keys: InstallationKeys } {
  return { ...options, keys: options.keys ?? installationKeys(options.store) };
}

/** The options a run is driven with: its keys, and for a foreign session (docs/security.md) why it is one. */
type DriveOptions = RunOptions & { keys: InstallationKeys; foreign?: string | undefined };

interface Drive {
  recorder: RunRecorder;
  options: DriveOptions;
  spec: AgentSpec;
  /** The spec's tools as the loop calls them. */
  tools: ToolSet;
  /** The system prompt as sent, memory index included. */
  system: string;
  signal: AbortSignal;
  events: AgentEvents;
  compaction: RunCompaction;
  /** The run's budget over its tree: its own tokens and those of the sessions below it. */
  tally: TreeTally;
}

async function drive(recorder: RunRecorder, options: DriveOptions, tally: TreeTally, system: string, followUp: string | undefined): Promise<RunOutcome> {
  const { spec } = options;
  const tools = toolSetOf(spec.tools);
  const signal = options.abortSignal ?? new AbortController().signal;
  const events = options.events ?? {};
  const summarizer = {
    provider: spec.provider,
    model: spec.model,
    system,
    tools: tools.specs(),
    maxOutputTokens: spec.budget.maxOutputTokens,
    retry: spec.retry,
    signal,
  };
  const compaction = new RunCompaction(compactionInEffect(spec), recorder, summarizer, events);
  const run: Drive = { recorder, options, spec, tools, system, signal, events, compaction, tally };
  const stopped = await stopForHeld(run, await finishPendingBatch(run));
  if (stopped !== undefined) return stopped;
  if (followUp !== undefined) {
    await journalPrompt(run, followUp);
  } else {
    const answered = committedFinalAnswer(recorder.state());
    if (answered !== undefined) {
      const finished = await atAnswer(run, answered);
      if (finished !== undefined) return finished;
    }
  }
  for (;;) {
    const finished = await iterate(run);
    if (finished !== undefined) return finished;
  }
}

/** One model call and what follows it: the outcome when the run finished, undefined to go on. */
async function iterate(run: Drive): Promise<RunOutcome | undefined> {
  const state = run.recorder.state();
  const stopped = await limitReached(run, state);
  if (stopped !== undefined) return stopped;
  const tooLong = await run.compaction.beforeCall();
  if (tooLong !== undefined) return finish(run, "error", { message: tooLong });
  const called = await callModel(run, state);
  if ("outcome" in called) return called.outcome;
  const assistant = await recordTurn(run, state.nextIteration, called.turn, called.times);
  return afterTurn(run, assistant);
}

/** Finishes the run before a model call it must not make: suspended, over budget or at the iteration cap. */
async function limitReached(run: Drive, state: RunState): Promise<RunOutcome | undefined> {
  const { options, spec } = run;
  if (options.suspendSignal?.aborted === true) return finish(run, "suspended", { message: "suspended by the operator" });
  run.tally.report(state.counters);
  const overBudget = run.tally.exhausted(state.counters);
  if (overBudget !== undefined) return finish(run, "budget", { message: overBudget });
  if (iterationCapReached(state, spec)) {
    return finish(run, "max_iterations", { message: `iteration cap reached: ${spec.budget.maxIterations} model calls` });
  }
  return undefined;
}

/** The model's next turn, or the outcome when the call failed or its turn could not be journaled. */
async function callModel(run: Drive, state: RunState): Promise<{ turn: ModelTurn; times: Timed } | { outcome: RunOutcome }> {
  const { signal, events } = run;
  events.modelCallStarted?.(state.nextIteration);
  const startedAt = new Date().toISOString();
  let turn;
  try {
    turn = await sendCompactingOnce(run);
  } catch (error) {
    signal.throwIfAborted();
    return { outcome: await finish(run, "error", { message: `model call failed: ${error instanceof Error ? error.message : String(error)}` }) };
  }
  signal.throwIfAborted();
  // Two tool calls under one id could never both be answered: journaled, the run could
  // not be folded again. Refused before it reaches the journal.
  const repeatedId = firstRepeatedToolUseId(turn.message.content);
  if (repeatedId === undefined) return { turn, times: { started_at: startedAt, ended_at: new Date().toISOString() } };
  return { outcome: await finish(run, "error", { message: `the model returned two tool calls with the id ${repeatedId}` }) };
}

/** The call as the conversation stands; refused as too long, it is compacted and sent once more. */
async function sendCompactingOnce(run: Drive): Promise<ModelTurn> {
  try {
    return await send(run);
  } catch (error) {
    if (!(error instanceof ModelCallError) || !error.tooLong) throw error;
    run.signal.throwIfAborted();
    const compacted = await run.compaction.afterTooLong();
    if (!compacted.resend) throw compacted.stop === undefined ? error : new Error(`${error.message}; ${compacted.stop}`);
    return send(run);
  }
}

async function send(run: Drive): Promise<ModelTurn> {
  const { spec, tools, signal, events } = run;
  const { messages } = run.recorder.state();
  const turn = await callWithRetries(
    spec.provider,
    {
      model: spec.model,
      system: run.system,
      messages,
      tools: tools.specs(),
      maxOutputTokens: spec.budget.maxOutputTokens,
      thinking: spec.thinking,
    },
    spec.retry,
    {
      signal,
      onRetry: (attempt, delayMs, error) => events.modelCallRetrying?.(attempt, delayMs, error),
      ...(events.textDelta === undefined ? {} : { onText: (text: string) => events.textDelta?.(text) }),
    },
  );
  run.compaction.answered(messages, turn.usage);
  return turn;
}

/** Journals the model's turn, before any of its tools runs. */
async function recordTurn(run: Drive, iteration: number, turn: ModelTurn, times: Timed): Promise<AssistantPayload> {
  const assistant = assistantPayload(iteration, turn, times);
  await run.recorder.append({ protocol: PROTOCOLS.assistant, assistant });
  run.tally.report(run.recorder.state().counters);
  run.events.assistantTurn?.(assistant);
  return assistant;
}

/** A model turn as its assistant record holds it. */
export function assistantPayload(iteration: number, turn: ModelTurn, times: Timed): AssistantPayload {
  return {
    iteration,
    message: turn.message,
    stop_reason: turn.stop_reason,
    in_tokens: turn.usage.in_tokens,
    out_tokens: turn.usage.out_tokens,
    ...(turn.usage.cache_read_tokens === undefined ? {} : { cache_read_tokens: turn.usage.cache_read_tokens }),
    ...(turn.usage.cache_create_tokens === undefined ? {} : { cache_create_tokens: turn.usage.cache_create_tokens }),
    ...(turn.model === undefined ? {} : { response_model: turn.model }),
    ...times,
  };
}

/** What a journaled turn leads to: its tools run, or at an answer the run finishes or the chat goes on. */
async function afterTurn(run: Drive, assistant: AssistantPayload): Promise<RunOutcome | undefined> {
  if (assistant.stop_reason === "pause_turn") return undefined;
  const cut = cutCall(assistant);
  if (cut !== undefined) await journalResult(run, cut, cutCallResult(cut));
  const uses = assistant.message.content.filter((block): block is ToolUseBlock => block.type === "tool_use" && block !== cut);
  if (uses.length === 0 && cut === undefined) {
    // The folded message: a continued paused turn answers with both halves.
    const answer = committedFinalAnswer(run.recorder.state()) ?? assistant.message;
    run.events.answer?.(answerText(answer));
    return atAnswer(run, answer);
  }
  const overBudget = run.tally.exhausted(run.recorder.state().counters);
  if (overBudget !== undefined) return finish(run, "budget", { message: overBudget });
  return stopForHeld(run, await runTools(run, uses));
}

/** After a batch: a call held by a child stops the run as the child stopped (a suspend or a park), undefined to go on. */
async function stopForHeld(run: Drive, held: BatchEnd): Promise<RunOutcome | undefined> {
  if (held.parked) return park(run, held.childWaiting);
  // The call stays unanswered: the conversation cannot go on until a resume answers it.
  if (held.suspended) return finish(run, "suspended", { message: "suspended by the operator" });
  return undefined;
}

/**
 * A batch the journal left half-answered is completed first: journaled results are
 * reused, only the unanswered tools run. Says whether calls of it still wait.
 */
async function finishPendingBatch(run: Drive): Promise<BatchEnd> {
  const { spec, tools, options, events } = run;
  const { pending, terminal } = run.recorder.state();
  if (pending === undefined) return { parked: false, suspended: false, childWaiting: [] };
  for (const result of pending.results) {
    const use = pending.toolUses.find((candidate) => candidate.id === result.tool_use_id) as ToolUseBlock;
    events.toolFinished?.(use, result, true);
  }
  const cut = cutCall(pending.turn);
  if (cut !== undefined && !pending.answered.has(cut.id)) await journalResult(run, cut, cutCallResult(cut));
  const unanswered = pending.toolUses.filter((use) => !pending.answered.has(use.id) && use !== cut);
  // Sequential tools run in the model's order, so only the first unanswered call that may
  // run can have been running when the run stopped; in parallel, any of them. A batch at
  // rest under a terminal record (it parked) had none running.
  const startable = terminal === undefined ? unanswered.filter((use) => !cannotHaveRun(pending, use.id)) : [];
  const mayHaveStarted = new Set((spec.parallelTools ? startable : startable.slice(0, 1)).map((use) => use.id));
  const rerun: ToolUseBlock[] = [];
  const interrupted: ToolUseBlock[] = [];
  for (const use of unanswered) {
    const again = !mayHaveStarted.has(use.id) || (await tools.mayRerun(use, options.askRerun ?? denyWithoutTerminal));
    (again ? rerun : interrupted).push(use);
  }
  // Calls that waited for a decision are no reruns: their decisions tell their story.
  events.pendingBatch?.({ rerun: rerun.filter((use) => !pending.approvals.has(use.id) && !pending.decisions.has(use.id)), interrupted });
  for (const use of interrupted) await journalResult(run, use, interruptedResult(use));
  // Taken up from rest, the batch says so before a call of it runs: were this resume cut
  // short, the next one must count its calls as maybe started, not at rest. Only a call
  // whose tool must not simply run again needs it: running a `rerun` call again is its policy.
  if (terminal !== undefined && rerun.some((use) => !cannotHaveRun(pending, use.id) && tools.crashPolicy(use.name) !== "rerun")) {
    await run.recorder.append({ protocol: PROTOCOLS.resumed, resumed: { resumed_at: new Date().toISOString() } });
  }
  // A foreign session's calls were chosen elsewhere: none runs here without a decision signed here.
  return runTools(run, rerun, options.foreign !== undefined);
}

/**
 * How a batch ended: `parked` when calls of it wait for a decision (its own, or a child's:
 * `childWaiting`), `suspended` when a child session its call ran was suspended. Either
 * leaves calls unanswered, so the run must stop.
 */
interface BatchEnd {
  parked: boolean;
  suspended: boolean;
  childWaiting: readonly WaitingCall[];
}

/** Runs a batch's calls, but those that wait for a person's decision. */
async function runTools(run: Drive, uses: readonly ToolUseBlock[], decideEvery = false): Promise<BatchEnd> {
  const { spec, tools, signal } = run;
  const approvals = { ...batchApprovals(run), decideEvery };
  const waiting = await parkCalls(approvals, uses);
  const held: CallHeld[] = [];
  const runOne = async (use: ToolUseBlock): Promise<void> => {
    // Once a child was suspended, the calls after it wait for the resume: they would only suspend too.
    if (held.some((call) => call.reason === "suspended")) return;
    if (waiting.has(use.id) || !(await decideCall(approvals, use))) return;
    signal.throwIfAborted();
    run.events.toolStarted?.(use);
    const startedAt = new Date().toISOString();
    let ran;
    try {
      // A call that needed a person is decided by now.
      ran = await tools.run(use, callContext(run, use), allowDecided);
    } catch (error) {
      if (!(error instanceof CallHeld)) throw error;
      signal.throwIfAborted();
      held.push(error);
      return;
    }
    // An abort is a crash: a result cut short by it must not enter the journal.
    signal.throwIfAborted();
    await journalResult(run, use, ran.result, ran.remote, { started_at: startedAt, ended_at: new Date().toISOString() });
  };
  if (spec.parallelTools) {
    // Every tool of the batch is waited for, even when one fails: none is left running
    // while the journal closes under it.
    const settled = await Promise.allSettled(uses.map(runOne));
    const failed = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected");
    if (failed !== undefined) throw failed.reason;
  } else {
    for (const use of uses) await runOne(use);
  }
  const childWaiting = held.flatMap((call) => call.waiting as WaitingCall[]);
  return {
    parked: waiting.size > 0 || held.some((call) => call.reason === "awaiting_approval"),
    suspended: held.some((call) => call.reason === "suspended"),
    childWaiting,
  };
}

/** What a tool call is given: the run's abort signal and the call's variables, and the run itself for a tool that starts a child session. */
function callContext(run: Drive, use: ToolUseBlock): ToolContext {
  const { recorder, options, signal } = run;
  const env = options.callEnvironment?.(recorder.runId, use);
  const { confirm, askUser, askRerun, decidedBy } = options;
  return {
    signal,
    env,
    cwd: options.toolCwd,
    run: {
      runId: recorder.runId,
      toolUseId: use.id,
      depth: recorder.state().meta.parent?.depth ?? 0,
      tenant: recorder.state().meta.tenant,
      store: options.store,
      suspend: options.suspendSignal,
      deciders: { confirm, askUser, askRerun, decidedBy },
      budget: run.tally.budgetBelow(() => recorder.state()),
      maxDepth: options.treeMaxDepth,
      childRuns: options.childRuns,
    },
  };
}

function batchApprovals(run: Drive): BatchApprovals {
  const { confirm, askUser, decidedBy } = run.options;
  return {
    recorder: run.recorder,
    tools: run.tools,
    events: run.events,
    deciders: { confirm, askUser, decidedBy },
    keys: run.options.keys,
    timeoutMs: run.spec.approvalTimeoutMs,
    journalResult: (use, result) => journalResult(run, use, result),
  };
}

/**
 * Calls wait for decisions, the run's own or its child sessions' (`childWaiting`): the run
 * stops awaiting approval, journaled once (a resume that decided nothing adds nothing).
 */
async function park(run: Drive, childWaiting: readonly WaitingCall[]): Promise<RunOutcome> {
  const state = run.recorder.state();
  const waiting = [...waitingCalls(state, run.options.keys.trusted), ...childWaiting];
  const message = waitingMessage(waiting);
  if (state.terminal?.reason !== "awaiting_approval") return finish(run, "awaiting_approval", { message, waiting });
  const outcome: RunOutcome = { runId: run.recorder.runId, reason: "awaiting_approval", checkpointed: true, counters: state.counters, message, waiting };
  run.events.runFinished?.(outcome);
  return outcome;
}

/** When a model call or a tool ran, journaled with its record (RFC 3339). */
export interface Timed {
  started_at: string;
  ended_at: string;
}

/** `times` only for a result a tool produced: a denied or interrupted call ran nothing. */
async function journalResult(run: Drive, use: ToolUseBlock, result: ToolResultBlock, remote = false, times?: Timed): Promise<void> {
  const toolResult = { tool_use_id: use.id, result, ...(remote ? { remote } : {}), ...times };
  await run.recorder.append({ protocol: PROTOCOLS.tool_result, tool_result: toolResult });
  run.events.toolFinished?.(use, result, false, toolResult);
}

async function journalPrompt(run: Drive, text: string): Promise<void> {
  await run.recorder.append({ protocol: PROTOCOLS.user, user: { message: { role: "user", content: [{ type: "text", text }] } } });
}

/**
 * At a final answer: a chat asks for the next prompt and goes on (undefined); otherwise,
 * or when the chat ends, the run finishes. Returns the outcome when it finished.
 */
async function atAnswer(run: Drive, answer: AssistantMessage): Promise<RunOutcome | undefined> {
  const { options, signal } = run;
  if (options.nextPrompt === undefined) return finish(run, "completed", { answer: answerText(answer) });
  if (options.suspendSignal?.aborted === true) return finish(run, "suspended", { message: "suspended by the operator" });
  let next = await options.nextPrompt();
  for (; next === COMPACT; next = await options.nextPrompt()) {
    signal.throwIfAborted();
    await run.compaction.byHand();
  }
  signal.throwIfAborted();
  if (next === undefined) return finish(run, "suspended", { message: CHAT_ENDED });
  await journalPrompt(run, next);
  return undefined;
}

/** Journals the terminal record and tells the caller how the run ended. */
async function finish(run: Drive, reason: TerminalReason, detail: Pick<RunOutcome, "answer" | "message" | "waiting"> = {}): Promise<RunOutcome> {
  const { recorder } = run;
  await recorder.append({
    protocol: PROTOCOLS.terminal,
    terminal: detail.message === undefined ? { reason } : { reason, message: detail.message },
  });
  run.tally.report(recorder.state().counters);
  const outcome: RunOutcome = { runId: recorder.runId, reason, checkpointed: recorder.checkpointed, counters: recorder.state().counters, ...detail };
  run.events.runFinished?.(outcome);
  return outcome;
}
