// `fisk-ai/client`: a typed client of `fisk-ai serve` (docs/server.md).
export { ClientError, CLIENT_ROUTES, FiskClient } from "./fisk-client.js";
export type {
  Agent,
  ClientOptions,
  Decision,
  DecisionResult,
  JournalRecord,
  Outcome,
  Problem,
  QueueItem,
  Records,
  Session,
  SessionEvent,
  SessionList,
  SessionOverview,
  SessionQuery,
  StartRun,
  StoreEvent,
  WaitingCall,
} from "./fisk-client.js";
