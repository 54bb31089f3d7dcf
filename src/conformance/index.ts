// fisk-ai/conformance: the Store contract as a node:test suite, for any backend's own
// tests, with the record builders and hostile ids it uses.
export { runStoreConformance, type StoreCapabilities, type StoreHarness } from "./store-conformance.js";
export * from "./record-builders.js";
export { HOSTILE_IDS } from "./hostile-ids.js";
export { BAD_NOTE_KEYS, runNoteStoreConformance, type NoteStoreHarness } from "./note-store-conformance.js";
