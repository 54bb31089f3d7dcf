// What a person at a terminal sees while a run works: a spinner with the elapsed time
// during a model call and during tools, the model's text as it streams, the tokens of each
// turn and a one-line summary at the end. Only on a terminal: a pipe, NO_COLOR, TERM=dumb
// and CI get the plain narration alone.
import yoctoSpinner from "yocto-spinner";
import type { AgentEvents } from "../agent/events.js";
import type { Style } from "./render.js";
import { counted } from "./counted.js";

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
  // handleSignals off: Ctrl-C belongs to the run (suspend, then abort), not to the spinner.
  const spinner = yoctoSpinner({ stream: stderr, handleSignals: false });
  const started = now();
  let busySince = 0;
  let busyLabel = "";
  let ticker: NodeJS.Timeout | undefined;
  const running = new Map<string, string>();
  let midLine = false;
  let lastTurnHadText = false;
  let lastTurnHadTools = false;

  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`;
  const busy = (label: string) => {
    busyLabel = label;
    busySince = now();
    spinner.start(`${label} ${style.dim("0.0s")}`);
    ticker ??= setInterval(() => (spinner.text = `${busyLabel} ${style.dim(seconds(now() - busySince))}`), 100);
    ticker.unref();
  };
  const idle = () => {
    clearInterval(ticker);
    ticker = undefined;
    spinner.stop();
  };
  const endLine = () => {
    if (midLine) stderr.write("\n");
    midLine = false;
  };

  const events: AgentEvents = {
    ...inner,
    modelCallStarted: (iteration) => {
      inner.modelCallStarted?.(iteration);
      lastTurnHadText = false;
      busy(`model call ${iteration + 1}`);
    },
    modelCallRetrying: (attempt, delayMs, error) => {
      idle();
      endLine();
      inner.modelCallRetrying?.(attempt, delayMs, error);
      busy(`model call, retry ${attempt}`);
    },
    textDelta: (text) => {
      inner.textDelta?.(text);
      if (text === "") return;
      idle();
      stderr.write(text);
      midLine = !text.endsWith("\n");
      lastTurnHadText = true;
    },
    assistantTurn: (turn) => {
      idle();
      endLine();
      lastTurnHadTools = turn.message.content.some((block) => block.type === "tool_use");
      stderr.write(`${style.dim(`  ${turn.in_tokens} tokens in, ${turn.out_tokens} out`)}\n`);
      inner.assistantTurn?.(turn);
    },
    toolStarted: (use) => {
      inner.toolStarted?.(use);
      running.set(use.id, use.name);
      busy(`running ${[...running.values()].join(", ")}`);
    },
    toolFinished: (use, result, reused) => {
      running.delete(use.id);
      idle();
      inner.toolFinished?.(use, result, reused);
      if (running.size > 0) busy(`running ${[...running.values()].join(", ")}`);
    },
    runFinished: (outcome) => {
      idle();
      endLine();
      inner.runFinished?.(outcome);
      const { modelCalls, toolCalls, inTokens, outTokens } = outcome.counters;
      const summary = `${outcome.reason}: ${counted(modelCalls, "model call")}, ${counted(toolCalls, "tool")}, ${inTokens + outTokens} tokens, ${seconds(now() - started)}`;
      stderr.write(`${style.dim(outcome.checkpointed ? `${summary}, session ${outcome.runId}` : summary)}\n`);
    },
  };
  return { events, answerShown: () => lastTurnHadText && !lastTurnHadTools };
}
