// The library API. Run an agent with runAgent and tools from defineTool; journal it to a
// store from createStore (or a FileStore, MemoryStore); read a journal back with fold.
// The store conformance suite is at "fisk-ai/conformance".
export { runAgent, COMPACT, type RunAgentOptions, type AgentOutcome } from "./agent/run-agent.js";
export { agentTool, DEFAULT_MAX_DEPTH, type AgentToolDefinition, type ChildAgent, type ChildAgentOptions } from "./agent/agent-tool.js";
export { loadAgent, type LoadedAgent, type LoadAgentOptions } from "./config/load-agent.js";
export type { AgentRunOptions } from "./config/run-options.js";
export type { ConfigOverrides } from "./config/agent-config.js";
export type { AgentEvents, RunOutcome } from "./agent/events.js";
export type { AskUser } from "./agent/approvals.js";
export { approve, deny, answer, type DecideOptions, type DecisionResult } from "./agent/decide-calls.js";
export { listPending, waitingCalls, type WaitingCall } from "./agent/waiting-calls.js";
export { askUserTool } from "./tools/ask-user.js";
export { DecisionRefusedError, type DecisionRefusal } from "./agent/agent-errors.js";
export { ConfigError, ResumeRefusedError, CompactionError, type CompactionRefusal, type ResumeLimit, type ResumeRefusal, type ResumeRefusedDetails } from "./agent/agent-errors.js";
export { compactSession, undoCompaction, type CompactSessionOptions, type UndoneCompaction } from "./agent/compact-session.js";
export { KNOWN_CONTEXT_WINDOWS, type CompactionOptions } from "./agent/compaction.js";
export { defineTool, CRASH_POLICIES, type Tool, type ToolOutput, type ToolContext, type CrashPolicy, type ConfirmCall, type JsonSchema, type ToolDefinition, type CallingRun, type CallDeciders } from "./tools/tool.js";
export type { ConfirmToolCall } from "./tools/tool-set.js";

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

export { FiskError, isFiskError, type FiskErrorDetails } from "./errors/fisk-error.js";
export { RunStateError, isRunStateError, ERROR_CODES, type RunStateErrorCode, type RunStateErrorDetails } from "./runstate/errors.js";
export {
  RECORD_VERSION,
  PROTOCOLS,
  RECORD_KINDS,
  TERMINAL_REASONS,
  NEWEST_READABLE_VERSION,
  CHILD_RECORD_VERSION,
  RECORD_KIND_SINCE,
  COMPACTION_TRIGGERS,
  APPROVAL_KINDS,
  DECISIONS,
  ORIGIN_KINDS,
  TITLE_MAX_LENGTH,
  ANNOTATION_KINDS,
  RUN_ID_PATTERN,
  RUN_ID_MAX_LENGTH,
  checkRecord,
  kindOfProtocol,
  type RecordKind,
  type RecordCheck,
  type RecordEntry,
  type JournalRecord,
  type MetaRecord,
  type AssistantRecord,
  type ToolResultRecord,
  type UserRecord,
  type TerminalRecord,
  type MetaPayload,
  type ParentLink,
  type AssistantPayload,
  type ToolResultPayload,
  type UserPayload,
  type TerminalPayload,
  type TerminalReason,
  type CompactionRecord,
  type CompactionPayload,
  type CompactionUndoRecord,
  type CompactionUndoPayload,
  type TrimmedResult,
  type CompactionTrigger,
  type ApprovalRequestRecord,
  type ApprovalRequestPayload,
  type ApprovalDecisionRecord,
  type ApprovalDecisionPayload,
  type ResumedRecord,
  type ResumedPayload,
  type ApprovalKind,
  type Decision,
  type TitleRecord,
  type TitlePayload,
  type OriginRecord,
  type OriginPayload,
  type MovedRecord,
  type MovedPayload,
  type OriginKind,
  type Fingerprint,
  type Message,
  type AssistantMessage,
  type UserMessage,
  type TextBlock,
  type ThinkingBlock,
  type RedactedThinkingBlock,
  type ToolUseBlock,
  type ToolResultBlock,
  type ImageBlock,
  type ServerToolUseBlock,
  type OtherBlock,
} from "./runstate/records.js";
export { fold, foldStep, assertReadableVersion, type FoldState, type RunState, type Counters, type PendingBatch, type ApprovalState, type DecisionState, type CompactionState } from "./runstate/fold.js";
export { newRunId, assertRunId, isValidRunId, ksuidFrom, childRunId } from "./runstate/run-id.js";
export type { Store, Journal, RunSummary, RunStatus } from "./runstate/store.js";
export { digestOf, callOf, type RunDigest, type TokenUsage, type LedgerCall } from "./runstate/run-digest.js";
export { titleSession } from "./runstate/session-title.js";
export { ledgerOf, callsOf, tokensOf, type Ledger, type LedgerLine, type PricedCall } from "./ledger/ledger.js";
export { priceOf, costOf, SHIPPED_PRICES, PRICES_AS_OF, type ModelPrice, type PriceTable } from "./ledger/prices.js";
export { planPrune, PROTECTED_STATUSES, type PruneFilters, type PrunePlan } from "./ledger/prune-plan.js";
export { searchJournal, SearchText, type SearchHit, type SearchField } from "./ledger/journal-search.js";
export { PRUNABLE_STATUSES } from "./runstate/store.js";
export type { RunHolder } from "./runstate/run-holder.js";
export { createStore, type StoreConfig, type FileStoreConfig, type MemoryStoreConfig, type JetStreamStoreConfig } from "./runstate/create-store.js";
export * as storeContract from "./runstate/store-contract.js";
export { MemoryStore, type MemoryStoreOptions } from "./runstate/memory/memory-store.js";
export { encodeRecord, encodeRecordIn, decodeRecordLine, decodeJournal, JournalDecoder, type DecodedJournal } from "./runstate/journal-codec.js";
export { FileStore, type FileStoreOptions } from "./runstate/file/file-store.js";
export { defaultStateDir } from "./runstate/file/state-dir.js";
export { NoteError, type NoteStore, type Note, type NoteItem, type NoteErrorCode, type WriteOutcome } from "./memory/note-store.js";
export { FileNoteStore, memoryDir } from "./memory/file-note-store.js";
export { memoryTools } from "./memory/memory-tools.js";
export { Worker, WORKER_DEFAULTS, type WorkerDefaults, type WorkerAgent, type WorkerEvents, type WorkerOptions } from "./pool/worker.js";
export type { Settled } from "./pool/drive-claimed.js";
export { submitRun, submitFollowUp, queueSession, type SubmitRunOptions, type SubmitStart } from "./pool/submit-run.js";
export { awaitSubmitted, type AwaitOptions } from "./pool/await-submitted.js";
export { FileQueue, fileQueueDir, type FileQueueOptions } from "./queue/file-queue.js";
export { queueFor } from "./queue/create-queue.js";
export type { RunQueue, QueuedRun, Claim, Accepts } from "./queue/run-queue.js";
