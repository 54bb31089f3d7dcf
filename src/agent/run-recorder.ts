// The loop's one way to record what happened: each entry gets the next seq, goes to
// the journal when the run is checkpointed (resolving once durable), and the run's state
// is always the fold of what was recorded, so the loop cannot drift from its journal.
// The state is advanced by each entry as it is recorded (one fold step, not a refold of
// the run), and the records themselves are not kept: the state is all the loop reads.
import { fold, foldStep, type FoldState, type RunState } from "../runstate/views/fold.js";
import { heldIn } from "../runstate/records/journal-codec.js";
import { PROTOCOLS, type JournalRecord, type MetaPayload, type RecordEntry } from "../runstate/records/records.js";

import type { Journal, Store } from "../runstate/store/store.js";
import { movedError } from "../runstate/errors.js";

export class RunRecorder {
  readonly runId: string;
  readonly #journal: Journal | undefined;
  readonly #state: FoldState;
  /** The PartMark the next entry carries: set by a resume, so its first record says where its part begins. */
  #partStartedAt: string | undefined;

  private constructor(runId: string, state: FoldState, journal: Journal | undefined) {
    this.runId = runId;
    this.#state = state;
    this.#journal = journal;
  }

  /** A new run: journaled to `store` when given, else kept in memory only. */
  static async create(store: Store | undefined, meta: MetaPayload): Promise<RunRecorder> {
    const first = heldIn(meta.version, { seq: 1, protocol: PROTOCOLS.meta, meta });
    if (store === undefined) return new RunRecorder(meta.run_id, foldStep(undefined, first), undefined);
    return RunRecorder.#over(meta.run_id, await store.create(meta.run_id, first.meta));
  }

  /**
   * An existing run, locked for appending. A run moved to another store is refused
   * (ERR_MOVED) unless `moved` is "take": only a resume may take up a move cut short.
   */
  static async open(store: Store, runId: string, moved: "refuse" | "take" = "refuse"): Promise<RunRecorder> {
    const recorder = await RunRecorder.#over(runId, await store.open(runId));
    const mark = recorder.#state.moved;
    if (mark !== undefined && moved === "refuse") {
      await recorder.close();
      throw movedError(runId, mark);
    }
    return recorder;
  }

  static async #over(runId: string, journal: Journal): Promise<RunRecorder> {
    try {
      return new RunRecorder(runId, fold(await journal.records()), journal);
    } catch (error) {
      await journal.close();
      throw error;
    }
  }

  get checkpointed(): boolean {
    return this.#journal !== undefined;
  }

  /** The fold of every entry recorded so far; advanced in place by each append. */
  state(): RunState {
    return this.#state;
  }

  /**
   * Records an entry as the run's record version holds it (a version 3 journal keeps tool
   * results as text); resolves once it is durable. Entries issued together keep their
   * order. One that would not fold is refused before it reaches the journal.
   */
  async append(entry: RecordEntry): Promise<void> {
    const seq = this.#state.lastSeq + 1;
    // Only a resume's first record carries the mark: every other append builds the record as before.
    const marked = this.#partStartedAt === undefined ? { seq, ...entry } : { seq, ...entry, part_started_at: this.#partStartedAt };
    this.#partStartedAt = undefined;
    const record = heldIn(this.#state.meta.version, marked as JournalRecord);
    foldStep(this.#state, record);
    await this.#journal?.append(seq, record);
  }

  /** This process's part of the run began at `startedAt` (RFC 3339): the next record journaled says so. */
  markPart(startedAt: string): void {
    this.#partStartedAt = startedAt;
  }

  async close(): Promise<void> {
    await this.#journal?.close();
  }
}
