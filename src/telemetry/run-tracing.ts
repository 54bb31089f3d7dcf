// The live tracer: a run's events made into its session's spans as they happen, by the
// same builders `session trace` uses (session-spans.ts). The loop knows nothing of it: it
// is one more consumer of AgentEvents, plus the trace context a call's processes get.
import type { TracerProvider } from "@opentelemetry/api";
import type { AgentEvents } from "../agent/events.js";
import type { ApprovalRequestPayload, ToolUseBlock } from "../runstate/records.js";
import { approvalSpan, chatSpan, compactionSpan, partSpan, toolSpan, type RunPart, type SessionContext, type SessionSpan } from "./session-spans.js";
import { emitSpan } from "./span-emitter.js";
import { toolSpanId, traceparent } from "./trace-ids.js";

export interface RunTracingOptions {
  /** The embedding program's provider. */
  tracerProvider: TracerProvider;
  /**
   * Whether the provider was built with `idGenerator: sessionIdGenerator(new RandomIdGenerator())`
   * (default true): then every span's id follows from the session and `session trace`
   * names them alike. Otherwise the spans still share the session's trace id.
   */
  sessionIds?: boolean;
  provider: string;
  model: string;
  /** Prompt and result text on the spans (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT). */
  captureContent?: boolean;
  /**
   * On a resume, the session's spans so far (journalSpans of its records): the new part
   * links the last one, and emits it when its process died before it could.
   */
  before?: readonly SessionSpan[];
}

export interface RunTracing {
  events: AgentEvents;
  /** RunOptions.callEnvironment: a call's processes get TRACEPARENT naming its execute_tool span. */
  callEnvironment: (runId: string, use: ToolUseBlock) => Record<string, string>;
}

/** The content-capture setting of the GenAI conventions, from the environment. */
export function captureContentFrom(env: NodeJS.ProcessEnv): boolean {
  return env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.toLowerCase() === "true";
}

export function runTracing(options: RunTracingOptions): RunTracing {
  const tracer = options.tracerProvider.getTracer("fisk-ai");
  let session: SessionContext | undefined;
  let part: RunPart | undefined;
  let retries: NonNullable<SessionSpan["events"]> = [];
  const requests = new Map<string, ApprovalRequestPayload>();
  const emit = (span: SessionSpan) => emitSpan(tracer, (session as SessionContext).runId, span, options.sessionIds ?? true);
  const now = () => new Date().toISOString();
  const events: AgentEvents = {
    runStarted({ runId, firstSeq, afterCrash }) {
      session = { runId, provider: options.provider, model: options.model, captureContent: options.captureContent ?? false };
      const start = now();
      const previous = options.before?.filter((span) => span.name === "invoke_agent").at(-1);
      if (afterCrash && previous !== undefined) emit(previous);
      const previousFirstSeq = previous?.attributes["fisk_ai.seq.first"];
      part = { firstSeq, start, end: start, status: undefined, afterCrash, ...(typeof previousFirstSeq === "number" ? { previousFirstSeq } : {}) };
    },
    modelCallStarted() {
      retries = [];
    },
    modelCallRetrying(attempt, delayMs, error) {
      retries.push({ name: "gen_ai.retry", time: now(), attributes: { "fisk_ai.retry.attempt": attempt, "fisk_ai.retry.delay_ms": delayMs, "error.type": error.name } });
    },
    assistantTurn(turn) {
      if (session === undefined || part === undefined) return;
      emit(chatSpan(session, part.firstSeq, turn, now(), retries));
      retries = [];
    },
    toolFinished(use, result, reused, record) {
      if (session === undefined || part === undefined || reused) return;
      emit(toolSpan(session, part.firstSeq, use, record ?? { tool_use_id: use.id, result }, now()));
    },
    compaction({ seq, compaction }) {
      if (session === undefined || part === undefined) return;
      emit(compactionSpan(session, part.firstSeq, seq, compaction, now()));
    },
    approvalRequested(request) {
      requests.set(request.tool_use_id, request);
    },
    approvalDecided(decision) {
      const request = requests.get(decision.tool_use_id);
      if (session === undefined || part === undefined || request === undefined) return;
      emit(approvalSpan(session, part.firstSeq, request, decision));
    },
    runFinished(outcome) {
      if (session === undefined || part === undefined) return;
      emit(partSpan(session, { ...part, end: now(), status: outcome.reason }));
    },
  };
  return { events, callEnvironment: (runId, use) => ({ TRACEPARENT: traceparent(runId, toolSpanId(runId, use.id)) }) };
}
