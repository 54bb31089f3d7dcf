// A trace collector for tests: takes OTLP/HTTP JSON exports (what the OpenTelemetry JS
// SDK's otlp-http exporter sends) on loopback and decodes them into spans, keeping each
// request's raw body so a test can look for what must never be sent.
import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import { startLoopbackServer, type FakeServer } from "./http-json.js";

export type ReceivedValue = string | number | boolean | ReceivedValue[];

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: number;
  startMs: number;
  endMs: number;
  attributes: Record<string, ReceivedValue>;
  links: { traceId: string; spanId: string }[];
  events: { name: string; attributes: Record<string, ReceivedValue> }[];
  status: { code?: number; message?: string };
  /** The service.name of the resource it came with. */
  service: string | undefined;
}

export interface OtlpReceiver {
  /** The OTLP/HTTP base address, for OTEL_EXPORTER_OTLP_ENDPOINT or --endpoint. */
  url: string;
  spans: ReceivedSpan[];
  bodies: string[];
  /** Each accepted export's request headers, in order. */
  headers: IncomingHttpHeaders[];
  /** Answer every later export with this HTTP status (a collector refusing). */
  refuseWith(status: number): void;
  close(): Promise<void>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
}

function receivedValue(value: OtlpValue): ReceivedValue {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  return (value.arrayValue?.values ?? []).map(receivedValue);
}

function attributesOf(list: { key: string; value: OtlpValue }[] | undefined): Record<string, ReceivedValue> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, receivedValue(value)]));
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const headers: IncomingHttpHeaders[] = [];
  let refusal: number | undefined;
  const server: FakeServer = await startLoopbackServer(async (req, res) => {
    const body = await bodyOf(req);
    if (req.url !== "/v1/traces" || !String(req.headers["content-type"]).startsWith("application/json"))
      throw new Error(`unexpected ${req.method} ${req.url} (${req.headers["content-type"]})`);
    if (refusal !== undefined) {
      res.writeHead(refusal, { "content-type": "application/json" }).end("{}");
      return;
    }
    bodies.push(body);
    headers.push(req.headers);
    const request = JSON.parse(body) as {
      resourceSpans: { resource?: { attributes?: { key: string; value: OtlpValue }[] }; scopeSpans: { spans: Record<string, unknown>[] }[] }[];
    };
    for (const resourceSpans of request.resourceSpans) {
      const service = attributesOf(resourceSpans.resource?.attributes)["service.name"] as string | undefined;
      for (const scope of resourceSpans.scopeSpans) {
        for (const span of scope.spans) {
          spans.push({
            traceId: span.traceId as string,
            spanId: span.spanId as string,
            parentSpanId: (span.parentSpanId as string | undefined) || undefined,
            name: span.name as string,
            kind: span.kind as number,
            startMs: Number(BigInt(span.startTimeUnixNano as string) / 1_000_000n),
            endMs: Number(BigInt(span.endTimeUnixNano as string) / 1_000_000n),
            attributes: attributesOf(span.attributes as never),
            links: ((span.links ?? []) as { traceId: string; spanId: string }[]).map(({ traceId, spanId }) => ({ traceId, spanId })),
            events: ((span.events ?? []) as { name: string; attributes?: never }[]).map((event) => ({
              name: event.name,
              attributes: attributesOf(event.attributes),
            })),
            status: (span.status ?? {}) as ReceivedSpan["status"],
            service,
          });
        }
      }
    }
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
  return { url: server.url, spans, bodies, headers, refuseWith: (status) => (refusal = status), close: () => server.close() };
}
