// The one Journal of every backend: the append state machine, written once. A backend
// supplies a JournalWriter, which makes batches of records durable and holds the run
// while the journal is open; which appends are taken, how appends that arrive together
// share a write, and what a journal says once a write has failed are decided here.
import type { RunStateError } from "../errors.js";
import type { JournalRecord, RecordEntry } from "../records/records.js";
import type { Journal } from "./store.js";
import { closedError, decideAppend, versionOf, writeFailedError } from "./store-contract.js";

/** A record a journal has taken, with its line in the run's record version. */
export interface LinedRecord {
  record: JournalRecord;
  line: string;
}

/** What a backend does for its journals: keeps their records, and holds their run. */
export interface JournalWriter {
  /**
   * Makes a batch of records, in seq order, durable; never called again before the last
   * call settles. A throw leaves unknown which of them were kept: see writeFailedError.
   */
  write(batch: readonly LinedRecord[]): Promise<void>;
  /** Lets go of the run (its lock, its lease), once no write is in flight. */
  release(): Promise<void>;
}

interface QueuedAppend extends LinedRecord {
  resolve(): void;
  reject(error: unknown): void;
}

export class JournalCore implements Journal {
  readonly runId: string;
  readonly #writer: JournalWriter;
  readonly #records: JournalRecord[];
  readonly #version: number;
  readonly #maxBatch: number;
  #queue: QueuedAppend[] = [];
  #flushScheduled = false;
  /** Settles once everything accepted so far is durable (or has failed). */
  #idle: Promise<void> = Promise.resolve();
  #markIdle: (() => void) | undefined;
  /** Set by a failed write: what every later append and records() is refused with. */
  #failed: RunStateError | undefined;
  #closing: Promise<void> | undefined;

  /**
   * `records` are the run's records so far, as stored; the journal takes them over.
   * `maxBatch` is how many appends one write may take: those that arrive while a write
   * is on its way share the next (group commit).
   */
  constructor(runId: string, records: JournalRecord[], writer: JournalWriter, options: { maxBatch: number }) {
    this.runId = runId;
    this.#records = records;
    this.#writer = writer;
    this.#version = versionOf(records);
    this.#maxBatch = options.maxBatch;
  }

  get lastSeq(): number {
    return this.#records.length;
  }

  append(seq: number, entry: RecordEntry): Promise<void> {
    if (this.#closing !== undefined) return Promise.reject(closedError(this.runId));
    if (this.#failed !== undefined) return Promise.reject(this.#failed);
    let decision;
    try {
      decision = decideAppend(this.runId, this.lastSeq, seq, entry, this.#version);
    } catch (error) {
      return Promise.reject(error);
    }
    // A crash-retry of a seq already taken: durable when what is in flight is.
    if (decision.kind === "retry") return this.#idle.then(() => this.#throwIfFailed());
    this.#records.push(decision.record);
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ record: decision.record, line: decision.line, resolve, reject });
      this.#scheduleFlush();
    });
  }

  async records(): Promise<JournalRecord[]> {
    await this.#idle;
    this.#throwIfFailed();
    return this.#records.slice();
  }

  /** Every call waits for the one close, so none returns while the run is still held. */
  close(): Promise<void> {
    this.#closing ??= this.#idle.then(() => this.#writer.release());
    return this.#closing;
  }

  #scheduleFlush(): void {
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    if (this.#markIdle === undefined) this.#idle = new Promise((resolve) => (this.#markIdle = resolve));
    // A microtask, so appends issued together in one turn of the event loop share a write.
    queueMicrotask(() => void this.#flush());
  }

  async #flush(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.#maxBatch);
      try {
        await this.#writer.write(batch);
        for (const queued of batch) queued.resolve();
      } catch (error) {
        // What was stored is unknown from here: refuse everything until a reopen reads it.
        this.#failed = writeFailedError(this.runId, error);
        for (const queued of [...batch, ...this.#queue.splice(0)]) queued.reject(this.#failed);
      }
    }
    this.#flushScheduled = false;
    const markIdle = this.#markIdle;
    this.#markIdle = undefined;
    markIdle?.();
  }

  #throwIfFailed(): void {
    if (this.#failed !== undefined) throw this.#failed;
  }
}
