// One trace per session: every id follows from the session id and what the span is of,
// so each process that touches a run, and `session trace` long after, names the same
// spans the same way without telling one another anything.
import { hash } from "node:crypto";

function hex(parts: readonly (string | number)[], length: number): string {
  return hash("sha256", parts.join("\0"), "hex").slice(0, length);
}

// Every span of a run asks for its session's trace id: the last one is kept.
let lastTraceId = { runId: "", traceId: "" };

/** The session's trace id (32 hex digits). */
export function sessionTraceId(runId: string): string {
  if (lastTraceId.runId !== runId) lastTraceId = { runId, traceId: hex(["fisk-ai trace", runId], 32) };
  return lastTraceId.traceId;
}

/** A span's id (16 hex digits): the session, the kind of span, and what names it within the session (a seq, a call id). */
export function sessionSpanId(runId: string, kind: string, key: string | number): string {
  return hex(["fisk-ai span", runId, kind, key], 16);
}

/** The span id of a tool call's execute_tool span, which its processes are handed as their parent. */
export function toolSpanId(runId: string, toolUseId: string): string {
  return sessionSpanId(runId, "execute_tool", toolUseId);
}

/** The W3C traceparent of a span in the trace of session `traceRunId` (a tree's: its top session's), sampled. */
export function traceparent(traceRunId: string, spanId: string): string {
  return `00-${sessionTraceId(traceRunId)}-${spanId}-01`;
}

/**
 * Ids the tracer chooses: set just before a span is started, taken by the provider's id
 * generator (sessionIdGenerator). A provider with another generator makes its own ids,
 * and the spans still land in the session's trace through their parent.
 */
export const chosenIds: { traceId?: string | undefined; spanId?: string | undefined } = {};

/** An IdGenerator for an OpenTelemetry TracerProvider: the chosen ids when set, random ones otherwise. */
export function sessionIdGenerator(random: { generateTraceId(): string; generateSpanId(): string }) {
  return {
    /** The session's trace id while a span of it starts, else a random one. */
    generateTraceId(): string {
      const id = chosenIds.traceId ?? random.generateTraceId();
      chosenIds.traceId = undefined;
      return id;
    },
    /** The span's own id while a span of a session starts, else a random one. */
    generateSpanId(): string {
      const id = chosenIds.spanId ?? random.generateSpanId();
      chosenIds.spanId = undefined;
      return id;
    },
  };
}
