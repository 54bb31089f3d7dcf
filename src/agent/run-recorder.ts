// The loop's one way to record what happened: each entry gets the next seq, goes to
// the journal when the run is checkpointed (resolving once durable), and the run's state
// is always the fold of what was recorded, so the loop cannot drift from its journal.
import { fold, type RunState } from "../runstate/fold.js";
import { PROTOCOLS, type JournalRecord, type MetaPayload, type RecordEntry } from "../runstate/records.js";
import type { Journal, Store } from "../runstate/store.js";

export class RunRecorder {
  readonly runId: string;
  readonly #records: JournalRecord[];
  readonly #journal: Journal | undefined;
  #state: RunState | undefined;

  private constructor(runId: string, records: JournalRecord[], journal: Journal | undefined) {
    this.runId = runId;
    this.#records = records;
    this.#journal = journal;
  }

  /** A new run: journaled to `store` when given, else kept in memory only. */
  static async create(store: Store | undefined, meta: MetaPayload): Promise<RunRecorder> {
    if (store === undefined) return new RunRecorder(meta.run_id, [{ seq: 1, protocol: PROTOCOLS.meta, meta }], undefined);
    return RunRecorder.#over(meta.run_id, await store.create(meta.run_id, meta));
  }

  /** An existing run, locked for appending. */
  static async open(store: Store, runId: string): Promise<RunRecorder> {
    return RunRecorder.#over(runId, await store.open(runId));
  }

  static async #over(runId: string, journal: Journal): Promise<RunRecorder> {
    try {
      return new RunRecorder(runId, await journal.records(), journal);
    } catch (error) {
      await journal.close();
      throw error;
    }
  }

  get checkpointed(): boolean {
    return this.#journal !== undefined;
  }

  state(): RunState {
    this.#state ??= fold(this.#records);
    return this.#state;
  }

  /** Records an entry; resolves once it is durable. Entries issued together keep their order. */
  async append(entry: RecordEntry): Promise<void> {
    const seq = this.#records.length + 1;
    this.#records.push({ seq, ...entry } as JournalRecord);
    this.#state = undefined;
    await this.#journal?.append(seq, entry);
  }

  async close(): Promise<void> {
    await this.#journal?.close();
  }
}
