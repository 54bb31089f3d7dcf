// The child sessions a transcript folds in after the calls that started them: found in the
// summaries of the store (a child's meta names its parent and the call), and read, when a
// reader opens one, through the same TranscriptReader as the parent, so its own children
// fold into it in turn.
import type { JournalRecord } from "../runstate/records/records.js";
import type { RunSummary, Store } from "../runstate/store/store.js";
import { trustedKeys, type Keyring } from "../trust/keyring.js";
import { nameText } from "./session-name.js";
import { TranscriptReader, type ChildLinks, type TranscriptEntry } from "./transcript-entries.js";

/**
 * The child sessions of `runId`'s calls by call id: its own, and for a fork those of the
 * session it was forked from, whose calls it copied (a call of its own comes first).
 */
function childLinksOf(summaries: readonly RunSummary[], runId: string): ChildLinks {
  const origin = summaries.find((summary) => summary.runId === runId)?.digest?.origin?.run_id;
  const links = new Map<string, { runId: string; status: string; title: string }>();
  for (const parent of origin === undefined ? [runId] : [runId, origin]) {
    for (const summary of summaries) {
      const link = summary.meta?.parent;
      if (link?.run_id !== parent || links.has(link.call_id)) continue;
      links.set(link.call_id, { runId: summary.runId, status: summary.status, title: nameText(summary) });
    }
  }
  return links;
}

/** The store's summaries, listed once for every transcript of a tree that is read. */
export class ChildSessions {
  readonly #store: Store;
  readonly #keyring: Keyring;
  #summaries: Promise<RunSummary[]> | undefined;

  /** `keyring`: the keys a decision must verify under to count (default: this process's). */
  constructor(store: Store, keyring: Keyring = trustedKeys()) {
    this.#store = store;
    this.#keyring = keyring;
  }

  /** The child sessions of `runId`'s calls. */
  async linksOf(runId: string): Promise<ChildLinks> {
    this.#summaries ??= this.#store.list();
    return childLinksOf(await this.#summaries, runId);
  }

  /** A reader of `runId`'s records that folds its calls' child sessions in. */
  async readerOf(runId: string): Promise<TranscriptReader> {
    return new TranscriptReader(await this.linksOf(runId), this.#keyring);
  }

  /** Each entry of the child's transcript, in order, with its own children's entries after their calls at one depth more. */
  async *entriesOf(runId: string, depth = 1): AsyncIterable<{ entry: TranscriptEntry; depth: number }> {
    const reader = await this.readerOf(runId);
    const records: AsyncIterable<JournalRecord> = this.#store.readRecords(runId);
    for await (const record of records) {
      for (const entry of reader.entriesOf(record)) {
        yield { entry, depth };
        if (entry.kind === "child") yield* this.entriesOf(entry.runId, depth + 1);
      }
    }
  }
}
