// The library API: everything a program needs to journal, fold and store runs.
export { RunStateError, isRunStateError, ERROR_CODES, type RunStateErrorCode } from "./runstate/errors.js";
export * from "./runstate/records.js";
export { fold, assertReadableVersion, type RunState, type Counters, type PendingBatch } from "./runstate/fold.js";
export { newRunId, assertRunId, isValidRunId, ksuidFrom } from "./runstate/run-id.js";
export type { Store, Journal, RunSummary, RunStatus, RunHolder } from "./runstate/store.js";
export { createStore, type StoreConfig, type FileStoreConfig, type MemoryStoreConfig, type JetStreamStoreConfig } from "./runstate/create-store.js";
export * as storeContract from "./runstate/store-contract.js";
export { MemoryStore, type MemoryStoreOptions, type MemoryRun } from "./runstate/memory/memory-store.js";
export { encodeRecord, decodeRecordLine, decodeJournal, type DecodedJournal } from "./runstate/journal-codec.js";
export { FileStore, type FileStoreOptions } from "./runstate/file/file-store.js";
export { defaultStateDir } from "./runstate/file/state-dir.js";
export type { FileSystem, FileStat } from "./runstate/file/file-system.js";
export { nodeFileSystem } from "./runstate/file/file-system.js";
export { NoteError, type NoteStore, type Note, type NoteItem, type NoteErrorCode, type WriteOutcome } from "./memory/note-store.js";
export { FileNoteStore, memoryDir } from "./memory/file-note-store.js";
export { memoryTools } from "./memory/memory-tools.js";
