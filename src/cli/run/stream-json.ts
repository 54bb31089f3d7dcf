// `run --output-format stream-json`: every event of the run as one JSON object a line on
// stdout, so a script or a web page can follow it live. The field names are a contract
// (documented in docs/cli-and-sessions.md): add fields, never rename or remove them.
import type { AgentEvents, RunOutcome } from "../../agent/events.js";
import type { AssistantPayload } from "../../runstate/records/records.js";
import { compactionJson, countersJson } from "../text/session-json.js";

export function streamJsonEvents(stdout: NodeJS.WritableStream): AgentEvents {
  const emit = (event: Record<string, unknown>) => stdout.write(`${JSON.stringify(event)}\n`);
  return {
    runStarted: ({ runId, resumed, checkpointed }) => emit({ type: "session_started", session_id: runId, resumed, checkpointed }),
    modelCallStarted: (iteration) => emit({ type: "model_call_started", iteration }),
    modelCallRetrying: (attempt, delayMs, error) => emit({ type: "model_call_retrying", attempt, delay_ms: delayMs, error: error.message }),
    textDelta: (text) => emit({ type: "text_delta", text }),
    assistantTurn: (turn) => emit(turnEndJson(turn)),
    toolStarted: (use) => emit({ type: "tool_call", id: use.id, name: use.name, input: use.input }),
    // A refused call never starts, but it was the model's call all the same: its tool_result says why.
    callRefused: (use) => emit({ type: "tool_call", id: use.id, name: use.name, input: use.input, refused: true }),
    toolFinished: (use, result, reused) =>
      emit({
        type: "tool_result",
        id: use.id,
        name: use.name,
        content: result.content,
        is_error: result.is_error === true,
        reused,
      }),
    compaction: ({ seq, compaction }) => emit({ type: "compaction", ...compactionJson(seq, compaction) }),
    approvalRequested: (request) =>
      emit({
        type: "approval_request",
        id: request.tool_use_id,
        name: request.name,
        input: request.input,
        kind: request.kind,
        requested_at: request.requested_at,
      }),
    approvalDecided: (decision) =>
      emit({
        type: "approval_decision",
        id: decision.tool_use_id,
        decision: decision.decision,
        ...(decision.text === undefined ? {} : { text: decision.text }),
        decided_by: decision.decided_by,
        decided_at: decision.decided_at,
      }),
    runFinished: (outcome) => emit(terminalJson(outcome)),
  };
}

/** A model turn, once journaled: its text and tokens. */
function turnEndJson(turn: AssistantPayload): Record<string, unknown> {
  return {
    type: "turn_end",
    iteration: turn.iteration,
    stop_reason: turn.stop_reason,
    text: turn.message.content.map((block) => (block.type === "text" ? block.text : "")).join(""),
    in_tokens: turn.in_tokens,
    out_tokens: turn.out_tokens,
    cache_read_tokens: turn.cache_read_tokens ?? 0,
    cache_create_tokens: turn.cache_create_tokens ?? 0,
  };
}

/** How the run ended: its answer or why it stopped, the calls that wait, and its counters. */
function terminalJson(outcome: RunOutcome): Record<string, unknown> {
  return {
    type: "terminal",
    session_id: outcome.runId,
    reason: outcome.reason,
    ...(outcome.answer === undefined ? {} : { answer: outcome.answer }),
    ...(outcome.message === undefined ? {} : { message: outcome.message }),
    ...(outcome.waiting === undefined
      ? {}
      : {
          waiting: outcome.waiting.map((call) => ({
            id: call.toolUseId,
            name: call.name,
            input: call.input,
            kind: call.kind,
            requested_at: call.requestedAt,
          })),
        }),
    counters: countersJson(outcome.counters),
  };
}

/** Both renderers see every event, `first` before `second`. */
export function bothEvents(first: AgentEvents, second: AgentEvents): AgentEvents {
  const keys = new Set([...Object.keys(first), ...Object.keys(second)]) as Set<keyof AgentEvents>;
  const both: Record<string, (...args: unknown[]) => void> = {};
  for (const key of keys) {
    both[key] = (...args) => {
      for (const events of [first, second]) (events[key] as ((...args: unknown[]) => void) | undefined)?.(...args);
    };
  }
  return both as AgentEvents;
}
