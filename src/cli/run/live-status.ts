// What a person at a terminal sees while a run works: a spinner with the elapsed time
// during a model call and during tools, the model's text as it streams, the tokens of each
// turn and a one-line summary at the end. Only on a terminal: a pipe, NO_COLOR, TERM=dumb
// and CI get the plain narration alone.
import yoctoSpinner from "yocto-spinner";
import type { AgentEvents, RunOutcome } from "../../agent/events.js";
import type { Style } from "./render.js";
import { counted } from "../../transcript/counted.js";

export function wantsLiveStatus(stderr: NodeJS.WriteStream, env: NodeJS.ProcessEnv): boolean {
  return stderr.isTTY === true && (env.NO_COLOR ?? "") === "" && env.TERM !== "dumb" && env.CI === undefined;
}

export interface LiveStatus {
  events: AgentEvents;
  /** Whether the final answer's text was streamed to the terminal already. */
  answerShown(): boolean;
}

/** Wraps `inner` (the narration), keeping the spinner out of its way. */
export function liveStatus(inner: AgentEvents, stderr: NodeJS.WriteStream, style: Style, now = Date.now): LiveStatus {
  const started = now();
  const { busy, idle } = busyIndicator(stderr, style, now);
  const text = streamedText(stderr);
  const running = new Map<string, string>();
  const busyRunning = () => busy(`running ${[...running.values()].join(", ")}`);
  let lastTurnHadText = false;
  let lastTurnHadTools = false;

  const events: AgentEvents = {
    ...inner,
    modelCallStarted: (iteration) => {
      inner.modelCallStarted?.(iteration);
      lastTurnHadText = false;
      busy(`model call ${iteration + 1}`);
    },
    modelCallRetrying: (attempt, delayMs, error) => {
      idle();
      text.endLine();
      inner.modelCallRetrying?.(attempt, delayMs, error);
      busy(`model call, retry ${attempt}`);
    },
    textDelta: (delta) => {
      inner.textDelta?.(delta);
      if (delta === "") return;
      idle();
      text.write(delta);
      lastTurnHadText = true;
    },
    assistantTurn: (turn) => {
      idle();
      text.endLine();
      lastTurnHadTools = turn.message.content.some((block) => block.type === "tool_use");
      stderr.write(`${style.dim(`  ${turn.in_tokens} tokens in, ${turn.out_tokens} out`)}\n`);
      inner.assistantTurn?.(turn);
    },
    toolStarted: (use) => {
      inner.toolStarted?.(use);
      running.set(use.id, use.name);
      busyRunning();
    },
    toolFinished: (use, result, reused) => {
      running.delete(use.id);
      idle();
      inner.toolFinished?.(use, result, reused);
      if (running.size > 0) busyRunning();
    },
    runFinished: (outcome) => {
      idle();
      text.endLine();
      inner.runFinished?.(outcome);
      stderr.write(`${style.dim(runSummary(outcome, now() - started))}\n`);
    },
  };
  return { events, answerShown: () => lastTurnHadText && !lastTurnHadTools };
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

/** The spinner with the time spent on what it names, ticking while the run waits. */
function busyIndicator(stderr: NodeJS.WriteStream, style: Style, now: () => number): { busy(label: string): void; idle(): void } {
  // handleSignals off: Ctrl-C belongs to the run (suspend, then abort), not to the spinner.
  const spinner = yoctoSpinner({ stream: stderr, handleSignals: false });
  let busySince = 0;
  let busyLabel = "";
  let ticker: NodeJS.Timeout | undefined;
  return {
    busy: (label) => {
      busyLabel = label;
      busySince = now();
      spinner.start(`${label} ${style.dim("0.0s")}`);
      ticker ??= setInterval(() => (spinner.text = `${busyLabel} ${style.dim(seconds(now() - busySince))}`), 100);
      ticker.unref();
    },
    idle: () => {
      clearInterval(ticker);
      ticker = undefined;
      spinner.stop();
    },
  };
}

/** The model's streamed text, and the newline it lacks before anything else is written. */
function streamedText(stderr: NodeJS.WriteStream): { write(text: string): void; endLine(): void } {
  let midLine = false;
  return {
    write: (text) => {
      stderr.write(text);
      midLine = !text.endsWith("\n");
    },
    endLine: () => {
      if (midLine) stderr.write("\n");
      midLine = false;
    },
  };
}

/** The one line at the end of a run: how it ended, its calls and tokens, its time and, when checkpointed, its session. */
function runSummary(outcome: RunOutcome, elapsedMs: number): string {
  const { modelCalls, toolCalls, inTokens, outTokens } = outcome.counters;
  const summary = `${outcome.reason}: ${counted(modelCalls, "model call")}, ${counted(toolCalls, "tool")}, ${inTokens + outTokens} tokens, ${seconds(elapsedMs)}`;
  return outcome.checkpointed ? `${summary}, session ${outcome.runId}` : summary;
}
