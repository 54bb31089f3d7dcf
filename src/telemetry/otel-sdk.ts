// The OpenTelemetry SDK a traced run uses, which otel-setup.ts loads with one import() when
// tracing is on. Imported statically here because the packages are CommonJS: the CLI's bundle
// keeps a CommonJS module's named exports for a static import, not for an import() of it.
export { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
export { resourceFromAttributes } from "@opentelemetry/resources";
export { BatchSpanProcessor, RandomIdGenerator, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
