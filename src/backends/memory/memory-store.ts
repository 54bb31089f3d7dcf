// An in-process store with no persistence: the reference backend, and the one to reach
// for in tests of programs built on the library. It keeps each run as the same journal
// lines a file holds, so reading, folding and refusing go through the same contract.
// Its runs are in a MemoryStorage it may share with other MemoryStores (sharedWith); the
// seams tests use to reach them are in memory-seams.ts, which the package does not export.
import type { RunState } from "../../runstate/views/fold.js";
import { encodeRecordIn } from "../../runstate/records/journal-codec.js";
import { JournalCore, type JournalWriter } from "../../runstate/store/journal-core.js";
import { thisProcess } from "../../runstate/store/run-holder.js";
import { digestLines, emptyDigest, emptyDigestFold, statusOnlyDigest } from "../../runstate/views/run-digest.js";
import type { JournalRecord, MetaPayload } from "../../runstate/records/records.js";
import type { Journal, JournalBytes, RunSummary, Store } from "../../runstate/store/store.js";
import {
  assertRunId,
  checkedFromSeq,
  checkedMeta,
  checkImport,
  wholeJournal,
  versionOf,
  decodeRun,
  existsError,
  lockedError,
  notFoundError,
  recordsOfLines,
  summarizeEnds,
  withLiveHolder,
} from "../../runstate/store/store-contract.js";
import { MemoryStorage, registerStorage, type MemoryRun } from "./memory-storage.js";

/** How to make a MemoryStore. */
export interface MemoryStoreOptions {
  /**
   * Another MemoryStore whose runs this one shares, as two processes share one directory:
   * each sees what the other writes, and a run one holds open is ERR_LOCKED to the other.
   * Default: none, a storage of its own that starts empty.
   */
  sharedWith?: MemoryStore;
}

/**
 * A Store that keeps runs in this process, without persistence: the store for the tests
 * of a program built on the library. It keeps the same journal lines a file holds and
 * keeps the same contract; its runs are gone when the last store sharing them is.
 */
export class MemoryStore implements Store {
  readonly writers = "process";
  readonly #storage: MemoryStorage;

  /** A store with no runs, or one sharing `options.sharedWith`'s; a TypeError if that is not a MemoryStore. */
  constructor(options: MemoryStoreOptions = {}) {
    const { sharedWith } = options;
    if (sharedWith !== undefined && !(typeof sharedWith === "object" && #storage in sharedWith)) {
      throw new TypeError("sharedWith must be a MemoryStore");
    }
    this.#storage = sharedWith === undefined ? new MemoryStorage() : sharedWith.#storage;
    registerStorage(this, this.#storage);
  }

  get #runs(): Map<string, MemoryRun> {
    return this.#storage.runs;
  }

  async create(runId: string, meta: MetaPayload): Promise<Journal> {
    assertRunId(runId);
    const { record, line } = checkedMeta(runId, meta);
    if (this.#runs.has(runId)) throw existsError(runId);
    const run: MemoryRun = { lines: [line], updated: new Date() };
    this.#runs.set(runId, run);
    return memoryJournal(this.#storage, runId, run, [record]);
  }

  async open(runId: string): Promise<Journal> {
    const run = this.#run(runId);
    if (run.holder !== undefined) throw lockedError(runId, run.holder);
    const { records } = decodeRun(runId, Buffer.from(run.lines.join("")), memoryWhere(runId));
    return memoryJournal(this.#storage, runId, run, records);
  }

  async load(runId: string): Promise<RunState> {
    return decodeRun(runId, Buffer.from(this.#run(runId).lines.join("")), memoryWhere(runId)).state;
  }

  async list(): Promise<RunSummary[]> {
    return [...this.#runs.keys()].map((runId) => this.#summarize(runId));
  }

  async summarize(runId: string, options: { digest?: boolean } = {}): Promise<RunSummary> {
    const run = this.#run(runId);
    if (options.digest !== false) return this.#summarize(runId);
    // As a file store does without a digest: its ends, and its status from the records after its last that is not an annotation.
    const line = (index: number) => Buffer.from((run.lines[index] as string).slice(0, -1));
    const backward = function* () {
      for (let index = run.lines.length - 1; index >= 0; index--) yield line(index);
    };
    const ends = run.lines.length === 0 ? { first: undefined, last: undefined } : { first: line(0), last: line(run.lines.length - 1) };
    const { digest: _status, ...summary } = summarizeEnds(runId, memoryWhere(runId), ends, run.updated, statusOnlyDigest(backward()));
    return withLiveHolder(summary, run.holder);
  }

  async *readRecords(runId: string, fromSeq?: number): AsyncGenerator<JournalRecord> {
    const first = checkedFromSeq(fromSeq);
    const run = this.#run(runId);
    // The run's lines as they stand at each step: one appended meanwhile is read too.
    async function* lines() {
      for (let index = first - 1; index < run.lines.length; index++) yield (run.lines[index] as string).slice(0, -1);
    }
    yield* recordsOfLines(runId, memoryWhere(runId), first, lines());
  }

  async readJournal(runId: string): Promise<Uint8Array> {
    return Buffer.from(this.#run(runId).lines.join(""));
  }

  async importJournal(runId: string, journal: JournalBytes): Promise<void> {
    assertRunId(runId);
    const bytes = await wholeJournal(journal);
    const records = checkImport(runId, bytes);
    if (this.#runs.has(runId)) throw existsError(runId);
    const version = versionOf(records);
    this.#runs.set(runId, { lines: records.map((record) => encodeRecordIn(version, record)), updated: new Date() });
  }

  async delete(runId: string): Promise<void> {
    const run = this.#run(runId);
    if (run.holder !== undefined) throw lockedError(runId, run.holder);
    this.#runs.delete(runId);
  }

  async close(): Promise<void> {}

  #run(runId: string): MemoryRun {
    assertRunId(runId);
    const run = this.#runs.get(runId);
    if (run === undefined) throw notFoundError(runId);
    return run;
  }

  #summarize(runId: string): RunSummary {
    const run = this.#run(runId);
    const digest = emptyDigest();
    const { first, last } = digestLines(digest, emptyDigestFold(), Buffer.from(run.lines.join("")), undefined);
    return withLiveHolder(summarizeEnds(runId, memoryWhere(runId), { first, last }, run.updated, digest), run.holder);
  }
}

function memoryWhere(runId: string): string {
  return `the in-memory journal ${runId}`;
}

/** A journal of a run kept in memory, its holder while open: each batch adds its lines. */
function memoryJournal(storage: MemoryStorage, runId: string, run: MemoryRun, records: JournalRecord[]): Journal {
  run.holder = thisProcess();
  const writer: JournalWriter = {
    async write(batch) {
      if (storage.failing()) throw new Error("ENOSPC: no space left on device");
      run.lines.push(...batch.map(({ line }) => line));
      run.updated = new Date();
      for (const heard of storage.written) heard(runId);
    },
    async release() {
      delete run.holder;
    },
  };
  return new JournalCore(runId, records, writer, { maxBatch: Number.POSITIVE_INFINITY });
}
