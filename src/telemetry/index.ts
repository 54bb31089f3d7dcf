// `fisk-ai/telemetry`: OpenTelemetry traces of runs for a program that embeds fisk-ai and
// has its own TracerProvider. Apart from the main entry so that a program without
// tracing never loads @opentelemetry/api.
export { captureContentFrom, runTracing, type RunTracing, type RunTracingOptions } from "./run-tracing.js";
export { journalSpans } from "./journal-spans.js";
export type { SessionSpan, SpanAttribute } from "./session-spans.js";
export { emitSpan } from "./span-emitter.js";
export { sessionIdGenerator, sessionTraceId, traceparent } from "./trace-ids.js";
