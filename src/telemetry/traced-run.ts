// A program's live tracing of a run, as the CLI turns it on from the environment: its
// own provider exporting over OTLP, and on a resume the session's spans so far, so the
// new part links the last (and emits it when its process died first).
import type { Store } from "../runstate/store/store.js";
import { programTracer } from "./otel-setup.js";
import { emitSpan } from "./span-emitter.js";
import { captureContentFrom, runTracing, type RunTracing } from "./run-tracing.js";
import { journalSpans, partSpanId, type SessionSpan } from "./session-spans.js";
import { traceparent } from "./trace-ids.js";
import type { JournalRecord } from "../runstate/records/records.js";

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
  const records = run.store === undefined || run.resumeId === undefined ? [] : await journalOf(run.store, run.resumeId);
  const before = journalSpans(records, captureContent);
  // The part's span is named by the first record it journals: the one after the journal's last.
  const firstSeq = (records.at(-1)?.seq ?? 0) + 1;
  const program = await programTracer(env, { batch: true });
  const tracing = runTracing({ tracerProvider: program.tracerProvider, provider: run.provider, model: run.model, captureContent, before, deferred: true });
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

async function journalOf(store: Store, runId: string): Promise<JournalRecord[]> {
  const records: JournalRecord[] = [];
  for await (const record of store.readRecords(runId)) records.push(record);
  return records;
}

export async function spansSoFar(store: Store, runId: string, captureContent: boolean): Promise<SessionSpan[]> {
  return journalSpans(await journalOf(store, runId), captureContent);
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
