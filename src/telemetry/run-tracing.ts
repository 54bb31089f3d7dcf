// The live tracer: a run's events made into its session's spans as they happen, by the
// same builders `session trace` uses (session-spans.ts). The loop knows nothing of it: it
// is one more consumer of AgentEvents, plus the trace context a call's processes get. A
// child session's tracer is this one's continued (childRuns): the whole tree is the trace of
// the session at its top, each child's first part under the call that started it.
import type { TracerProvider } from "@opentelemetry/api";
import type { AgentEvents, ChildRunHooks } from "../agent/events.js";
import type { ChildRunStart } from "../tools/tool.js";
import type { JournalRecord, ToolUseBlock } from "../runstate/records/records.js";
import { journalTrace } from "./journal-spans.js";
import {
  approvalSpan,
  chatSpan,
  compactionSpan,
  partSpan,
  toolSpan,
  type AskedApproval,
  type RunPart,
  type SessionContext,
  type SessionSpan,
} from "./session-spans.js";
import { emitSpan } from "./span-emitter.js";
import { toolSpanId, traceparent } from "./trace-ids.js";

/** What runTracing needs to make a run's spans: the program's provider and what the spans say of the model. */
export interface RunTracingOptions {
  /** The embedding program's provider. */
  tracerProvider: TracerProvider;
  /**
   * Whether the provider was built with `idGenerator: sessionIdGenerator(new RandomIdGenerator())`
   * (default true): then every span's id follows from the session and `session trace`
   * names them alike. Otherwise the spans still share the session's trace id.
   */
  sessionIds?: boolean;
  /** The model provider's name on the spans (`gen_ai.provider.name`): `anthropic`, `openai`, `script`. */
  provider: string;
  /** The model's name on the spans (`gen_ai.request.model`). */
  model: string;
  /** Prompt and result text on the spans (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT). */
  captureContent?: boolean;
  /**
   * On a resume, the session's records so far: the new part links the last one, and emits
   * it when its process died before it could; a call parked there and decided here gets
   * its wait's span from its request on.
   */
  journal?: readonly JournalRecord[];
  /**
   * Keep the spans as plain data until `flush()` hands them to the provider (default
   * false: each as it ends). A program that flushes on its export schedule keeps the
   * SDK's work per span off the run's path between calls.
   */
  deferred?: boolean;
}

/** A run's live tracer: pass its events and callEnvironment to the run, and flush when the program exports. */
export interface RunTracing {
  /** The events that make the spans: give them to runAgent (beside the program's own, if any). */
  events: AgentEvents;
  /** Hands the spans kept so far to the provider (with `deferred`; otherwise there are none). */
  flush(): void;
  /** RunOptions.callEnvironment: a call's processes get TRACEPARENT naming its execute_tool span. */
  callEnvironment: (runId: string, use: ToolUseBlock) => Record<string, string>;
  /** RunAgentOptions.childRuns: each child session's spans go to the same provider, in this run's trace. */
  childRuns: (child: ChildRunStart) => ChildRunHooks;
}

/** Where a child session's spans go in its tree's trace. */
interface TreePlace {
  /** The session at the top of the tree, whose trace it is. */
  rootRunId: string;
  /** The execute_tool span of the call that started the child. */
  callSpanId: string;
}

/** The content-capture setting of the GenAI conventions, from the environment. */
export function captureContentFrom(env: NodeJS.ProcessEnv): boolean {
  return env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.toLowerCase() === "true";
}

/**
 * Where a tree's spans go: to the provider as each ends or, `deferred`, kept as the calls that
 * build them until the flush. `traceRunId`: the session whose trace the span is in.
 */
function spanOutlet(options: RunTracingOptions) {
  const tracer = options.tracerProvider.getTracer("fisk-ai");
  const kept: { traceRunId: string; span: () => SessionSpan }[] = [];
  const toProvider = (traceRunId: string, span: SessionSpan) => emitSpan(tracer, traceRunId, span, options.sessionIds ?? true);
  return {
    send(traceRunId: string, span: () => SessionSpan): void {
      if (options.deferred === true) kept.push({ traceRunId, span });
      else toProvider(traceRunId, span());
    },
    flush(): void {
      for (const { traceRunId, span } of kept.splice(0)) toProvider(traceRunId, span());
    },
  };
}

