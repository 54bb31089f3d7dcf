// Every error the server answers with, as RFC 9457 problem details
// (application/problem+json) carrying fisk-ai's error code: the library's errors keep
// their codes, the server's own (bad input, keys, roles, limits) are ServerError's.
import { HTTPException } from "hono/http-exception";
import { DecisionRefusedError } from "../agent/agent-errors.js";
import { FiskError, isFiskError } from "../errors/fisk-error.js";

/**
 * Every ServerError `code`:
 * - `ERR_BAD_REQUEST`: the request is not what the route takes (malformed JSON, a wrong type, an unknown field, a bad id).
 * - `ERR_UNAUTHENTICATED`: no credentials, or credentials no key matches.
 * - `ERR_FORBIDDEN`: the key lacks the role the route needs.
 * - `ERR_NO_ROUTE`: no route has that method and path.
 * - `ERR_TOO_LARGE`: a body over the route's limit.
 * - `ERR_UNSUPPORTED_MEDIA`: a body that is not of the media type the route takes.
 * - `ERR_NO_AGENT`: no configured agent of that name.
 * - `ERR_IDEMPOTENCY`: an Idempotency-Key used before with another request.
 * - `ERR_TOO_MANY_STREAMS`: the server's cap of open event streams is reached.
 * - `ERR_INTERNAL`: the server failed; its log says why, the response does not.
 */
export const SERVER_ERROR_CODES = [
  "ERR_BAD_REQUEST",
  "ERR_UNAUTHENTICATED",
  "ERR_FORBIDDEN",
  "ERR_NO_ROUTE",
  "ERR_TOO_LARGE",
  "ERR_UNSUPPORTED_MEDIA",
  "ERR_NO_AGENT",
  "ERR_IDEMPOTENCY",
  "ERR_TOO_MANY_STREAMS",
  "ERR_INTERNAL",
] as const;

/** One of SERVER_ERROR_CODES. */
export type ServerErrorCode = (typeof SERVER_ERROR_CODES)[number];

const SERVER_STATUS: Record<ServerErrorCode, number> = {
  ERR_BAD_REQUEST: 400,
  ERR_UNAUTHENTICATED: 401,
  ERR_FORBIDDEN: 403,
  ERR_NO_ROUTE: 404,
  ERR_TOO_LARGE: 413,
  ERR_UNSUPPORTED_MEDIA: 415,
  ERR_NO_AGENT: 404,
  ERR_IDEMPOTENCY: 422,
  ERR_TOO_MANY_STREAMS: 503,
  ERR_INTERNAL: 500,
};

/** An error of the server itself, answered with its status. */
export class ServerError extends FiskError<ServerErrorCode> {
  /** Always `"ServerError"`. */
  override readonly name = "ServerError";
  /** The HTTP status it is answered with. */
  readonly status: number;
  /** Members added to the problem document (the issues of a failed validation). */
  readonly extra: Record<string, unknown>;

  constructor(code: ServerErrorCode, message: string, extra: Record<string, unknown> = {}) {
    super(code, message);
    this.status = SERVER_STATUS[code];
    this.extra = extra;
  }
}

/** The status of each library error code the server answers with; any other is a 500. */
const LIBRARY_STATUS: Record<string, number> = {
  ERR_NOT_FOUND: 404,
  ERR_INVALID_ID: 400,
  ERR_EXISTS: 409,
  ERR_LOCKED: 409,
  ERR_NO_SEQ: 422,
  ERR_CORRUPT: 422,
  ERR_VERSION: 422,
  ERR_EMPTY: 422,
  ERR_NO_META: 422,
  ERR_INVALID_RECORD: 422,
  ERR_MOVED: 410,
  ERR_IO: 503,
  ERR_CLOSED: 503,
  ERR_COMPACTION: 409,
  ERR_RESUME_REFUSED: 409,
};

/** A decision refused because of the call's state (decided, not waiting) is a conflict; one the request got wrong is not. */
function decisionStatus(error: DecisionRefusedError): number {
  return error.refusal === "wrong-kind" || error.refusal === "ambiguous" ? 422 : 409;
}

/** The media type of every error response. */
export const PROBLEM_TYPE = "application/problem+json";

/** A problem document: RFC 9457's members, fisk-ai's code, and the session it is about. */
export interface Problem {
  /** A URI naming the kind of problem. */
  type: string;
  /** A short summary of the kind of problem. */
  title: string;
  /** The HTTP status it was answered with. */
  status: number;
  /** What went wrong, for a person to read. */
  detail: string;
  /** fisk-ai's error code (docs/server.md). */
  code: string;
  /** The run the error is of, when it is of one. */
  runId?: string;
  [extension: string]: unknown;
}

/** The problem document an error is answered with; `onInternal` hears of errors that are the server's own fault. */
export function problemOf(error: unknown, onInternal: (error: unknown) => void): Problem {
  if (error instanceof ServerError) return document(error.status, error.code, error.message, error.extra);
  if (error instanceof DecisionRefusedError) return document(decisionStatus(error), error.code, error.message, { runId: error.runId, refusal: error.refusal });
  if (isFiskError(error) && LIBRARY_STATUS[error.code] !== undefined) {
    return document(LIBRARY_STATUS[error.code] as number, error.code, error.message, error.runId === undefined ? {} : { runId: error.runId });
  }
  if (error instanceof HTTPException && error.status < 500) return httpProblem(error);
  onInternal(error);
  return document(500, "ERR_INTERNAL", "the server failed to answer this request; its log says why");
}

/** Hono's own refusals (a body that does not parse, one over the limit) under fisk-ai's codes. */
function httpProblem(error: HTTPException): Problem {
  if (error.status === 413) return document(413, "ERR_TOO_LARGE", "the request's body is over this route's limit");
  if (error.status === 415) return document(415, "ERR_UNSUPPORTED_MEDIA", "send the body as application/json");
  if (error.status === 401) return document(401, "ERR_UNAUTHENTICATED", error.message);
  return document(error.status, "ERR_BAD_REQUEST", error.message === "" ? "the request cannot be read" : error.message);
}

function document(status: number, code: string, detail: string, extra: Record<string, unknown> = {}): Problem {
  return { type: `urn:fisk-ai:error:${code}`, title: code, status, detail, code, ...extra };
}

/** The response that carries `problem`. */
export function problemResponse(problem: Problem): Response {
  return new Response(JSON.stringify(problem), { status: problem.status, headers: { "content-type": PROBLEM_TYPE } });
}
