// `fisk-ai/client`: a typed client of `fisk-ai serve` (docs/server.md).
export { ClientError, FiskClient } from "./fisk-client.js";
export type {
  Agent,
  ClientOptions,
  Decision,
  DecisionResult,
  JournalRecord,
  Outcome,
  Problem,
  QueueEntry,
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
  Worker,
  WorkerStatus,
} from "./fisk-client.js";
