// Hands a session's spans to an OpenTelemetry tracer, each with the ids trace-ids.ts
// derives: its trace is the session's, its parent and links the spans they name.
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace, type Tracer } from "@opentelemetry/api";
import type { SessionSpan } from "./session-spans.js";
import { chosenIds, sessionTraceId } from "./trace-ids.js";

function spanContext(traceId: string, spanId: string) {
  return { traceId, spanId, traceFlags: TraceFlags.SAMPLED, isRemote: true };
}

export function emitSpan(tracer: Tracer, runId: string, span: SessionSpan): void {
  const traceId = sessionTraceId(runId);
  // The root is made a child of nothing: the provider's id generator takes the trace id
  // chosen here. Under a provider with another generator, the root gets the session's
  // trace through a parent named after the session instead.
  const parent =
    span.parentSpanId === undefined
      ? undefined
      : trace.setSpanContext(ROOT_CONTEXT, spanContext(traceId, span.parentSpanId));
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
