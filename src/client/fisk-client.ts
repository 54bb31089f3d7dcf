// A typed client of `fisk-ai serve`'s API (fisk-ai/client): each method one route of
// CLIENT_ROUTES, whose methods and paths a test holds to /openapi.json, with the request
// and response types of the schemas the server validates with. Errors are ClientError,
// carrying the server's problem document.
import { EventSourceParserStream } from "eventsource-parser/stream";
import type {
  Agent,
  Decision,
  DecisionResult,
  JournalRecord,
  Outcome,
  Problem,
  QueueEntry,
  QueueItem,
  Records,
  Session,
  SessionList,
  SessionOverview,
  SessionQuery,
  StartRun,
  StoreEvent,
  WaitingCall,
  WorkerStatus,
} from "./api-types.js";

export type * from "./api-types.js";

/** The routes the client calls, as /openapi.json names them. */
export const CLIENT_ROUTES = {
  startRun: { method: "post", path: "/v1/runs" },
  followUp: { method: "post", path: "/v1/sessions/{id}/follow-ups" },
  suspend: { method: "post", path: "/v1/sessions/{id}/suspend" },
  wait: { method: "get", path: "/v1/sessions/{id}/wait" },
  events: { method: "get", path: "/v1/sessions/{id}/events" },
  approvals: { method: "get", path: "/v1/approvals" },
  decide: { method: "post", path: "/v1/sessions/{id}/calls/{callId}/decision" },
  decideAll: { method: "post", path: "/v1/sessions/{id}/decision" },
  agents: { method: "get", path: "/v1/agents" },
  agent: { method: "get", path: "/v1/agents/{name}" },
  sessions: { method: "get", path: "/v1/sessions" },
  session: { method: "get", path: "/v1/sessions/{id}" },
  records: { method: "get", path: "/v1/sessions/{id}/records" },
  remove: { method: "delete", path: "/v1/sessions/{id}" },
  fork: { method: "post", path: "/v1/sessions/{id}/fork" },
  compact: { method: "post", path: "/v1/sessions/{id}/compact" },
  rename: { method: "patch", path: "/v1/sessions/{id}" },
  exportSession: { method: "get", path: "/v1/sessions/{id}/export" },
  importSession: { method: "post", path: "/v1/sessions/import" },
  queue: { method: "get", path: "/v1/queue" },
  workers: { method: "get", path: "/v1/workers" },
  storeEvents: { method: "get", path: "/v1/events" },
  metrics: { method: "get", path: "/metrics" },
} as const;

/** A request the server refused or failed: its status and problem document. */
export class ClientError extends Error {
  /** Always `"ClientError"`. */
  override readonly name = "ClientError";
  /** The HTTP status the server answered with. */
  readonly status: number;
  /** The server's problem document. */
  readonly problem: Problem;

  constructor(problem: Problem) {
    super(`${problem.code}: ${problem.detail}`);
    this.status = problem.status;
    this.problem = problem;
  }
}

/** One event of a session's stream: a record (its seq the event's id), the model's text as it streams, or the end of the run's part. */
export type SessionEvent =
  | {
      /** A record was journaled. */
      kind: "record";
      /** The record's seq. */
      seq: number;
      /** The record. */
      record: JournalRecord;
    }
  | {
      /** The model's text as it streams (not journaled: the turn's record follows). */
      kind: "delta";
      /** The text since the last delta. */
      text: string;
    }
  | {
      /** The run's part ended. */
      kind: "end";
      /** How it ended. */
      status: string;
      /** The seq of the session's last record. */
      lastSeq: number;
    };

/** How the client reaches the server. */
export interface ClientOptions {
  /** Sent with every request (an Authorization header). */
  headers?: Record<string, string>;
  /** The fetch it calls (default: the global one). */
  fetch?: typeof fetch;
}

/** A client of `fisk-ai serve`: each method one route of its API; errors are ClientError. */
export class FiskClient {
  readonly #base: string;
  readonly #options: ClientOptions;

  /** A client of the server at `baseUrl` (`http://127.0.0.1:7474`). */
  constructor(baseUrl: string, options: ClientOptions = {}) {
    this.#base = baseUrl.replace(/\/$/, "");
    this.#options = options;
  }

  /** Starts a session; with `idempotencyKey`, at most once for that key (`replayed` says it was started before). */
  async startRun(
    body: StartRun,
    idempotencyKey?: string,
  ): Promise<{
    /** The session started. */
    runId: string;
    /** It was started before, with this key. */
    replayed: boolean;
  }> {
    return this.#json("startRun", {}, { body, headers: idempotencyKey === undefined ? {} : { "idempotency-key": idempotencyKey } });
  }

  /** Queues a follow-up prompt to session `id`. */
  async followUp(
    id: string,
    prompt: string,
    ifRunning: "queue" | "reject" | "interrupt" = "queue",
  ): Promise<{
    /** The session. */
    runId: string;
  }> {
    return this.#json("followUp", { id }, { body: { prompt, ifRunning } });
  }

