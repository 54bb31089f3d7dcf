// A program's live tracing of a run, as the CLI turns it on from the environment: its
// own provider exporting over OTLP, and on a resume the session's spans so far, so the
// new part links the last (and emits it when its process died first).
import type { Store } from "../runstate/store/store.js";
import { programTracer } from "./otel-setup.js";
import { emitSpan } from "./span-emitter.js";
import { captureContentFrom, runTracing, type RunTracing } from "./run-tracing.js";
import { journalSpans } from "./journal-spans.js";
import { approvalSpanId, partSpanId, type SessionSpan } from "./session-spans.js";
import { traceparent } from "./trace-ids.js";
import { recordsOf } from "../runstate/store/records-of.js";
import { traceRootOf, treeSpans } from "./tree-spans.js";
import { fold } from "../runstate/views/fold.js";
import { partFirstSeq } from "../agent/run-parts.js";

export interface TracedRun extends RunTracing {
  /**
   * TRACEPARENT naming this process's part of the session, for the MCP servers started for
   * the run, so that their spans join its trace (a command tool gets its own call's).
   */
  serverEnvironment: Record<string, string>;
  /** Sends what is queued; resolves to why the collector did not take it, if it did not. */
  shutdown(): Promise<string | undefined>;
}

/** `runId`: the session the run starts or resumes (a new one's id chosen before it starts, so that its servers know it). */
export async function tracedRun(
  env: NodeJS.ProcessEnv,
  run: { provider: string; model: string; runId: string; store?: Store; resumeId?: string },
): Promise<TracedRun> {
  const captureContent = captureContentFrom(env);
  const records = run.store === undefined || run.resumeId === undefined ? [] : await recordsOf(run.store, run.resumeId);
  // The part's span is named by the first record it journals.
  const firstSeq = records.length === 0 ? 1 : partFirstSeq(fold(records));
  const program = await programTracer(env, { batch: true });
  const tracing = runTracing({
    tracerProvider: program.tracerProvider,
    provider: run.provider,
    model: run.model,
    captureContent,
    journal: records,
    deferred: true,
  });
  // The spans go out on the batch schedule: made into SDK spans and sent together, off
  // the run's path between its calls; whatever is left, at the end, after the answer.
  const schedule = setInterval(() => {
    tracing.flush();
    void program.flush();
  }, program.scheduleDelayMs);
  schedule.unref();
  return {
    ...tracing,
    serverEnvironment: { TRACEPARENT: traceparent(run.runId, partSpanId(run.runId, firstSeq)) },
    shutdown: () => {
      clearInterval(schedule);
      tracing.flush();
      return program.shutdown();
    },
  };
}

/**
 * Sends a journaled session's spans and those of the sessions below it, in their tree's trace,
 * as the live export of them would have: `session trace`. Resolves to the spans and sessions
 * sent; rejects naming the collector's answer when it refused them.
 */
export async function exportSessionTrace(
  store: Store,
  runId: string,
  env: NodeJS.ProcessEnv,
  endpoint: string | undefined,
): Promise<{ spans: number; sessions: number }> {
  const { traceRunId, sessions, spans } = await treeSpans(store, runId, captureContentFrom(env));
  const failure = await sendSpans(env, traceRunId, spans, endpoint);
  if (failure !== undefined) throw new Error(`the collector did not take the spans: ${failure}`);
  return { spans: spans.length, sessions };
}

/**
 * Sends the waits that decisions made here ended, when no run of this process is there
 * to: their await_approval spans, from each call's request to its decision, as the
 * journal gives them. Resolves to why the collector did not take them, if it did not.
 */
export async function sendDecisionSpans(store: Store, runId: string, toolUseIds: readonly string[], env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const ended = new Set(toolUseIds.map((id) => approvalSpanId(runId, id)));
  const spans = journalSpans(await recordsOf(store, runId), captureContentFrom(env)).filter((span) => ended.has(span.spanId));
  return sendSpans(env, traceRootOf(await store.list(), runId), spans, undefined);
}

/** Sends spans in the trace of session `traceRunId` through a provider of this program's own, each as it is handed over. */
async function sendSpans(env: NodeJS.ProcessEnv, traceRunId: string, spans: readonly SessionSpan[], endpoint: string | undefined): Promise<string | undefined> {
  const program = await programTracer(env, { batch: false, ...(endpoint === undefined ? {} : { endpoint }) });
  const tracer = program.tracerProvider.getTracer("fisk-ai");
  for (const span of spans) emitSpan(tracer, traceRunId, span);
  return program.shutdown();
}
