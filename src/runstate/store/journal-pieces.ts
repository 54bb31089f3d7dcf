// A stored journal's bytes in pieces, for readers that must not hold a large journal whole
// (verify, export): the store's own pieces when it reads them so, else its bytes as one.
import type { Store } from "./store.js";

/** The bytes of the run `runId` of `store`, as readJournal gives them, in pieces; the store's errors as it gives them. */
export async function* journalPieces(store: Store, runId: string): AsyncIterable<Uint8Array> {
  if (store.readJournalPieces !== undefined) yield* store.readJournalPieces(runId);
  else yield await store.readJournal(runId);
}