  /** Asks the pool to suspend session `id`'s run at its next boundary (404: no run of it in the pool; 409: parked). */
  async suspend(id: string): Promise<{
    /** The session. */
    runId: string;
  }> {
    return this.#json("suspend", { id }, {});
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

  /** Approves or denies every call session `id` waits on, or answers its one question. */
  async decideAll(id: string, decision: Decision): Promise<DecisionResult> {
    return this.#json("decideAll", { id }, { body: decision });
  }

  /** The agents served. */
  async agents(): Promise<Agent[]> {
    return (await this.#json<{ agents: Agent[] }>("agents", {}, {})).agents;
  }

  /** One agent. */
  async agent(name: string): Promise<Agent> {
    return this.#json("agent", { name }, {});
  }

  /** A page of sessions, newest first; `query.cursor` is the `next` of the page before. */
  async sessions(query: SessionQuery = {}): Promise<SessionList> {
    return this.#json(
      "sessions",
      {},
      { query: Object.fromEntries(Object.entries(query).filter((entry): entry is [string, string] => entry[1] !== undefined)) },
    );
  }

  /** One session: summary, cost per call and total, children, waiting calls. */
  async session(id: string): Promise<SessionOverview> {
    return this.#json("session", { id }, {});
  }

  /** The records of session `id` after seq `after` and before `before`, at most `limit`. */
  async records(id: string, window: { after?: number; before?: number; limit?: number } = {}): Promise<Records> {
    return this.#json("records", { id }, { query: Object.fromEntries(Object.entries(window).map(([key, value]) => [key, String(value)])) });
  }

  /** Removes session `id` and its child sessions. */
  async remove(id: string): Promise<string[]> {
    return (await this.#json<{ removed: string[] }>("remove", { id }, {})).removed;
  }

  /** Copies session `id` through seq `at` (its last by default) as a new session. */
  async fork(
    id: string,
    options: { at?: number | undefined; name?: string | undefined } = {},
  ): Promise<{
    /** The new session. */
    runId: string;
    /** The seq it was copied through. */
    at: number;
  }> {
    return this.#json("fork", { id }, { body: options });
  }

  /** Compacts session `id` with its agent's model. */
  async compact(id: string): Promise<unknown[]> {
    return (await this.#json<{ compactions: unknown[] }>("compact", { id }, {})).compactions;
  }

  /** Titles session `id`. */
  async rename(id: string, title: string): Promise<Session> {
    return this.#json("rename", { id }, { body: { title } });
  }

  /** Session `id`'s journal: the bytes `fisk-ai session export` writes. */
  async exportSession(id: string): Promise<Uint8Array> {
    return new Uint8Array(await (await this.#send("exportSession", { id }, {})).arrayBuffer());
  }

  /** Imports an exported journal, under its own id or as a copy named `name`. */
  async importSession(journal: Uint8Array, name?: string): Promise<string> {
    const response = await this.#send(
      "importSession",
      {},
      { raw: journal, headers: { "content-type": "application/x-ndjson" }, query: name === undefined ? {} : { name } },
    );
    return ((await response.json()) as { runId: string }).runId;
  }

  /** The runs of the worker pool's queue. */
  async queue(): Promise<QueueItem[]> {
    return (await this.#json<{ runs: QueueItem[] }>("queue", {}, {})).runs;
  }

  /** The processes driving runs now. */
  async workers(): Promise<WorkerStatus[]> {
    return (await this.#json<{ workers: WorkerStatus[] }>("workers", {}, {})).workers;
  }

  /** The server's metrics in Prometheus's text format (an admin's). */
  async metrics(): Promise<string> {
    return (await this.#send("metrics", {}, {})).text();
  }

  /** Session `id`'s records after seq `after` (0: all) as they are journaled, then its end; `signal` stops the stream. */
  async *events(id: string, after = 0, signal?: AbortSignal): AsyncGenerator<SessionEvent> {
    for await (const event of this.#stream("events", { id }, { "last-event-id": String(after) }, signal)) {
      if (event.event === "record") yield { kind: "record", seq: Number(event.id), record: JSON.parse(event.data) as JournalRecord };
      else if (event.event === "delta") yield { kind: "delta", text: (JSON.parse(event.data) as { text: string }).text };
      else if (event.event === "end") yield { kind: "end", ...(JSON.parse(event.data) as { status: string; lastSeq: number }) };
    }
  }

  /** The queue as it is, then its changes, until `signal` aborts. */
  async *storeEvents(signal?: AbortSignal): AsyncGenerator<StoreEvent> {
    for await (const event of this.#stream("storeEvents", {}, {}, signal)) {
      if (event.event === "snapshot") yield { kind: "snapshot", entries: JSON.parse(event.data) as QueueEntry[] };
      else if (event.event === "left") yield { kind: "left", ...(JSON.parse(event.data) as { runId: string; status: string; lastSeq: number }) };
      else if (event.event === "queued" || event.event === "parked") yield { kind: event.event, entry: JSON.parse(event.data) as QueueEntry };
    }
  }

  /** The events of an SSE route; an `error` event is thrown as a ClientError, pings are skipped. */
  async *#stream(name: keyof typeof CLIENT_ROUTES, params: Record<string, string>, headers: Record<string, string>, signal: AbortSignal | undefined) {
    const response = await this.#send(name, params, { headers: { ...headers, accept: "text/event-stream" }, ...(signal === undefined ? {} : { signal }) });
    const events = (response.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
    for await (const event of events) {
      if (event.event === "error") throw new ClientError(JSON.parse(event.data) as Problem);
      if (event.event !== "ping") yield event;
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
      headers: { ...this.#options.headers, ...(request.body === undefined ? {} : { "content-type": "application/json" }), ...request.headers },
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
      ...(request.raw === undefined ? {} : { body: request.raw }),
      ...(request.signal === undefined ? {} : { signal: request.signal }),
    });
    if (!response.ok) throw new ClientError((await response.json()) as Problem);
    return response;
  }
}

interface Request_ {
  body?: unknown;
  /** A body sent as it is. */
  raw?: Uint8Array;
  headers?: Record<string, string>;
  query?: Record<string, string>;
  signal?: AbortSignal;
}
