// An open journal file: the single writer of one run. Appends are queued and written
// by one flush at a time; appends that arrive while a flush is on its way share the
// next write and fsync (group commit), and each resolves only once its bytes are durable.
import type { RunStateError } from "../errors.js";
import type { JournalRecord, RecordEntry } from "../records.js";
import type { Journal } from "../store.js";
import { closedError, decideAppend, versionOf, writeFailedError } from "../store-contract.js";
import { writeFully, type FileSystem } from "./file-system.js";
import type { RunLock } from "./run-lock.js";

interface QueuedAppend {
  line: string;
  resolve(): void;
  reject(error: unknown): void;
}

export interface FileJournalOptions {
  /** Off: every append gets its own write and fsync, for comparison in the benchmark. */
  groupCommit: boolean;
}

export class FileJournal implements Journal {
  readonly runId: string;
  readonly #fs: FileSystem;
  readonly #fd: number;
  readonly #lock: RunLock;
  readonly #records: JournalRecord[];
  readonly #version: number;
  readonly #maxBatch: number;
  #queue: QueuedAppend[] = [];
  #flushScheduled = false;
  /** Settles once everything accepted so far is durable (or has failed). */
  #idle: Promise<void> = Promise.resolve();
  #markIdle: (() => void) | undefined;
  #failure: unknown;
  #closing: Promise<void> | undefined;

  constructor(fs: FileSystem, fd: number, lock: RunLock, runId: string, records: JournalRecord[], options: FileJournalOptions) {
    this.#fs = fs;
    this.#fd = fd;
    this.#lock = lock;
    this.runId = runId;
    this.#records = records;
    this.#version = versionOf(records);
    this.#maxBatch = options.groupCommit ? Number.POSITIVE_INFINITY : 1;
  }

  get lastSeq(): number {
    return this.#records.length;
  }

  append(seq: number, entry: RecordEntry): Promise<void> {
    if (this.#closing !== undefined) return Promise.reject(closedError(this.runId));
    if (this.#failure !== undefined) return Promise.reject(this.#failedError());
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
      this.#queue.push({ line: decision.line, resolve, reject });
      this.#scheduleFlush();
    });
  }

  async records(): Promise<JournalRecord[]> {
    await this.#idle;
    this.#throwIfFailed();
    return this.#records.slice();
  }

  /** Every call waits for the one close, so none returns while the lock is still held. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#idle;
      try {
        await this.#fs.close(this.#fd);
      } finally {
        await this.#lock.release();
      }
    })();
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
        await writeFully(this.#fs, this.#fd, Buffer.from(batch.map((queued) => queued.line).join("")));
        await this.#fs.fdatasync(this.#fd);
        for (const queued of batch) queued.resolve();
      } catch (error) {
        // After a failed write the file's tail is unknown: refuse everything until a
        // reopen, whose torn-tail repair puts the file back on a record boundary.
        this.#failure = error;
        for (const queued of [...batch, ...this.#queue.splice(0)]) queued.reject(this.#failedError());
      }
    }
    this.#flushScheduled = false;
    const markIdle = this.#markIdle;
    this.#markIdle = undefined;
    markIdle?.();
  }

  #throwIfFailed(): void {
    if (this.#failure !== undefined) throw this.#failedError();
  }

  #failedError(): RunStateError {
    return writeFailedError(this.runId, this.#failure);
  }
}
