// The console's one door to `fisk-ai serve`: every request goes through `call`, which sends the
// session cookie and the CSRF token and turns a problem+json answer into an ApiProblem.

/** An RFC 9457 problem the server answered with. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string,
    readonly code: string | undefined,
  ) {
    super(detail || title);
  }
}

let csrfToken = "";

export function setCsrfToken(token: string): void {
  csrfToken = token;
}

const CHANGES = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (CHANGES.has(method)) headers["x-csrf-token"] = csrfToken;
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(path, {
    method,
    headers,
    credentials: "same-origin",
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (response.status === 204) return undefined as T;
  const type = response.headers.get("content-type") ?? "";
  const data: unknown = type.includes("json") ? await response.json() : await response.text();
  if (!response.ok) {
    const problem = (typeof data === "object" && data !== null ? data : {}) as Record<string, unknown>;
    throw new ApiProblem(
      response.status,
      String(problem.title ?? response.statusText),
      String(problem.detail ?? (typeof data === "string" ? data : "")),
      typeof problem.code === "string" ? problem.code : undefined,
    );
  }
  return data as T;
}

/** A query string of the values that are set. */
export function query(values: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) if (value !== undefined && value !== "") params.set(name, String(value));
  const text = params.toString();
  return text === "" ? "" : `?${text}`;
}
