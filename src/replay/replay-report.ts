// What a replay reports for one session (docs/replay.md, the report): `same`, `departs` at
// a turn with both sides of it, or `refused` with why; the text that differs, beside the
// recording and not judged (a judge, when given, says whether the final answers agree); and
// the replay's tokens, cost and latency beside the recording's.

/** A call as the report shows it. */
export interface ShownCall {
  /** The tool called. */
  name: string;
  /** Its arguments, as the model wrote them. */
  input: Record<string, unknown>;
}

/** What one side did at a turn: its text and its calls. */
export interface TurnSide {
  /** The turn's text blocks, joined. */
  text: string;
  /** The turn's tool calls, in the model's order. */
  calls: ShownCall[];
}

/**
 * How the new agent departs from the recording at a turn:
 * - `call-not-recorded`: a call the recorded turn does not have (never executed);
 * - `recorded-call-not-made`: a recorded call of the turn the new agent did not make;
 * - `answer-at-another-turn`: the new agent answered where the recording called tools, or the other way round;
 * - `input-refused`: the new agent's tool (or its absence) refuses the recorded input of a matching call;
 * - `stopped`: the new agent's run stopped before the recording's answer (its budget, its iteration cap, a failed model call).
 */
export type DepartureKind = "call-not-recorded" | "recorded-call-not-made" | "answer-at-another-turn" | "input-refused" | "stopped";

/** One departure. */
export interface Departure {
  /** The replay's turn, counted from 1 over the session as the recording's are: the same number while the two agree. */
  turn: number;
  /** What departs (DepartureKind). */
  kind: DepartureKind;
  /** One line saying what departs. */
  detail: string;
  /** The recording's turn there (empty when the recording has none). */
  recorded: TurnSide;
  /** The new agent's turn there. */
  replayed: TurnSide;
}

/** Tokens, cost and latency of one side's model calls. */
export interface ReplayUsage {
  /** The model the side's calls went to. */
  model: string;
  /** The model calls made. */
  modelCalls: number;
  /** Their input tokens, the cached ones apart. */
  inTokens: number;
  /** Their output tokens. */
  outTokens: number;
  /** Input tokens read from the prompt cache. */
  cacheReadTokens: number;
  /** Input tokens written to the prompt cache. */
  cacheCreateTokens: number;
  /** In US dollars; undefined when the model has no price. */
  cost: number | undefined;
  /** The calls' time summed, in milliseconds (the recording's from the times its records kept). */
  latencyMs: number;
}

/** The first turn whose text differs between the two sides, reported and not judged. */
export interface TextDifference {
  /** The turn, counted as a departure's is. */
  turn: number;
  /** The recording's text there. */
  recorded: string;
  /** The new agent's text there. */
  replayed: string;
}

/** A judge's verdict on one session's final answer. */
export interface JudgeVerdict {
  /** `pass`: the new answer satisfies the request as the recorded one does; `fail`: it does not; `unclear`: the judge said neither. */
  verdict: "pass" | "fail" | "unclear";
  /** The judge's reason, in its words. */
  reason: string;
  /** The judge's calls, priced like the replay's. */
  usage: ReplayUsage;
}

/** What `fork` made of a departing replay: the new session, or why there is none. */
export interface ReplayFork {
  /** The new session's id: the recording up to the departing turn, then the new agent's turn there. */
  runId?: string;
  /** Why no fork was written (a name the store holds already, a store that refused the write). */
  refusal?: string;
}

/** The report on one replayed session. */
export interface ReplayReport {
  /** The replayed session. */
  runId: string;
  /** `same`: no departure; `departs`: see `turn` and `departures`; `refused`: nothing was replayed, see `refusal`. */
  result: "same" | "departs" | "refused";
  /** The turn of the first departure. */
  turn?: number;
  /** In the order met: one unless the replay kept going. */
  departures: Departure[];
  /** Why the session was not replayed: a journal that does not fold, a session still running. */
  refusal?: string;
  /** How the replay ended, in a line. */
  end: string;
  /** The first turn whose text differs, when one does. */
  textDiffers?: TextDifference;
  /** With a judge: its verdict on the new final answer, beside the exact comparison (which it never changes). */
  judge?: JudgeVerdict;
  /** With the `fork` option, for a session that departs: the session forked at the departure. */
  fork?: ReplayFork;
  /** The recording's turns and those the new agent took. */
  turns: {
    /** The model turns the recording has. */
    recorded: number;
    /** The model turns the new agent took. */
    replayed: number;
  };
  /** The recording's agent calls (compactions' summarizing calls apart), from its ledger. */
  recorded: ReplayUsage;
  /** The replay's own model calls. */
  replayed: ReplayUsage;
}
