// replaySession (docs/replay.md): puts a new agent in front of a recorded session. The real
// loop runs in memory with the new agent's provider; its tools answer each call from the
// recording, the recorded follow-ups are given where the recording took them, and the
// recording's compactions are applied to what the model is sent. A turn is compared with the
// recorded turn of the same number as it comes back from the model, before any of its calls
// is answered: a departure ends the replay there (a model call the loop sees fail), unless
// the replay keeps going. Nothing is written anywhere: the loop has no store.
import { ConfigError } from "../agent/agent-errors.js";
import { AGENT_DEFAULTS } from "../agent/defaults.js";
import { assistantPayload } from "../agent/agent-loop.js";
import { runAgent, type RunAgentOptions } from "../agent/run-agent.js";
import { RESUME_REMINDER } from "../agent/system-prompt.js";
import { ModelCallError, type ModelProvider, type ModelRequest, type ModelTurn } from "../llm/model-provider.js";
import type { PriceTable } from "../ledger/prices.js";
import { RunStateError } from "../runstate/errors.js";
import { isOtherBlock, type JournalRecord, type ToolUseBlock } from "../runstate/records/records.js";
import type { RunStatus, Store } from "../runstate/store/store.js";
import { matchTurn, type RelaxedArguments } from "./call-matching.js";
import { CallIds, recordedView } from "./recorded-view.js";
import { messageText, readRecording, type RecordedTurn, type Recording } from "./recording.js";
import type { Departure, DepartureKind, JudgeVerdict, ReplayReport, ReplayUsage, TextDifference, TurnSide } from "./replay-report.js";
import { judgeAnswers, type ReplayJudge } from "./replay-judge.js";
import { writeReplayFork, type ForkPoint, type ReplayForkOptions } from "./replay-fork.js";
import { inputRefusal, replayTools, type RecordedAnswers } from "./replay-tools.js";
import { addCall, noUsage, recordedUsage } from "./replay-usage.js";

/** The agent a recording is replayed against: what an agent.yaml gives (loadAgent's `options`), or a program's own. */
export type ReplayAgent = Pick<
  RunAgentOptions,
  "provider" | "model" | "system" | "tools" | "parallelTools" | "budget" | "thinking" | "retry" | "memory" | "configPath"
>;

/** The recorded session: its records, or a session of a store (read without locking it). */
export type ReplayJournal =
  | readonly JournalRecord[]
  | {
      /** The store the session is in. */
      store: Store;
      /** The session's id. */
      runId: string;
    };

/** How a replay compares, what it prices with, and its judge. */
export interface ReplayOptions {
  /** Per tool name, argument paths left out of the comparison (a timestamp): see RelaxedArguments. */
  relax?: RelaxedArguments;
  /** Go on past a departure with the recorded answers that can still be given, marking each departure met. */
  keepGoing?: boolean;
  /** Prices over the shipped table, as agent.yaml's `prices:`. */
  prices?: PriceTable;
  /** Aborting it stops the replay: the report says where. */
  signal?: AbortSignal;
  /** A model asked whether the new final answer satisfies the request as the recorded one does (the report's `judge`). */
  judge?: ReplayJudge | undefined;
  /** Fork a session that departs: the recording up to the departing turn, then the new agent's turn there (the report's `fork`). */
  fork?: ReplayForkOptions | undefined;
}

/** Thrown from the model seam to end the loop at a departure or at the recording's end. */
class ReplayStop extends ModelCallError {
  constructor() {
    super("the replay stops here", { retryable: false });
  }
}

