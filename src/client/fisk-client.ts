// A typed client of `fisk-ai serve`'s API (fisk-ai/client): each method one route of
// CLIENT_ROUTES, whose methods and paths a test holds to /openapi.json, with the request
// and response types of the schemas the server validates with. Errors are ClientError,
// carrying the server's problem document.
import { EventSourceParserStream } from "eventsource-parser/stream";
import type { z } from "@hono/zod-openapi";
import type { DecisionBody, DecisionResultSchema, JournalRecordSchema, StartRunBody, WaitingCallSchema, WaitResult } from "../server/schemas.js";

/** The routes the client calls, as /openapi.json names them. */
export const CLIENT_ROUTES = {
  startRun: { method: "post", path: "/v1/runs" },
  followUp: { method: "post", path: "/v1/sessions/{id}/follow-ups" },
  wait: { method: "get", path: "/v1/sessions/{id}/wait" },
  events: { method: "get", path: "/v1/sessions/{id}/events" },
  approvals: { method: "get", path: "/v1/approvals" },
  decide: { method: "post", path: "/v1/sessions/{id}/calls/{callId}/decision" },
} as const;

export type StartRun = z.input<typeof StartRunBody>;
export type Decision = z.input<typeof DecisionBody>;
export type DecisionResult = z.output<typeof DecisionResultSchema>;
export type WaitingCall = z.output<typeof WaitingCallSchema>;
export type Outcome = z.output<typeof WaitResult>;
export type JournalRecord = z.output<typeof JournalRecordSchema>;

/** An RFC 9457 problem, as the server answers every error. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  /** fisk-ai's error code (docs/server.md). */
  code: string;
  runId?: string;
  [extension: string]: unknown;
}

/** A request the server refused or failed: its status and problem document. */
export class ClientError extends Error {
  override readonly name = "ClientError";
  readonly status: number;
  readonly problem: Problem;

  constructor(problem: Problem) {
    super(`${problem.code}: ${problem.detail}`);
    this.status = problem.status;
    this.problem = problem;
  }
}

/** One event of a session's stream: a record (its seq the event's id), or the end of the run's part. */
export type SessionEvent = { kind: "record"; seq: number; record: JournalRecord } | { kind: "end"; status: string; lastSeq: number };

/** How the client reaches the server. */
export interface ClientOptions {
  /** Sent with every request (an Authorization header). */
  headers?: Record<string, string>;
  /** The fetch it calls (default: the global one). */
  fetch?: typeof fetch;
}

export class FiskClient {
  readonly #base: string;
  readonly #options: ClientOptions;

  /** A client of the server at `baseUrl` (`http://127.0.0.1:7474`). */
  constructor(baseUrl: string, options: ClientOptions = {}) {
    this.#base = baseUrl.replace(/\/$/, "");
    this.#options = options;
  }

  /** Starts a session; with `idempotencyKey`, at most once for that key (`replayed` says it was started before). */
  async startRun(body: StartRun, idempotencyKey?: string): Promise<{ runId: string; replayed: boolean }> {
    return this.#json("startRun", {}, { body, headers: idempotencyKey === undefined ? {} : { "idempotency-key": idempotencyKey } });
  }

  /** Queues a follow-up prompt to session `id`. */
  async followUp(id: string, prompt: string, ifRunning: "queue" | "reject" | "interrupt" = "queue"): Promise<{ runId: string }> {
    return this.#json("followUp", { id }, { body: { prompt, ifRunning } });
  }

  /** Waits up to `timeoutMs` for session `id`'s run to end or park. */
  async wait(id: string, timeoutMs = 30_000): Promise<Outcome> {
    return this.#json("wait", { id }, { query: { timeout: String(timeoutMs) } });
  }

  /** The calls waiting for a decision. */
  async approvals(): Promise<WaitingCall[]> {
    return (await this.#json<{ calls: WaitingCall[] }>("approvals", {}, {})).calls;
  }

  /** Approves, denies or answers call `callId` of session `id`. */
  async decide(id: string, callId: string, decision: Decision): Promise<DecisionResult> {
    return this.#json("decide", { id, callId }, { body: decision });
  }

  /** Session `id`'s records after seq `after` (0: all) as they are journaled, then its end; `signal` stops the stream. */
  async *events(id: string, after = 0, signal?: AbortSignal): AsyncGenerator<SessionEvent> {
    const response = await this.#send(
      "events",
      { id },
      { headers: { "last-event-id": String(after), accept: "text/event-stream" }, ...(signal === undefined ? {} : { signal }) },
    );
    const events = (response.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
    for await (const event of events) {
      if (event.event === "record") yield { kind: "record", seq: Number(event.id), record: JSON.parse(event.data) as JournalRecord };
      else if (event.event === "end") yield { kind: "end", ...(JSON.parse(event.data) as { status: string; lastSeq: number }) };
      else if (event.event === "error") throw new ClientError(JSON.parse(event.data) as Problem);
    }
  }

  async #json<T>(name: keyof typeof CLIENT_ROUTES, params: Record<string, string>, request: Request_): Promise<T> {
    return (await (await this.#send(name, params, request)).json()) as T;
  }

  async #send(name: keyof typeof CLIENT_ROUTES, params: Record<string, string>, request: Request_): Promise<Response> {
    const { method, path } = CLIENT_ROUTES[name];
    const url = new URL(this.#base + path.replace(/\{(\w+)\}/g, (_, param: string) => encodeURIComponent(params[param] ?? "")));
    for (const [key, value] of Object.entries(request.query ?? {})) url.searchParams.set(key, value);
    const response = await (this.#options.fetch ?? fetch)(url, {
      method: method.toUpperCase(),
      headers: { ...this.#options.headers, ...request.headers, ...(request.body === undefined ? {} : { "content-type": "application/json" }) },
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
      ...(request.signal === undefined ? {} : { signal: request.signal }),
    });
    if (!response.ok) throw new ClientError((await response.json()) as Problem);
    return response;
  }
}

interface Request_ {
  body?: unknown;
  headers?: Record<string, string>;
  query?: Record<string, string>;
  signal?: AbortSignal;
}
