// The test entry's crash hook (crashing-cli.ts): FISK_AI_TEST_CRASH_AT=<point>:<n> makes
// the process SIGKILL itself at the n-th occurrence of a point, so durability tests can
// kill a run at an exact step.
// Points: before-model (a model call is about to start), after-assistant (a model turn
// is journaled), after-tool (a tool result is journaled), after-request (an approval
// request is journaled), after-decision (a run journaled a decision it asked for or a
// timeout made), after-decide-command (a session approve/deny/answer journaled its
// decisions, before its terminal record), before-summary (a compaction's summarizing call
// is about to start), after-summary (it returned, its record not yet journaled),
// after-compaction (a compaction record is journaled), after-move-mark (session mv
// journaled its moved record, before the copy), after-move-copy (the other store holds it),
// after-move-clear (a move back removed the stale, moved-away copy from the other store).
import type { AgentEvents } from "../../src/agent/events.js";

type CrashPoint =
  | "before-model"
  | "after-assistant"
  | "after-tool"
  | "after-request"
  | "after-decision"
  | "after-decide-command"
  | "before-summary"
  | "after-summary"
  | "after-compaction";

const SPEC =
  /^(before-model|after-assistant|after-tool|after-request|after-decision|after-decide-command|before-summary|after-summary|after-compaction):(\d+)$/;

/** The hook `session mv` calls after each durable step. */
export function moveCrashPoint(spec: string | undefined): ((step: "cleared" | "marked" | "copied") => void) | undefined {
  const match = spec === undefined ? null : /^after-move-(clear|mark|copy):(\d+)$/.exec(spec);
  if (match === null) return undefined;
  const at = ({ clear: "cleared", mark: "marked", copy: "copied" } as const)[match[1] as "clear" | "mark" | "copy"];
  let remaining = Number(match[2]);
  return (step) => {
    if (step === at && --remaining === 0) process.kill(process.pid, "SIGKILL");
  };
}

/** The hook a decision command calls between its decisions and its terminal record. */
export function decideCrashPoint(spec: string | undefined): (() => void) | undefined {
  const match = spec === undefined ? null : SPEC.exec(spec);
  if (match === null || match[1] !== "after-decide-command") return undefined;
  let remaining = Number(match[2]);
  return () => {
    if (--remaining === 0) process.kill(process.pid, "SIGKILL");
  };
}

export function withCrashPoint(events: AgentEvents, spec: string | undefined): AgentEvents {
  const match = spec === undefined ? null : SPEC.exec(spec);
  if (match === null) return events;
  const point = match[1] as CrashPoint;
  let remaining = Number(match[2]);
  const reached = (at: CrashPoint) => {
    if (at === point && --remaining === 0) process.kill(process.pid, "SIGKILL");
  };
  return {
    ...events,
    modelCallStarted: (iteration) => {
      events.modelCallStarted?.(iteration);
      reached("before-model");
    },
    assistantTurn: (turn) => {
      events.assistantTurn?.(turn);
      reached("after-assistant");
    },
    approvalRequested: (request) => {
      events.approvalRequested?.(request);
      reached("after-request");
    },
    approvalDecided: (decision) => {
      events.approvalDecided?.(decision);
      reached("after-decision");
    },
    toolFinished: (use, result, reused) => {
      events.toolFinished?.(use, result, reused);
      if (!reused) reached("after-tool");
    },
    compactionStarted: (info) => {
      events.compactionStarted?.(info);
      reached("before-summary");
    },
    compactionSummarized: (info) => {
      events.compactionSummarized?.(info);
      reached("after-summary");
    },
    compaction: (record) => {
      events.compaction?.(record);
      reached("after-compaction");
    },
  };
}