/** Replays one recorded session against `agent`; resolves with the report, never rejects for what the session holds. */
export async function replaySession(journal: ReplayJournal, agent: ReplayAgent, options: ReplayOptions = {}): Promise<ReplayReport> {
  const runId = Array.isArray(journal) ? recordedRunId(journal as readonly JournalRecord[]) : (journal as { runId: string }).runId;
  let recording: Recording;
  try {
    const read = await readJournal(journal);
    if (read.status === "running") return refused(read.runId, agent, `session ${read.runId} is still running: replay it once it has stopped`);
    recording = readRecording(read.records);
  } catch (error) {
    if (error instanceof RunStateError) {
      return refused(runId, agent, error.code === "ERR_NOT_FOUND" ? error.message : `the journal cannot be replayed: ${error.message}`);
    }
    throw error;
  }
  try {
    const replay = new Replay(recording, agent, options);
    const report = await replay.run();
    const point = replay.forkPoint;
    if (options.fork === undefined || report.result !== "departs") return report;
    const fork =
      point === undefined
        ? { refusal: "the recording has no turn where the replay stopped: nothing to fork at" }
        : await writeReplayFork(recording, Array.isArray(journal) ? undefined : (journal as { store: Store }).store, point, agent, options.fork);
    return { ...report, fork };
  } catch (error) {
    // Tools of one name twice, an empty recorded prompt: what runAgent refuses to start.
    if (error instanceof ConfigError) return refused(recording.runId, agent, error.message);
    throw error;
  }
}

/** The run id the first record names, if it is a meta record. */
function recordedRunId(records: readonly JournalRecord[]): string {
  const first = records[0] as { meta?: { run_id?: unknown } } | undefined;
  return typeof first?.meta?.run_id === "string" ? first.meta.run_id : "";
}

async function readJournal(journal: ReplayJournal): Promise<{ runId: string; status: RunStatus | undefined; records: readonly JournalRecord[] }> {
  if (Array.isArray(journal))
    return { runId: recordedRunId(journal as readonly JournalRecord[]), status: undefined, records: journal as readonly JournalRecord[] };
  const { store, runId } = journal as { store: Store; runId: string };
  const { status } = await store.summarize(runId, { digest: false });
  if (status === "running") return { runId, status, records: [] };
  const records: JournalRecord[] = [];
  for await (const record of store.readRecords(runId)) records.push(record);
  return { runId, status, records };
}

function refused(runId: string, agent: ReplayAgent, refusal: string): ReplayReport {
  return {
    runId,
    result: "refused",
    departures: [],
    refusal,
    end: "not replayed",
    turns: { recorded: 0, replayed: 0 },
    recorded: noUsage(""),
    replayed: noUsage(agent.model),
  };
}

/** One replay: the cursor into the recording, and what has been found. */
class Replay {
  readonly #recording: Recording;
  readonly #agent: ReplayAgent;
  readonly #options: ReplayOptions;
  readonly #answers: RecordedAnswers = new Map();
  readonly #ids = new CallIds();
  readonly #departures: Departure[] = [];
  readonly #usage: ReplayUsage;
  #segment = 0;
  #index = 0;
  #turns = 0;
  #end: string | undefined;
  #textDiffers: TextDifference | undefined;
  /** The new agent's answer to each prompt it answered, by segment. */
  readonly #answered: string[] = [];
  /** The new agent's latest turn and when it was asked for and came back (epoch ms). */
  #latest: { iteration: number; turn: ModelTurn; started: number; ended: number } | undefined;
  /** Where the first departure was met, for a fork. */
  forkPoint: ForkPoint | undefined;

  constructor(recording: Recording, agent: ReplayAgent, options: ReplayOptions) {
    this.#recording = recording;
    this.#agent = agent;
    this.#options = options;
    this.#usage = noUsage(agent.model);
  }

