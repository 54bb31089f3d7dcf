// Hands a session's spans to an OpenTelemetry tracer, each with the ids trace-ids.ts
// derives: its trace is the session's, its parent and links the spans they name.
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace, type Tracer } from "@opentelemetry/api";
import type { SessionSpan } from "./session-spans.js";
import { chosenIds, sessionSpanId, sessionTraceId } from "./trace-ids.js";

function spanContext(traceId: string, spanId: string) {
  return { traceId, spanId, traceFlags: TraceFlags.SAMPLED, isRemote: true };
}

/**
 * `traceRunId`: the session whose trace the span is in, the one at the top of its tree (for a
 * session that is no one's child, itself). `sessionIds`: the tracer's provider was built with
 * sessionIdGenerator, so it takes the ids chosen here. Then the top session's first part is
 * the root of the trace; under a provider with another generator, spans get ids of its own
 * and the root is given a parent named after the session, so that it still lands in the trace.
 */
export function emitSpan(tracer: Tracer, traceRunId: string, span: SessionSpan, sessionIds = true): void {
  const traceId = sessionTraceId(traceRunId);
  const parentSpanId = span.parentSpanId ?? (sessionIds ? undefined : sessionSpanId(traceRunId, "session", 0));
  const parent = parentSpanId === undefined ? undefined : trace.setSpanContext(ROOT_CONTEXT, spanContext(traceId, parentSpanId));
  chosenIds.traceId = traceId;
  chosenIds.spanId = span.spanId;
  const started = tracer.startSpan(
    span.name,
    {
      kind: span.kind === "client" ? SpanKind.CLIENT : SpanKind.INTERNAL,
      startTime: new Date(span.start),
      attributes: span.attributes,
      links: (span.links ?? []).map((spanId) => ({ context: spanContext(traceId, spanId) })),
      ...(parent === undefined ? { root: true } : {}),
    },
    parent ?? ROOT_CONTEXT,
  );
  chosenIds.traceId = undefined;
  chosenIds.spanId = undefined;
  for (const event of span.events ?? []) started.addEvent(event.name, event.attributes, new Date(event.time));
  if (span.error !== undefined) started.setStatus({ code: SpanStatusCode.ERROR, message: span.error });
  started.end(new Date(span.end));
}