/** A part that starts: its session, itself, what the journal before it holds, and the part before it, when that one's process died without sending it. */
function partStarting(options: RunTracingOptions, place: TreePlace | undefined, info: Parameters<NonNullable<AgentEvents["runStarted"]>>[0]) {
  const { runId, firstSeq, afterCrash, startedAt } = info;
  const captureContent = options.captureContent ?? false;
  const before = journalTrace(options.journal ?? [], captureContent);
  const previous = before?.spans.filter((span) => span.name === "invoke_agent").at(-1);
  const previousFirstSeq = previous?.attributes["fisk_ai.seq.first"];
  const part: RunPart = { firstSeq, start: startedAt, end: startedAt, status: undefined, afterCrash };
  return {
    session: {
      runId,
      provider: options.provider,
      model: options.model,
      captureContent,
      ...(place === undefined ? {} : { callSpanId: place.callSpanId }),
    } satisfies SessionContext,
    part: typeof previousFirstSeq === "number" ? { ...part, previousFirstSeq } : part,
    requests: before?.requests ?? new Map<string, AskedApproval>(),
    unsent: afterCrash ? previous : undefined,
  };
}

/**
 * A tracer of one run (and its resumes in this process) that makes the session's spans as its
 * events happen, through the program's own TracerProvider: the same spans, with the same ids,
 * as `fisk-ai session trace` makes from the journal afterwards.
 */
export function runTracing(options: RunTracingOptions): RunTracing {
  const outlet = spanOutlet(options);
  return { ...sessionTracer(options, outlet, undefined), flush: outlet.flush };
}

/** The tracer of one session of a tree (`place` undefined: the session at its top), sending through the tree's outlet. */
function sessionTracer(options: RunTracingOptions, outlet: ReturnType<typeof spanOutlet>, place: TreePlace | undefined): Omit<RunTracing, "flush"> {
  let session: SessionContext | undefined;
  let part: RunPart | undefined;
  let retries: NonNullable<SessionSpan["events"]> = [];
  let requests = new Map<string, AskedApproval>();
  const now = () => new Date().toISOString();
  /** `build` is given the session, the part the span belongs to (as it is now) and the time now. */
  const emit = (build: (context: SessionContext, current: RunPart, time: string) => SessionSpan) => {
    if (session === undefined || part === undefined) return;
    const [context, current, time] = [session, part, now()];
    outlet.send(place?.rootRunId ?? context.runId, () => build(context, current, time));
  };
  const events: AgentEvents = {
    runStarted(info) {
      const started = partStarting(options, place, info);
      ({ session, part, requests } = started);
      const { unsent } = started;
      if (unsent !== undefined) emit(() => unsent);
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
      if (part !== undefined) requests.set(request.tool_use_id, { request, partSeq: part.firstSeq });
    },
    approvalDecided(decision) {
      const asked = requests.get(decision.tool_use_id);
      if (asked !== undefined) emit((context) => approvalSpan(context, asked, decision));
    },
    runFinished(outcome) {
      emit((context, current, time) => partSpan(context, { ...current, end: time, status: outcome.reason }));
    },
  };
  return { events, ...treeHooks(options, outlet, place) };
}

/** What a session's tracer gives its calls and its children: the tree's trace context, and a tracer of each child's own. */
function treeHooks(options: RunTracingOptions, outlet: ReturnType<typeof spanOutlet>, place: TreePlace | undefined): Omit<RunTracing, "flush" | "events"> {
  return {
    callEnvironment: (runId, use) => ({ TRACEPARENT: traceparent(place?.rootRunId ?? runId, toolSpanId(runId, use.id)) }),
    childRuns: (child) =>
      sessionTracer({ ...options, provider: child.provider, model: child.model, journal: child.records }, outlet, {
        rootRunId: place?.rootRunId ?? child.parentRunId,
        callSpanId: toolSpanId(child.parentRunId, child.callId),
      }),
  };
}
