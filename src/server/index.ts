// `fisk-ai/server`: the HTTP API as a fetch-style handler, to mount in a program's own server (docs/server.md).
export { createServer, DEFAULT_BODY_LIMIT, type FiskServer } from "./create-server.js";
export { LOCAL_PRINCIPAL, localOnly, ROLES, type Authenticate, type Principal, type Role } from "./principal.js";
export { DEFAULT_TENANT } from "../runstate/store/tenant.js";
export { SERVER_ERROR_CODES, ServerError, type Problem, type ServerErrorCode } from "./problem.js";
export type { ServedAgent, ServerOptions } from "./server-context.js";
export { ConsoleTickets, type Ticket } from "./console/console-tickets.js";
export { openConsoleTickets } from "./console/open-console.js";
export { keyAuthenticator, KeySet } from "./auth/key-authenticator.js";
export { watchKeyFile, type KeyFileAuth, type WatchKeyFileOptions } from "./auth/key-file-watch.js";
export { hostGuard, loopbackHosts, type RequestCheck } from "./auth/host-guard.js";
export { localAuthenticator } from "./auth/local-authenticator.js";
export { TextDeltas } from "./text-deltas.js";
