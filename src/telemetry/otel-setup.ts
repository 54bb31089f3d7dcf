// The program's own tracer provider, from the standard OpenTelemetry environment: OTLP
// over HTTP to OTEL_EXPORTER_OTLP_ENDPOINT (or _TRACES_ENDPOINT), with its headers, named
// OTEL_SERVICE_NAME. The SDK is imported here only, and this module only when tracing is
// on, so a run without it starts as it always did.
import type { TracerProvider } from "@opentelemetry/api";

/** Whether the environment turns tracing on: an OTLP endpoint or exporter named, and not turned off. */
export function tracingWanted(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.toLowerCase() === "true") return false;
  const exporters = env.OTEL_TRACES_EXPORTER?.split(",").map((name) => name.trim());
  if (exporters !== undefined) return exporters.includes("otlp");
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/** Where spans go: the endpoint given, else the environment's (a _TRACES_ endpoint is the whole URL, a plain one the base). */
function tracesUrl(env: NodeJS.ProcessEnv, endpoint: string | undefined): string | undefined {
  const base = endpoint ?? (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ? undefined : env.OTEL_EXPORTER_OTLP_ENDPOINT);
  if (base) return `${base.replace(/\/+$/, "")}/v1/traces`;
  return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || undefined;
}

export interface ProgramTracer {
  tracerProvider: TracerProvider;
  /** How often queued spans are sent: OTEL_BSP_SCHEDULE_DELAY, 5 s by default. */
  scheduleDelayMs: number;
  /** Sends what is queued now; never rejects (a failure is what shutdown resolves to). */
  flush(): Promise<void>;
  /**
   * Sends what is still queued and stops, awaited before the process exits; never
   * rejects: resolves to why an export failed, if one did (a collector down must not fail
   * the run it watched).
   */
  shutdown(): Promise<string | undefined>;
}

/**
 * `endpoint` (an OTLP/HTTP base such as http://collector:4318) overrides the
 * environment's. `batch`: queue spans and send them together (a run), or send each as it
 * ends (an export that ends right after).
 */
export async function programTracer(env: NodeJS.ProcessEnv, options: { endpoint?: string; batch: boolean }): Promise<ProgramTracer> {
  const [
    { TracerProvider: SdkTracerProvider, BatchSpanProcessor, SimpleSpanProcessor, RandomIdGenerator, OTLPTraceExporter, resourceFromAttributes },
    { sessionIdGenerator },
  ] = await Promise.all([import("./otel-sdk.js"), import("./trace-ids.js")]);
  const url = tracesUrl(env, options.endpoint);
  // The SDK reads process.env itself; `env` may be another (agent.yaml's block beneath it), so its headers are passed.
  const headers = { ...headersFrom(env.OTEL_EXPORTER_OTLP_HEADERS), ...headersFrom(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS) };
  const otlp = new OTLPTraceExporter({ ...(url === undefined ? {} : { url }), headers });
  let failure: string | undefined;
  const exporter: typeof otlp = Object.assign(Object.create(otlp) as typeof otlp, {
    export: (spans: Parameters<typeof otlp.export>[0], done: Parameters<typeof otlp.export>[1]) =>
      otlp.export(spans, (result) => {
        if (result.error !== undefined) failure = result.error.message;
        done(result);
      }),
  });
  const scheduleDelayMs = scheduleDelayFrom(env);
  const provider = new SdkTracerProvider({
    resource: resourceFromAttributes({ "service.name": env.OTEL_SERVICE_NAME || "fisk-ai" }),
    idGenerator: sessionIdGenerator(new RandomIdGenerator()),
    spanProcessors: [options.batch ? new BatchSpanProcessor({ exporter, scheduledDelayMillis: scheduleDelayMs }) : new SimpleSpanProcessor({ exporter })],
  });
  const shutdown = async (): Promise<string | undefined> => {
    try {
      await provider.shutdown();
    } catch (error) {
      failure ??= error instanceof Error ? error.message : String(error);
    }
    return failure;
  };
  const flush = () => provider.forceFlush().catch((error: unknown) => void (failure ??= error instanceof Error ? error.message : String(error)));
  return { tracerProvider: provider, scheduleDelayMs, flush, shutdown };
}

/** OTEL_BSP_SCHEDULE_DELAY in milliseconds, as the specification defines it; 5000 when unset or not a count. */
function scheduleDelayFrom(env: NodeJS.ProcessEnv): number {
  const delay = Number(env.OTEL_BSP_SCHEDULE_DELAY);
  return env.OTEL_BSP_SCHEDULE_DELAY !== undefined && Number.isInteger(delay) && delay > 0 ? delay : 5000;
}

/** An OTEL_EXPORTER_OTLP_HEADERS value: `name=value` pairs, comma-separated, values percent-encoded. */
function headersFrom(value: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of value?.split(",") ?? []) {
    const at = pair.indexOf("=");
    if (at > 0) headers[pair.slice(0, at).trim()] = decoded(pair.slice(at + 1).trim());
  }
  return headers;
}

/** A value as sent when it is not valid percent-encoding. */
function decoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
