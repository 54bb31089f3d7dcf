// fisk-ai/conformance: the Store contract as a node:test suite, for any backend's own
// tests, with the record builders and hostile ids it uses.
export { runStoreConformance } from "./store-conformance.js";
export type { StoreCapabilities, StoreHarness } from "./store/suite.js";
export * from "./record-builders.js";
export { HOSTILE_IDS } from "./hostile-ids.js";
export { BAD_NOTE_KEYS, runNoteStoreConformance, type NoteStoreHarness } from "./note-store-conformance.js";
export { runQueueConformance, type QueueHarness, type QueueUnderTest } from "./queue-conformance.js";
export type { PlantAt, PlantedBad } from "./queue-quarantine-cases.js";
export type { QuarantinedEntry, QuarantineListener } from "../queue/quarantine.js";
export type { RunQueue, QueuedRun, QueueWatch, Claim, Accepts, WaitingFollowUp } from "../queue/run-queue.js";
