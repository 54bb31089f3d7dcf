// The library API. Run an agent with runAgent and tools from defineTool; journal it to a
// store from createStore (or a FileStore, MemoryStore); read a session back with fold.
// The journal's records, codec and store contract are at "fisk-ai/journal", for those who
// write a backend or read journals record by record; the conformance suites at
// "fisk-ai/conformance"; MCP servers' tools at "fisk-ai/mcp"; OpenTelemetry traces of runs at
// "fisk-ai/telemetry". What only the CLI needs stays out of every entry point.

// Running an agent: runAgent with an agent.yaml's settings (loadAgent) or the library's own, and what it reports.
export { runAgent, COMPACT, type RunAgentOptions, type RunSession, type RunContext, type AgentOutcome } from "./agent/run-agent.js";
export { agentSpec, type AgentOptions, type AgentSpec, type AgentBudget, type AgentRetry, type CompactionOff } from "./agent/agent-spec.js";
export { loadAgent, type LoadedAgent, type LoadAgentOptions } from "./config/load-agent.js";
export type { ConfigOverrides } from "./config/agent-config.js";
export type { AgentEvents, ChildRunHooks, RunOutcome } from "./agent/events.js";
export {
  ConfigError,
  ResumeRefusedError,
  CompactionError,
  type CompactionRefusal,
  type ResumeLimit,
  type ResumeRefusal,
  type ResumeRefusedDetails,
} from "./agent/agent-errors.js";

// Tools the model calls: defineTool for your own, sub-agents as tools, a question to the user.
export {
  defineTool,
  CRASH_POLICIES,
  type Tool,
  type ToolOutput,
  type ToolContext,
  type CrashPolicy,
  type ConfirmCall,
  type JsonSchema,
  type ToolDefinition,
  type CallingRun,
  type CallDeciders,
  type TreeBudget,
  type ChildRunStart,
} from "./tools/tool.js";
export type { ConfirmToolCall } from "./tools/tool-set.js";
export { agentTool, DEFAULT_MAX_DEPTH, type AgentToolDefinition, type ChildAgent, type ChildAgentOptions } from "./agent/agent-tool.js";
export { askUserTool } from "./tools/ask-user.js";

// Recorded sessions as regression tests: a new agent replayed against a journal (docs/replay.md).
export { replaySession, type ReplayAgent, type ReplayJournal, type ReplayOptions } from "./replay/replay-session.js";
export type { ReplayForkOptions } from "./replay/replay-fork.js";
export type { KeyOptions } from "./trust/installation-keys.js";
export { replaySessions, type ReplaySessionsOptions } from "./replay/replay-sessions.js";
export type { RelaxedArguments } from "./replay/call-matching.js";
export type {
  ReplayReport,
  ReplayFork,
  Departure,
  DepartureKind,
  ReplayUsage,
  TurnSide,
  ShownCall,
  TextDifference,
  JudgeVerdict,
} from "./replay/replay-report.js";
export type { ReplayJudge } from "./replay/replay-judge.js";

// Model providers.
export { AnthropicProvider, type AnthropicProviderOptions } from "./llm/anthropic-provider.js";
export { OpenAIProvider, type OpenAIProviderOptions, type MaxTokensParam } from "./llm/openai-provider.js";
export { ScriptProvider, type ScriptSource } from "./llm/script-provider.js";
export {
  ModelCallError,
  type ModelProvider,
  type ModelRequest,
  type ModelTurn,
  type ModelUsage,
  type ProviderName,
  type ThinkingConfig,
  type ToolSpec,
} from "./llm/model-provider.js";

// Approvals: the calls a run parked for a person, and the decisions that release them.
export type { AskUser } from "./agent/approvals.js";
export { approve, deny, answer, type DecideOptions, type DecisionResult } from "./session/decide-calls.js";
export { createKeyring, keyringLocation, readKeyring, removeKey, rotateKey, type Keyring } from "./trust/keyring.js";
export { TrustError, type TrustErrorCode } from "./trust/trust-error.js";
export { listPending, waitingCalls, type WaitingCall } from "./agent/waiting-calls.js";
export { DecisionRefusedError, type DecisionRefusal } from "./agent/agent-errors.js";

// Errors: every error the library throws is a FiskError with a typed code.
export { FiskError, isFiskError, type FiskErrorDetails } from "./errors/fisk-error.js";
export { RunStateError, isRunStateError, ERROR_CODES, type RunStateErrorCode, type RunStateErrorDetails } from "./runstate/errors.js";

