// How a JetStream journal keeps its records: each is published into its own write-once
// slot, with a message id of the writer's lease nonce and the seq, so that a slot
// already taken tells a lost ack of ours from another writer's record.
import { RunStateError } from "../../runstate/errors.js";
import { JournalCore, type JournalWriter, type LinedRecord } from "../../runstate/store/journal-core.js";
import type { JournalRecord, MetaPayload } from "../../runstate/records/records.js";
import { digestStep, type CheckedDigest } from "../../runstate/views/run-digest.js";
import type { Journal } from "../../runstate/store/store.js";
import { existsError, lockedError, summaryAt } from "../../runstate/store/store-contract.js";
import { slotTaken } from "./connection.js";
import type { HeldLease } from "./leases.js";
import { SummaryPuts, type RunSummaries } from "./run-summaries.js";

/** What the writer needs of its store: the run's slots (JetStreamStore has them). */
export interface RunSlots {
  /** Publishes one record into its slot; a slot already taken is the caller's to judge. */
  publishRecord(runId: string, seq: number, line: string, msgID: string): Promise<void>;
  /** The message id in a taken slot. */
  slotMessageId(runId: string, seq: number): Promise<string | undefined>;
}

/** The writer of one run, holding its lease. */
export class JetStreamWriter implements JournalWriter {
  readonly #store: RunSlots;
  readonly #runId: string;
  readonly #lease: HeldLease;
  readonly #meta: MetaPayload;
  readonly #summaries: SummaryPuts;
  readonly #digest: CheckedDigest;

  /**
   * `summaries` is where the run's summary is kept for listings, when the store keeps them;
   * `digest` is the digest of the run's records so far, with its checking fold, which this writer advances.
   */
  constructor(store: RunSlots, runId: string, lease: HeldLease, meta: MetaPayload, summaries: RunSummaries | undefined, digest: CheckedDigest) {
    this.#store = store;
    this.#runId = runId;
    this.#lease = lease;
    this.#meta = meta;
    this.#summaries = new SummaryPuts(summaries, runId);
    this.#digest = digest;
  }

  /**
   * The run's journal, whose records so far are `records`, written through this writer
   * one record a write: each append resolves once its own slot is taken, and a failure
   * stops at the record that failed.
   */
  journal(records: JournalRecord[]): Journal {
    // Put again on open too: a summary a crash left behind is right from here on.
    this.summarizeAt(records.at(-1) as JournalRecord);
    return new JournalCore(this.#runId, records, this, { maxBatch: 1 });
  }

  /**
   * Each record once the one before it is acknowledged: a record published without
   * waiting could land after a slot that another writer took. The run's summary follows
   * the batch, without holding it up.
   */
  async write(batch: readonly LinedRecord[]): Promise<void> {
    for (const { record, line } of batch) {
      await this.publish(record, line);
      this.digest(record, line);
    }
    const last = batch.at(-1);
    if (last !== undefined) this.summarizeAt(last.record);
  }

  /** Advances the run's digest by a record written as `line`. */
  digest(record: JournalRecord, line: string): void {
    digestStep(this.#digest.digest, this.#digest.fold, record, Buffer.byteLength(line), this.#meta.fingerprint.model);
  }

  /** Puts the run's summary as of `last`, its last record (written by this writer). */
  summarizeAt(last: JournalRecord): void {
    this.#summaries.put({ count: last.seq, summary: summaryAt(this.#runId, this.#meta, last, new Date(), { ...this.#digest.digest }) });
  }

  /** Lets go of the run once its latest summary is put. */
  async release(): Promise<void> {
    await this.#summaries.settled();
    await this.#lease.release();
  }

  /**
   * Writes a record into its slot as `line`, its encoding in this run's record version. A
   * slot already taken holds either our own record (a retry whose ack was lost: written)
   * or another writer's (ERR_LOCKED, or ERR_EXISTS for a meta: the run was created meanwhile).
   */
  async publish(record: JournalRecord, line: string): Promise<void> {
    if (this.#lease.lost !== undefined) throw lockedError(this.#runId, undefined);
    const msgID = `${this.#lease.nonce}-${record.seq}`;
    try {
      await this.#store.publishRecord(this.#runId, record.seq, line, msgID);
      return;
    } catch (error) {
      if (!slotTaken(error)) {
        throw new RunStateError("ERR_IO", `the NATS server did not take record ${record.seq} of session ${this.#runId}: ${(error as Error).message}`, {
          cause: error,
          seq: record.seq,
        });
      }
    }
    const holder = await this.#store.slotMessageId(this.#runId, record.seq).catch(() => undefined);
    if (holder === msgID) return;
    throw record.seq === 1 ? existsError(this.#runId) : lockedError(this.#runId, undefined);
  }
}
