// What a session's trace holds, as plain data: the spans of a part of a run (invoke_agent),
// of each model call (chat), tool call (execute_tool), compaction and approval wait, named and
// attributed by the OpenTelemetry GenAI conventions, with fisk-ai's own attributes under
// `fisk_ai.*`. The live tracer (run-tracing.ts) and `session trace` (the journal walked in
// journal-spans.ts) build them with these same functions, so both export the same tree.
// Nothing here imports OpenTelemetry: emitting a span is span-emitter.ts's job.
import type {
  ApprovalDecisionPayload,
  ApprovalRequestPayload,
  AssistantPayload,
  CompactionPayload,
  TerminalReason,
  ToolResultPayload,
  ToolUseBlock,
} from "../runstate/records/records.js";
import { sessionSpanId, toolSpanId } from "./trace-ids.js";

/** A span attribute's value, as OpenTelemetry takes it. */
export type SpanAttribute = string | number | boolean | string[];

/** One span of a session's trace, ready to be emitted. */
export interface SessionSpan {
  /** Its id, which follows from the session, the record and the span's kind. */
  spanId: string;
  /** Undefined for the first part of the session at the top of a tree, the root of its trace. */
  parentSpanId?: string;
  /** The GenAI conventions' name: `invoke_agent`, `chat MODEL`, `execute_tool NAME`... */
  name: string;
  /** `client` for a call to the model, `internal` for the rest. */
  kind: "internal" | "client";
  /** RFC 3339. */
  start: string;
  /** RFC 3339. */
  end: string;
  /** The GenAI conventions' attributes and fisk-ai's own (`fisk_ai.*`). */
  attributes: Record<string, SpanAttribute>;
  /** Events on the span, each at its time (RFC 3339). */
  events?: {
    /** The event's name. */
    name: string;
    /** RFC 3339. */
    time: string;
    /** The event's attributes. */
    attributes: Record<string, SpanAttribute>;
  }[];
  /** Spans of the same trace this one follows from: a part links the part before it. */
  links?: string[];
  /** Set when the span ended in an error: the status description. */
  error?: string;
}

/** What every span of a session is told about the run. */
export interface SessionContext {
  runId: string;
  provider: string;
  model: string;
  /** Prompt and result text on the spans: only when OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT asks for it. */
  captureContent: boolean;
  /** For a child session: the execute_tool span of the call that started it, its first part's parent. */
  callSpanId?: string;
}

/** One process's part of a run, from the first record it journaled. */
export interface RunPart {
  firstSeq: number;
  start: string;
  end: string;
  /** How the part ended: its terminal reason, or undefined when it has none (the process died, or still runs). */
  status: TerminalReason | undefined;
  /** The part before it, when there is one: its span is linked. */
  previousFirstSeq?: number;
  afterCrash: boolean;
}

/** The part's span id: parts are named by their first record. */
export function partSpanId(runId: string, firstSeq: number): string {
  return sessionSpanId(runId, "invoke_agent", firstSeq);
}

export function partSpan(session: SessionContext, part: RunPart): SessionSpan {
  const { runId } = session;
  const resumed = part.firstSeq > 1;
  return {
    spanId: partSpanId(runId, part.firstSeq),
    // Later parts nest under the first, so the trace has one root however often it resumed;
    // a child's first part under the call that started it, so a tree is one trace.
    ...(resumed ? { parentSpanId: partSpanId(runId, 1) } : session.callSpanId === undefined ? {} : { parentSpanId: session.callSpanId }),
    name: "invoke_agent",
    kind: "internal",
    start: part.start,
    end: part.end,
    attributes: {
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.provider.name": session.provider,
      "gen_ai.request.model": session.model,
      "gen_ai.conversation.id": runId,
      "fisk_ai.session.id": runId,
      "fisk_ai.seq.first": part.firstSeq,
      "fisk_ai.status": part.status ?? "ended without a terminal record",
      "fisk_ai.resumed": resumed,
      ...(part.afterCrash ? { "fisk_ai.resumed_after_crash": true } : {}),
    },
    ...(part.previousFirstSeq === undefined ? {} : { links: [partSpanId(runId, part.previousFirstSeq)] }),
    ...(part.status === undefined || part.status === "error"
      ? { error: part.status === "error" ? "the run stopped on an error" : "the part ended without a terminal record: its process died" }
      : {}),
  };
}

/** What a model call's, a tool's and a compaction's span share: their part as parent, the operation, the session's ids, and the record's times (`fallbackTime` where it kept none). */
function callSpan(
  session: SessionContext,
  partSeq: number,
  call: { spanId: string; operation: string; name: string; kind: SessionSpan["kind"]; times: { started_at?: string; ended_at?: string }; fallbackTime: string },
): SessionSpan {
  return {
    spanId: call.spanId,
    parentSpanId: partSpanId(session.runId, partSeq),
    name: call.name,
    kind: call.kind,
    start: call.times.started_at ?? call.fallbackTime,
    end: call.times.ended_at ?? call.fallbackTime,
    attributes: { "gen_ai.operation.name": call.operation, "gen_ai.conversation.id": session.runId, "fisk_ai.session.id": session.runId },
  };
}

