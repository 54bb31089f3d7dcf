// A program's live tracing of a run, as the CLI turns it on from the environment: its
// own provider exporting over OTLP, and on a resume the session's spans so far, so the
// new part links the last (and emits it when its process died first).
import type { Store } from "../runstate/store.js";
import { programTracer } from "./otel-setup.js";
import { emitSpan } from "./span-emitter.js";
import { captureContentFrom, runTracing, type RunTracing } from "./run-tracing.js";
import { journalSpans, type SessionSpan } from "./session-spans.js";
import type { JournalRecord } from "../runstate/records.js";

export interface TracedRun extends RunTracing {
  /** Sends what is queued; resolves to why the collector did not take it, if it did not. */
  shutdown(): Promise<string | undefined>;
}

export async function tracedRun(env: NodeJS.ProcessEnv, run: { provider: string; model: string; store?: Store; resumeId?: string }): Promise<TracedRun> {
  const captureContent = captureContentFrom(env);
  const before = run.store === undefined || run.resumeId === undefined ? [] : await spansSoFar(run.store, run.resumeId, captureContent);
  const { tracerProvider, shutdown } = await programTracer(env, { batch: true });
  return { ...runTracing({ tracerProvider, provider: run.provider, model: run.model, captureContent, before }), shutdown };
}

export async function spansSoFar(store: Store, runId: string, captureContent: boolean): Promise<SessionSpan[]> {
  const records: JournalRecord[] = [];
  for await (const record of store.readRecords(runId)) records.push(record);
  return journalSpans(records, captureContent);
}

/**
 * Sends a journaled session's spans, as the live export of it would have: `session trace`.
 * Resolves to the spans sent; rejects naming the collector's answer when it refused them.
 */
export async function exportSessionTrace(store: Store, runId: string, env: NodeJS.ProcessEnv, endpoint: string | undefined): Promise<number> {
  const spans = await spansSoFar(store, runId, captureContentFrom(env));
  const program = await programTracer(env, { batch: false, ...(endpoint === undefined ? {} : { endpoint }) });
  const tracer = program.tracerProvider.getTracer("fisk-ai");
  for (const span of spans) emitSpan(tracer, runId, span);
  const failure = await program.shutdown();
  if (failure !== undefined) throw new Error(`the collector did not take the spans: ${failure}`);
  return spans.length;
}
