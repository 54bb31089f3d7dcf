// How a Postgres journal keeps its records: a batch is one statement, on the connection
// that holds the run, that inserts each record's line into its (run, seq) slot and updates
// the run's summary row as of the batch's last record (summary-row.ts). Autocommitted, so
// one round trip and one transaction; appends of many runs committing together share the server's WAL
// flushes (its group commit). A slot is written once (the primary key): a slot already
// taken means another writer has the run, and nothing of the batch is kept.
import type pg from "pg";
import { JournalCore, type JournalWriter, type LinedRecord } from "../../runstate/store/journal-core.js";
import type { JournalRecord, MetaPayload } from "../../runstate/records/records.js";
import { lockedError } from "../../runstate/store/store-contract.js";
import type { Journal } from "../../runstate/store/store.js";
import { digestStep, type CheckedDigest, type RunDigest } from "../../runstate/views/run-digest.js";
import { explained, sqlState, UNIQUE_VIOLATION } from "./connection.js";
import type { RunHold } from "./run-holds.js";

/** How many appends that arrive together one statement may take. */
const MAX_BATCH = 256;

/** What the writer needs of its store: the statement that appends. */
export interface RecordRows {
  /** Inserts `lines` at `firstSeq` on, and updates the run's summary to `digest`, in one statement on `client`. */
  appendRows(client: pg.ClientBase, runId: string, firstSeq: number, lines: readonly Buffer[], digest: RunDigest): Promise<void>;
}

/** A journal line's bytes as a row holds them: without the newline that ends it in a journal. */
export function rowLine(line: string): Buffer {
  return Buffer.from(line.slice(0, -1));
}

export class PostgresWriter implements JournalWriter {
  readonly #rows: RecordRows;
  readonly #hold: RunHold;
  readonly #runId: string;
  readonly #meta: MetaPayload;
  readonly #digest: CheckedDigest;

  /** `digest` is that of the run's records so far, which this writer advances. */
  constructor(rows: RecordRows, hold: RunHold, runId: string, meta: MetaPayload, digest: CheckedDigest) {
    this.#rows = rows;
    this.#hold = hold;
    this.#runId = runId;
    this.#meta = meta;
    this.#digest = digest;
  }

  /** The run's journal, whose records so far are `records`. */
  journal(records: JournalRecord[]): Journal {
    return new JournalCore(this.#runId, records, this, { maxBatch: MAX_BATCH });
  }

  async write(batch: readonly LinedRecord[]): Promise<void> {
    const first = batch[0];
    if (first === undefined) return;
    // Its lock went with it: the run may be another writer's now, and this one stops (ERR_IO).
    if (this.#hold.lost.aborted) throw new Error(`the connection holding the session was lost: ${(this.#hold.lost.reason as Error).message}`);
    // Advanced before the write: a write that fails fails the journal, which is reopened and digested again.
    for (const { record, line } of batch) digestStep(this.#digest.digest, this.#digest.fold, record, Buffer.byteLength(line), this.#meta.fingerprint.model);
    try {
      await this.#rows.appendRows(
        this.#hold.client,
        this.#runId,
        first.record.seq,
        batch.map(({ line }) => rowLine(line)),
        this.#digest.digest,
      );
    } catch (error) {
      if (sqlState(error) === UNIQUE_VIOLATION) throw lockedError(this.#runId, undefined);
      throw new Error(explained(error), { cause: error });
    }
  }

  release(): Promise<void> {
    return this.#hold.release();
  }
}