/** A model call's span; `retries` only live (no record keeps them). */
export function chatSpan(
  session: SessionContext,
  partSeq: number,
  turn: AssistantPayload,
  fallbackTime: string,
  retries: SessionSpan["events"] = [],
): SessionSpan {
  const cacheRead = turn.cache_read_tokens ?? 0;
  const cacheCreate = turn.cache_create_tokens ?? 0;
  const span = callSpan(session, partSeq, {
    spanId: sessionSpanId(session.runId, "chat", turn.iteration),
    operation: "chat",
    name: `chat ${session.model}`,
    kind: "client",
    times: turn,
    fallbackTime,
  });
  return {
    ...span,
    attributes: {
      ...span.attributes,
      "gen_ai.provider.name": session.provider,
      "gen_ai.request.model": session.model,
      ...(turn.response_model === undefined ? {} : { "gen_ai.response.model": turn.response_model }),
      ...(turn.stop_reason === undefined ? {} : { "gen_ai.response.finish_reasons": [turn.stop_reason] }),
      // The convention's input count includes the cached tokens; the record keeps them apart.
      "gen_ai.usage.input_tokens": turn.in_tokens + cacheRead + cacheCreate,
      "gen_ai.usage.output_tokens": turn.out_tokens,
      ...(turn.cache_read_tokens === undefined ? {} : { "gen_ai.usage.cache_read.input_tokens": cacheRead }),
      ...(turn.cache_create_tokens === undefined ? {} : { "gen_ai.usage.cache_creation.input_tokens": cacheCreate }),
      "fisk_ai.iteration": turn.iteration,
      ...(session.captureContent
        ? { "gen_ai.output.messages": JSON.stringify([{ role: "assistant", parts: turn.message.content, finish_reason: turn.stop_reason }]) }
        : {}),
    },
    ...(retries.length === 0 ? {} : { events: retries }),
  };
}

export function toolSpan(session: SessionContext, partSeq: number, use: ToolUseBlock, result: ToolResultPayload, fallbackTime: string): SessionSpan {
  const failed = result.result.is_error === true;
  const span = callSpan(session, partSeq, {
    spanId: toolSpanId(session.runId, use.id),
    operation: "execute_tool",
    name: `execute_tool ${use.name}`,
    kind: "internal",
    times: result,
    fallbackTime,
  });
  return {
    ...span,
    attributes: {
      ...span.attributes,
      "gen_ai.tool.name": use.name,
      "gen_ai.tool.call.id": use.id,
      "gen_ai.tool.type": result.remote === true ? "extension" : "function",
      ...(failed ? { "error.type": "tool_error" } : {}),
      ...(session.captureContent
        ? { "gen_ai.tool.call.arguments": JSON.stringify(use.input), "gen_ai.tool.call.result": JSON.stringify(result.result.content) }
        : {}),
    },
    ...(failed ? { error: "the tool answered with an error" } : {}),
  };
}

/**
 * A compaction: the GenAI conventions name no such operation, so its name and attributes
 * are fisk-ai's own; its summarizing call's model and tokens use the conventions' names.
 */
export function compactionSpan(session: SessionContext, partSeq: number, seq: number, compaction: CompactionPayload, fallbackTime: string): SessionSpan {
  const span = callSpan(session, partSeq, {
    spanId: sessionSpanId(session.runId, "compaction", seq),
    operation: "fisk_ai.compaction",
    name: "fisk_ai.compaction",
    kind: "internal",
    times: compaction,
    fallbackTime,
  });
  return {
    ...span,
    attributes: {
      ...span.attributes,
      "gen_ai.request.model": compaction.model,
      "gen_ai.usage.input_tokens": compaction.in_tokens,
      "gen_ai.usage.output_tokens": compaction.out_tokens,
      "fisk_ai.seq": seq,
      "fisk_ai.compaction.trigger": compaction.trigger,
      "fisk_ai.compaction.from_seq": compaction.from_seq,
      "fisk_ai.compaction.through_seq": compaction.through_seq,
      "fisk_ai.compaction.tokens_before": compaction.tokens_before,
      "fisk_ai.compaction.tokens_after": compaction.tokens_after,
      "fisk_ai.compaction.trimmed_results": compaction.trimmed?.length ?? 0,
    },
  };
}

/** The span id of the wait for a decision on a call. */
export function approvalSpanId(runId: string, toolUseId: string): string {
  return sessionSpanId(runId, "approval", toolUseId);
}

/** A call parked for a decision, and the part that parked it: its span's parent. */
export interface AskedApproval {
  request: ApprovalRequestPayload;
  partSeq: number;
}

/** The wait for a person's decision, from the request to the decision, however long it took and whichever process decided. */
export function approvalSpan(session: SessionContext, asked: AskedApproval, decision: ApprovalDecisionPayload): SessionSpan {
  const { request, partSeq } = asked;
  return {
    spanId: approvalSpanId(session.runId, request.tool_use_id),
    parentSpanId: partSpanId(session.runId, partSeq),
    name: `await_approval ${request.name}`,
    kind: "internal",
    start: request.requested_at,
    end: decision.decided_at,
    attributes: {
      "gen_ai.tool.name": request.name,
      "gen_ai.tool.call.id": request.tool_use_id,
      "fisk_ai.session.id": session.runId,
      "fisk_ai.approval.kind": request.kind,
      "fisk_ai.approval.decision": decision.decision,
      "fisk_ai.approval.decided_by": decision.decided_by,
    },
  };
}
