// The live tracer: a run's events made into its session's spans as they happen, by the
// same builders `session trace` uses (session-spans.ts). The loop knows nothing of it: it
// is one more consumer of AgentEvents, plus the trace context a call's processes get.
import type { TracerProvider } from "@opentelemetry/api";
import type { AgentEvents } from "../agent/events.js";
import type { ApprovalRequestPayload, ToolUseBlock } from "../runstate/records/records.js";
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
  /**
   * Keep the spans as plain data until `flush()` hands them to the provider (default
   * false: each as it ends). A program that flushes on its export schedule keeps the
   * SDK's work per span off the run's path between calls.
   */
  deferred?: boolean;
}

export interface RunTracing {
  events: AgentEvents;
  /** Hands the spans kept so far to the provider (with `deferred`; otherwise there are none). */
  flush(): void;
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
  // Deferred, a span is kept as the call that builds it: its attributes are made at the flush.
  const kept: { runId: string; span: () => SessionSpan }[] = [];
  const toProvider = (runId: string, span: SessionSpan) => emitSpan(tracer, runId, span, options.sessionIds ?? true);
  const now = () => new Date().toISOString();
  /** `build` is given the session, the part the span belongs to (as it is now) and the time now. */
  const emit = (build: (context: SessionContext, current: RunPart, time: string) => SessionSpan) => {
    if (session === undefined || part === undefined) return;
    const [context, current, time] = [session, part, now()];
    if (options.deferred === true) kept.push({ runId: context.runId, span: () => build(context, current, time) });
    else toProvider(context.runId, build(context, current, time));
  };
  const flush = () => {
    for (const { runId, span } of kept.splice(0)) toProvider(runId, span());
  };
  const events: AgentEvents = {
    runStarted({ runId, firstSeq, afterCrash }) {
      session = { runId, provider: options.provider, model: options.model, captureContent: options.captureContent ?? false };
      const start = now();
      const previous = options.before?.filter((span) => span.name === "invoke_agent").at(-1);
      const previousFirstSeq = previous?.attributes["fisk_ai.seq.first"];
      part = { firstSeq, start, end: start, status: undefined, afterCrash, ...(typeof previousFirstSeq === "number" ? { previousFirstSeq } : {}) };
      if (afterCrash && previous !== undefined) emit(() => previous);
    },
    modelCallStarted() {
      retries = [];
    },
    modelCallRetrying(attempt, delayMs, error) {
      retries.push({
        name: "gen_ai.retry",
        time: now(),
        attributes: { "fisk_ai.retry.attempt": attempt, "fisk_ai.retry.delay_ms": delayMs, "error.type": error.name },
      });
    },
    assistantTurn(turn) {
      const retried = retries;
      emit((context, current, time) => chatSpan(context, current.firstSeq, turn, time, retried));
      retries = [];
    },
    toolFinished(use, result, reused, record) {
      if (!reused) emit((context, current, time) => toolSpan(context, current.firstSeq, use, record ?? { tool_use_id: use.id, result }, time));
    },
    compaction({ seq, compaction }) {
      emit((context, current, time) => compactionSpan(context, current.firstSeq, seq, compaction, time));
    },
    approvalRequested(request) {
      requests.set(request.tool_use_id, request);
    },
    approvalDecided(decision) {
      const request = requests.get(decision.tool_use_id);
      if (request !== undefined) emit((context, current) => approvalSpan(context, current.firstSeq, request, decision));
    },
    runFinished(outcome) {
      emit((context, current, time) => partSpan(context, { ...current, end: time, status: outcome.reason }));
    },
  };
  return { events, flush, callEnvironment: (runId, use) => ({ TRACEPARENT: traceparent(runId, toolSpanId(runId, use.id)) }) };
}
