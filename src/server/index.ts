// `fisk-ai/server`: the HTTP API as a fetch-style handler, to mount in a program's own server (docs/server.md).
export { createServer, DEFAULT_BODY_LIMIT, type FiskServer } from "./create-server.js";
export { DEFAULT_TENANT, LOCAL_PRINCIPAL, localOnly, ROLES, type Authenticate, type Principal, type Role } from "./principal.js";
export { SERVER_ERROR_CODES, ServerError, type Problem, type ServerErrorCode } from "./problem.js";
export type { ServedAgent, ServerOptions } from "./server-context.js";
export { ConsoleTickets, type Ticket } from "./console/console-tickets.js";
export { openConsoleTickets } from "./console/open-console.js";