  async run(): Promise<ReplayReport> {
    const tools = replayTools(this.#agent.tools ?? [], this.#answers);
    const { model, system, parallelTools, budget, thinking, retry, memory } = this.#agent;
    // Only what the new agent is: a loaded agent.yaml's options carry more (a record version, its path).
    const outcome = await runAgent({
      ...{ model, system, parallelTools, budget, thinking, retry, memory },
      provider: this.#provider(),
      tools,
      prompt: this.#recording.meta.prompt,
      // No compaction of its own: the recording's are applied to what the model is sent.
      compaction: { auto: false },
      nextPrompt: async () => this.#recording.followUps[this.#segment - 1],
      abortSignal: this.#options.signal,
    }).catch((error: unknown) => {
      if (this.#options.signal?.aborted === true) return undefined;
      throw error;
    });
    if (this.#end === undefined) {
      // The loop ended on its own: at the last follow-up's answer, or stopped short of it.
      const { segments } = this.#recording;
      const done = this.#segment >= segments.length;
      // A recording that stopped short of an answer (its budget, its cap) and a new agent stopped at the same turn agree.
      const stoppedAlike = this.#segment === segments.length - 1 && this.#index === segments[this.#segment]?.length;
      if (outcome === undefined) this.#end = `aborted at turn ${this.#turns}`;
      else if (done) this.#end = "the new agent answered where the recording did";
      else if (stoppedAlike) this.#end = this.#recordingEnd();
      else {
        this.#depart("stopped", `the new agent's run stopped (${outcome.reason}${outcome.message === undefined ? "" : `: ${outcome.message}`})`, undefined, []);
        this.#end = `stopped at turn ${this.#turns}`;
      }
    }
    const first = this.#departures[0];
    const recordedTurns = this.#recording.segments.flat().length;
    const judge = await this.#judge();
    return {
      runId: this.#recording.runId,
      result: first === undefined ? "same" : "departs",
      ...(first === undefined ? {} : { turn: first.turn }),
      departures: this.#departures,
      end: this.#end,
      ...(this.#textDiffers === undefined ? {} : { textDiffers: this.#textDiffers }),
      ...(judge === undefined ? {} : { judge }),
      turns: { recorded: recordedTurns, replayed: this.#turns },
      recorded: recordedUsage(this.#recording, this.#options.prices ?? {}),
      replayed: this.#usage,
    };
  }

  /** The judge's verdict on the final answers, when there is a judge and both sides answered the last prompt. */
  async #judge(): Promise<JudgeVerdict | undefined> {
    const { judge, prices, signal } = this.#options;
    const { segments, meta, followUps } = this.#recording;
    const last = segments.length - 1;
    const recorded = segments[last]?.find((turn) => turn.answers)?.text;
    const replayed = this.#answered[last];
    if (judge === undefined || recorded === undefined || replayed === undefined) return undefined;
    const request = [meta.prompt, ...followUps.map((followUp) => `Then: ${followUp}`)].join("\n\n");
    return judgeAnswers(judge, { request, recorded, replayed }, prices ?? {}, signal);
  }

  /** The new agent's provider, behind the comparison. */
  #provider(): ModelProvider {
    const inner = this.#agent.provider;
    return {
      name: inner.name,
      complete: async (request: ModelRequest, signal: AbortSignal, onText?: (text: string) => void): Promise<ModelTurn> => {
        const recorded = this.#recording.segments[this.#segment]?.[this.#index];
        if (recorded === undefined) {
          this.#end = this.#recordingEnd();
          throw new ReplayStop();
        }
        const sent = {
          ...request,
          system: this.#systemAsRecorded(request.system, recorded),
          messages: recordedView(request.messages, recorded.view, this.#ids),
        };
        const [started, startedAt] = [performance.now(), Date.now()];
        const turn = await inner.complete(sent, signal, onText);
        const ms = performance.now() - started;
        addCall(this.#usage, turn.usage, ms, this.#options.prices ?? {});
        this.#turns++;
        this.#latest = { iteration: recorded.iteration, turn, started: startedAt, ended: startedAt + ms };
        if (!this.#compare(recorded, turn)) throw new ReplayStop();
        return turn;
      },
    };
  }

  /** The new system prompt, with the resume reminder where the recording's process had resumed the session (system-prompt.ts). */
  #systemAsRecorded(system: string, recorded: RecordedTurn): string {
    const configured = this.#agent.system ?? AGENT_DEFAULTS.system;
    if (!recorded.resumed || !system.startsWith(configured)) return system;
    return `${configured}\n\n${RESUME_REMINDER}${system.slice(configured.length)}`;
  }

  /** Why the recording has no turn to compare the next one with. */
  #recordingEnd(): string {
    const terminal = this.#recording.terminal;
    const how = terminal === undefined ? "without a terminal record" : `${terminal.reason}${terminal.message === undefined ? "" : `: ${terminal.message}`}`;
    return `the recording ends after turn ${this.#turns} (${how})`;
  }

  /** Compares a turn with the recorded one and readies its answers; false when the replay stops here. */
  #compare(recorded: RecordedTurn, turn: ModelTurn): boolean {
    const made = turn.message.content.filter((block): block is ToolUseBlock => !isOtherBlock(block) && block.type === "tool_use");
    const text = messageText(turn.message.content);
    if (this.#textDiffers === undefined && text !== recorded.text) this.#textDiffers = { turn: this.#turns, recorded: recorded.text, replayed: text };
    const answered = made.length === 0;
    if (answered !== recorded.answers) return this.#otherAnswerTurn(recorded, turn, made);
    if (answered) {
      this.#answered[this.#segment] = text;
      // The next follow-up, if any, opens the next segment.
      this.#segment++;
      this.#index = 0;
      return true;
    }
    this.#index++;
    const match = matchTurn(recorded.calls, made, this.#options.relax);
    this.#answers.clear();
    this.#ids.nextTurn();
    let departed = false;
    for (const { made: use, recorded: call } of match.pairs) {
      const refusal = inputRefusal(this.#agent.tools ?? [], call.name, call.input);
      if (refusal !== undefined) {
        departed = this.#depart("input-refused", refusal, recorded, made, text);
        continue;
      }
      if (call.result === undefined) {
        this.#end = `${this.#recordingEnd()}: its call ${call.id} of ${call.name} has no result`;
        return false;
      }
      this.#ids.pair(use.id, call.id, call.resultSeq as number);
      this.#answers.set(use.id, { ...call.result, tool_use_id: use.id });
    }
    for (const use of match.unexpected)
      departed = this.#depart("call-not-recorded", `${use.name} ${JSON.stringify(use.input)} is not in the recorded turn`, recorded, made, text);
    for (const call of match.missing)
      departed = this.#depart("recorded-call-not-made", `the recording called ${call.name} ${JSON.stringify(call.input)} here`, recorded, made, text);
    return !departed || this.#keepsGoing();
  }

  /** The new agent answered where the recording called tools, or called tools where it answered. */
  #otherAnswerTurn(recorded: RecordedTurn, turn: ModelTurn, made: ToolUseBlock[]): boolean {
    const text = messageText(turn.message.content);
    const segment = this.#recording.segments[this.#segment] as RecordedTurn[];
    const answerTurn = segment.find((candidate) => candidate.answers)?.number;
    const recordedAnswer = answerTurn === undefined ? "the recording never answered this prompt" : `the recording answered at turn ${answerTurn}`;
    if (made.length > 0) {
      this.#depart("answer-at-another-turn", `the new agent called tools at turn ${this.#turns}, where the recording answered`, recorded, made, text);
      // Past the recording's answer there is nothing recorded to answer with.
      this.#end = `departed at turn ${this.#turns}`;
      return false;
    }
    this.#depart("answer-at-another-turn", `the new agent answered at turn ${this.#turns}; ${recordedAnswer}`, recorded, made, text);
    if (!this.#keepsGoing()) return false;
    this.#segment++;
    this.#index = 0;
    return true;
  }

  #keepsGoing(): boolean {
    if (this.#options.keepGoing === true) return true;
    this.#end = `departed at turn ${this.#turns}`;
    return false;
  }

  /** Notes a departure at the current turn; true, for the caller to remember one was met. */
  #depart(kind: DepartureKind, detail: string, recorded: RecordedTurn | undefined, made: readonly ToolUseBlock[], text = ""): true {
    const departure = {
      turn: this.#turns,
      kind,
      detail,
      recorded: sideOf(recorded),
      replayed: { text, calls: made.map(({ name, input }) => ({ name, input })) },
    };
    this.#departures.push(departure);
    if (this.forkPoint === undefined) {
      // Without a recorded turn here, the run stopped before its next one: the fork stops there too.
      const next = recorded ?? this.#recording.segments[this.#segment]?.[this.#index];
      const latest = recorded === undefined ? undefined : this.#latest;
      const times = latest && { started_at: new Date(latest.started).toISOString(), ended_at: new Date(latest.ended).toISOString() };
      const turn = latest && times && assistantPayload(latest.iteration, latest.turn, times);
      if (next !== undefined) this.forkPoint = { departure, beforeSeq: next.seq, turn };
    }
    return true;
  }
}

function sideOf(turn: RecordedTurn | undefined): TurnSide {
  return turn === undefined ? { text: "", calls: [] } : { text: turn.text, calls: turn.calls.map(({ name, input }) => ({ name, input })) };
}