// Sessions: a journal read back (fold), and what can be done with a stored session.
export type { JournalRecord, MetaRecord, Message } from "./runstate/records/records.js";
export { fold, type RunState } from "./runstate/views/fold.js";
export { newRunId } from "./runstate/records/run-id.js";
export { listSessions, resumableSessions, type SessionListing } from "./session/list-sessions.js";
export { showSession, type ShownSession, type ShownApproval, type ShowSessionOptions } from "./session/show-session.js";
export type { RunTally } from "./runstate/views/run-tally.js";
export type { SessionNode } from "./ledger/session-tree.js";
export type { UncountedDecision } from "./trust/counted-decisions.js";
export { titleSession } from "./session/session-title.js";
export { exportJournal, importJournal, forkSession, type ExportedJournal, type Fork, type ImportOptions, type JournalSource } from "./session/transfer.js";
export { moveSession, type MoveOutcome, type MoveStep } from "./session/move-session.js";
export { compactSession, undoCompaction, type CompactSessionOptions, type UndoneCompaction } from "./session/compact-session.js";
export { KNOWN_CONTEXT_WINDOWS, type CompactionOptions, type CompactionSettings } from "./agent/compaction.js";
export { planPrune, PROTECTED_STATUSES, type PruneFilters, type PrunePlan } from "./session/prune-plan.js";
export { pruneSessions, type PruneResult } from "./session/prune-sessions.js";
export { sessionStats, type SessionStats, type SessionStatsOptions, type StatsBy, type StatsGroup } from "./session/session-stats.js";
export { diskUse, type DiskUse } from "./session/disk-use.js";
export { verifySession, type SessionCheck } from "./session/verify-session.js";
export type { JournalProblem, JournalProblemKind } from "./runstate/views/journal-verify.js";
export { searchJournal, SearchText, type SearchHit, type SearchField } from "./session/journal-search.js";
export { searchSessions, type FoundSession } from "./session/search-sessions.js";

// Cost: tokens and money by model, read from the journals.
export { ledgerOf, callsOf, tokensOf, type Ledger, type LedgerLine, type PricedCall } from "./ledger/ledger.js";
export type { TreeCost, ChildCost } from "./ledger/tree-ledger.js";
export { priceOf, costOf, SHIPPED_PRICES, PRICES_AS_OF, type ModelPrice, type PriceTable } from "./ledger/prices.js";

// Stores: where sessions are journaled.
export type { Store, Journal, JournalBytes, RunSummary, RunStatus } from "./runstate/store/store.js";
export { PRUNABLE_STATUSES } from "./runstate/store/store.js";
export type { RunHolder } from "./runstate/store/run-holder.js";
export { openBackend, createStore } from "./backends/open-backend.js";
export type { StoreConfig, FileStoreConfig, MemoryStoreConfig, JetStreamStoreConfig, PostgresStoreConfig, UrlStoreConfig } from "./backends/store-config.js";
export { registerBackend } from "./backends/registry.js";
export { parseStoreUrl } from "./backends/store-url.js";
export { isStoreUrl } from "./backends/url-form.js";
export { BackendError, type BackendErrorCode } from "./backends/backend-errors.js";
export { maskUrlCredentials } from "./errors/masked-url.js";
export type { Backend, BackendFactory, BackendOptions } from "./backends/backend.js";
export { MemoryStore, type MemoryStoreOptions } from "./backends/memory/memory-store.js";
export { MemoryQueue, type MemoryQueueOptions } from "./backends/memory/memory-queue.js";
export { FileStore, type FileStoreOptions } from "./backends/file/file-store.js";
export { defaultStateDir } from "./runstate/state-dir.js";

// Memory: the notes a model keeps between sessions.
export { NoteError, type NoteStore, type Note, type NoteItem, type NoteErrorCode, type WriteOutcome } from "./memory/note-store.js";
export { FileNoteStore, memoryDir } from "./memory/file-note-store.js";
export { memoryTools } from "./memory/memory-tools.js";

// Workers and queues: runs submitted to a queue and driven by a pool of workers.
export { Worker, WORKER_DEFAULTS, type WorkerDefaults, type WorkerAgent, type WorkerEvents, type WorkerOptions } from "./pool/worker.js";
export type { Settled } from "./pool/drive-claimed.js";
export {
  submitRun,
  submitFollowUp,
  requestSuspend,
  queueSession,
  IF_RUNNING,
  type IfRunning,
  type SubmitRunOptions,
  type SubmitStart,
} from "./pool/submit-run.js";
export { awaitSubmitted, type AwaitOptions } from "./pool/await-submitted.js";
export { withdrawRun, type Withdrawn } from "./pool/withdraw-run.js";
export { FileQueue, fileQueueDir, type FileQueueOptions } from "./backends/file/file-queue.js";
export type { RunQueue, QueuedRun, QueueWatch, Claim, Accepts, EnqueueOptions, WaitingFollowUp } from "./queue/run-queue.js";
export { QUEUE_ENTRY_MAX_BYTES } from "./queue/run-queue.js";
export type { QuarantinedEntry, QuarantineListener } from "./queue/quarantine.js";

// The service's keys and tenants: who may call `fisk-ai serve`, and whose sessions they see.
export type { Authenticate, Principal, Role } from "./server/principal.js";
export { AuthError, type AuthErrorCode } from "./server/auth/auth-error.js";
export { loadKeyFile, keyHash, type KeyEntry } from "./server/auth/key-file.js";
export { ROLES } from "./server/principal.js";
export { keyAuthenticator, KeySet } from "./server/auth/key-authenticator.js";
export { watchKeyFile, type KeyFileAuth, type WatchKeyFileOptions } from "./server/auth/key-file-watch.js";
export { newApiKey, KEY_PREFIX, type KeyFileEntry, type NewApiKey } from "./server/auth/new-key.js";
export { hostGuard, loopbackHosts, type RequestCheck } from "./server/auth/host-guard.js";
export { listenAllowed, isLoopback } from "./server/auth/listen-allowed.js";
export { localAuthenticator } from "./server/auth/local-authenticator.js";
export { DEFAULT_TENANT, SESSION_NAME_MAX_LENGTH, tenantOf, tenantRunId } from "./runstate/store/tenant.js";
export { tenantStore } from "./backends/tenant-store.js";
export { tenantQueue } from "./queue/tenant-queue.js";
