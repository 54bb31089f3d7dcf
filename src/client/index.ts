// `fisk-ai/client`: a typed client of `fisk-ai serve` (docs/server.md).
export { ClientError, CLIENT_ROUTES, FiskClient } from "./fisk-client.js";
export type { ClientOptions, Decision, DecisionResult, JournalRecord, Outcome, Problem, SessionEvent, StartRun, WaitingCall } from "./fisk-client.js";
