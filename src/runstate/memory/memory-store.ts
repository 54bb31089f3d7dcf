// An in-process store with no persistence: the reference backend, and the one to reach
// for in tests of programs built on the library. It keeps each run as the same journal
// lines a file holds, so reading, folding and refusing go through the same contract.
import { hostname } from "node:os";
import type { RunState } from "../fold.js";
import { encodeRecordIn } from "../journal-codec.js";
import { JournalCore, type JournalWriter } from "../journal-core.js";
import type { JournalRecord, MetaPayload } from "../records.js";
import type { Journal, RunHolder, RunSummary, Store } from "../store.js";
import {
  assertRunId,
  checkedMeta,
  checkImport,
  versionOf,
  decodeRun,
  existsError,
  lockedError,
  notFoundError,
  summarizeEnds,
  withLiveHolder,
} from "../store-contract.js";

/** One run as a MemoryStore keeps it. */
export interface MemoryRun {
  /** Journal lines, each ending in "\n", exactly as a file journal holds them. */
  lines: string[];
  updated: Date;
  /** Set while a journal of this run is open. */
  holder?: RunHolder;
}

export interface MemoryStoreOptions {
  /**
   * The runs, by id. Give two stores the same map and they see one storage, as two
   * processes see one directory; a test may also plant lines in it directly.
   */
  runs?: Map<string, MemoryRun>;
}

const STARTED = new Date(Date.now() - process.uptime() * 1000).toISOString();

export class MemoryStore implements Store {
  readonly runs: Map<string, MemoryRun>;

  constructor(options: MemoryStoreOptions = {}) {
    this.runs = options.runs ?? new Map();
  }

  async create(runId: string, meta: MetaPayload): Promise<Journal> {
    assertRunId(runId);
    const { record, line } = checkedMeta(runId, meta);
    if (this.runs.has(runId)) throw existsError(runId);
    const run: MemoryRun = { lines: [line], updated: new Date() };
    this.runs.set(runId, run);
    return memoryJournal(runId, run, [record]);
  }

  async open(runId: string): Promise<Journal> {
    const run = this.#run(runId);
    if (run.holder !== undefined) throw lockedError(runId, run.holder);
    const { records } = decodeRun(runId, Buffer.from(run.lines.join("")), memoryWhere(runId));
    return memoryJournal(runId, run, records);
  }

  async load(runId: string): Promise<RunState> {
    return decodeRun(runId, Buffer.from(this.#run(runId).lines.join("")), memoryWhere(runId)).state;
  }

  async list(): Promise<RunSummary[]> {
    return [...this.runs.keys()].map((runId) => this.#summarize(runId));
  }

  async summarize(runId: string): Promise<RunSummary> {
    this.#run(runId);
    return this.#summarize(runId);
  }

  async readJournal(runId: string): Promise<Uint8Array> {
    return Buffer.from(this.#run(runId).lines.join(""));
  }

  async importJournal(runId: string, bytes: Uint8Array): Promise<void> {
    assertRunId(runId);
    const records = checkImport(runId, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    if (this.runs.has(runId)) throw existsError(runId);
    const version = versionOf(records);
    this.runs.set(runId, { lines: records.map((record) => encodeRecordIn(version, record)), updated: new Date() });
  }

  async delete(runId: string): Promise<void> {
    const run = this.#run(runId);
    if (run.holder !== undefined) throw lockedError(runId, run.holder);
    this.runs.delete(runId);
  }

  async close(): Promise<void> {}

  #run(runId: string): MemoryRun {
    assertRunId(runId);
    const run = this.runs.get(runId);
    if (run === undefined) throw notFoundError(runId);
    return run;
  }

  #summarize(runId: string): RunSummary {
    const run = this.#run(runId);
    const line = (text: string | undefined) => (text === undefined ? undefined : Buffer.from(text.slice(0, -1)));
    return withLiveHolder(summarizeEnds(runId, memoryWhere(runId), { first: line(run.lines[0]), last: line(run.lines.at(-1)) }, run.updated), run.holder);
  }
}

function memoryWhere(runId: string): string {
  return `the in-memory journal ${runId}`;
}

/** A journal of a run kept in memory, its holder while open: each batch adds its lines. */
function memoryJournal(runId: string, run: MemoryRun, records: JournalRecord[]): Journal {
  run.holder = { pid: process.pid, host: hostname(), started: STARTED };
  const writer: JournalWriter = {
    async write(batch) {
      run.lines.push(...batch.map(({ line }) => line));
      run.updated = new Date();
    },
    async release() {
      delete run.holder;
    },
  };
  return new JournalCore(runId, records, writer, { maxBatch: Number.POSITIVE_INFINITY });
}
