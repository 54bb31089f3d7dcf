// How a JetStream journal keeps its records: each is published into its own write-once
// slot, with a message id of the writer's lease nonce and the seq, so that a slot
// already taken tells a lost ack of ours from another writer's record.
import { RunStateError } from "../errors.js";
import { JournalCore, type JournalWriter, type LinedRecord } from "../journal-core.js";
import type { JournalRecord } from "../records.js";
import type { Journal } from "../store.js";
import { existsError, lockedError } from "../store-contract.js";
import { slotTaken } from "./connection.js";
import type { JetStreamStore } from "./jetstream-store.js";
import type { HeldLease } from "./leases.js";

/** The writer of one run, holding its lease. */
export class JetStreamWriter implements JournalWriter {
  readonly #store: JetStreamStore;
  readonly #runId: string;
  readonly #lease: HeldLease;

  constructor(store: JetStreamStore, runId: string, lease: HeldLease) {
    this.#store = store;
    this.#runId = runId;
    this.#lease = lease;
  }

  /**
   * The run's journal, whose records so far are `records`, written through this writer
   * one record a write: each append resolves once its own slot is taken, and a failure
   * stops at the record that failed.
   */
  journal(records: JournalRecord[]): Journal {
    return new JournalCore(this.#runId, records, this, { maxBatch: 1 });
  }

  /**
   * Each record once the one before it is acknowledged: a record published without
   * waiting could land after a slot that another writer took.
   */
  async write(batch: readonly LinedRecord[]): Promise<void> {
    for (const { record, line } of batch) await this.publish(record, line);
  }

  release(): Promise<void> {
    return this.#lease.release();
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
        throw new RunStateError(
          "ERR_IO",
          `the NATS server did not take record ${record.seq} of session ${this.#runId}: ${(error as Error).message}`,
          { cause: error, seq: record.seq },
        );
      }
    }
    const holder = await this.#store.slotMessageId(this.#runId, record.seq).catch(() => undefined);
    if (holder === msgID) return;
    throw record.seq === 1 ? existsError(this.#runId) : lockedError(this.#runId, undefined);
  }
}
