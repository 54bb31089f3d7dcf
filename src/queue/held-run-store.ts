// The store a worker drives a claimed run through: the claim already holds the run's
// journal (the store's exclusive hold), so opening that run hands over the held journal
// instead of taking a second hold, and closing it leaves the hold to the claim, which
// settles the queue entry before it lets go. Everything else is the store's.
import type { Journal, Store } from "../runstate/store/store.js";
import { journalPieces } from "../runstate/store/journal-pieces.js";
import { wrapsStore } from "../trust/installation-keys.js";

export function heldRunStore(store: Store, held: Journal): Store {
  const kept: Journal = {
    get runId() {
      return held.runId;
    },
    get lastSeq() {
      return held.lastSeq;
    },
    append: (seq, entry) => held.append(seq, entry),
    records: () => held.records(),
    // The claim's finish, park or hand-back closes it, after the queue entry is settled.
    close: async () => undefined,
  };
  const wrapper: Store = {
    create: (runId, meta) => store.create(runId, meta),
    open: async (runId) => (runId === held.runId ? kept : store.open(runId)),
    load: (runId) => store.load(runId),
    list: () => store.list(),
    summarize: (runId) => store.summarize(runId),
    readRecords: (runId, fromSeq) => store.readRecords(runId, fromSeq),
    readJournal: (runId) => store.readJournal(runId),
    readJournalPieces: (runId) => journalPieces(store, runId),
    importJournal: (runId, journal) => store.importJournal(runId, journal),
    delete: (runId) => store.delete(runId),
    close: async () => undefined,
  };
  // As shared as the store it holds a run of: the run's decisions and meta are trusted as that store's are.
  return wrapsStore(wrapper, store);
}
