// What the fake model servers share: a loopback HTTP server whose close() never hangs,
// JSON bodies in and out, and the request log the tests inspect.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** One request as the fake saw it, and what it did with it. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body; the raw text when it was not JSON. */
  body: unknown;
  /** True when the request passed validation and reached the responder. */
  accepted: boolean;
  /** The HTTP status the fake answered with (undefined while the reply is pending). */
  status: number | undefined;
  /** Why the fake refused it, when it did. */
  rejection?: string;
  /** True when the connection closed before the reply was complete (the client aborted or died). */
  disconnected?: boolean;
}

/** `index` counts the calls made to the responder: rejected requests never reach it. */
export type Responder<Reply> = (request: RecordedRequest, index: number) => Reply | Promise<Reply>;

/** A responder that plays `replies` in order and fails loudly when they run out. */
export function scriptedReplies<Reply>(replies: readonly Reply[]): Responder<Reply> {
  return (_request, index) => {
    const reply = replies[index];
    if (reply === undefined) throw new Error(`the script has ${replies.length} replies, call #${index + 1} wants one more`);
    return reply;
  };
}

export interface FakeServer {
  /** The base URL a client is pointed at. */
  url: string;
  port: number;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export type RequestHandler = (req: IncomingMessage, res: ServerResponse, record: RecordedRequest) => Promise<void>;

/**
 * Listens on 127.0.0.1 on an ephemeral port. close() destroys open sockets, so a call the
 * test holds open (or a client that keeps its connection alive) cannot keep it waiting.
 */
export async function startLoopbackServer(handle: RequestHandler, urlPath = ""): Promise<FakeServer> {
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    void (async () => {
      const record: RecordedRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: undefined,
        accepted: false,
        status: undefined,
      };
      requests.push(record);
      res.on("close", () => {
        if (!res.writableFinished) record.disconnected = true;
      });
      try {
        await handle(req, res, record);
      } catch (error) {
        // A responder that throws is a broken test script: answer 500 so the client fails.
        const message = error instanceof Error ? error.message : String(error);
        record.rejection ??= message;
        // Both SDKs read `error.message` from this shape.
        if (!res.headersSent && !res.destroyed) sendJson(res, record, 500, { type: "error", error: { type: "api_error", message } });
        else res.destroy();
      }
    })();
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${urlPath}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Reads the whole body; `parsed` is false (and `body` the raw text) when it is not JSON. */
export async function readJsonBody(req: IncomingMessage): Promise<{ parsed: boolean; body: unknown }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  try {
    return { parsed: true, body: JSON.parse(text) as unknown };
  } catch {
    return { parsed: false, body: text };
  }
}

export function sendJson(res: ServerResponse, record: RecordedRequest, status: number, body: unknown, headers: Record<string, string> = {}): void {
  // The client may have gone away while a held reply was pending.
  if (res.destroyed) return;
  record.status = status;
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Starts a server-sent-events response; returns a writer for `data:` lines with an optional event name. */
export function startEventStream(res: ServerResponse, record: RecordedRequest, headers: Record<string, string> = {}): (data: unknown, event?: string) => void {
  if (!res.destroyed) {
    record.status = 200;
    res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", ...headers });
  }
  return (data, event) => {
    if (res.destroyed) return;
    const payload = typeof data === "string" ? data : JSON.stringify(data);
    res.write(`${event === undefined ? "" : `event: ${event}\n`}data: ${payload}\n\n`);
  };
}

/** Splits a string into a few pieces (on code points), as a model streams it. */
export function chunked(text: string, pieces = 3): string[] {
  const points = Array.from(text);
  if (points.length === 0) return [];
  const size = Math.max(1, Math.ceil(points.length / pieces));
  const out: string[] = [];
  for (let i = 0; i < points.length; i += size) out.push(points.slice(i, i + size).join(""));
  return out;
}

// Small readers for validating untyped JSON without `any`.
export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  const match = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? "");
  return match?.[1];
}
