// An in-process store with no persistence: the reference backend, and the one to reach
// for in tests of programs built on the library. It keeps each run as the same journal
// lines a file holds, so reading, folding and refusing go through the same contract.
import { hostname } from "node:os";
import type { RunState } from "../fold.js";
import { encodeRecordIn } from "../journal-codec.js";
import type { JournalRecord, MetaPayload, RecordEntry } from "../records.js";
import type { Journal, RunHolder, RunSummary, Store } from "../store.js";
import {
  assertRunId,
  checkedMeta,
  checkImport,
  closedError,
  decideAppend,
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
    return new MemoryJournal(runId, run, [record]);
  }

  async open(runId: string): Promise<Journal> {
    const run = this.#run(runId);
    if (run.holder !== undefined) throw lockedError(runId, run.holder);
    const { records } = decodeRun(runId, Buffer.from(run.lines.join("")), memoryWhere(runId));
    return new MemoryJournal(runId, run, records);
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

class MemoryJournal implements Journal {
  readonly runId: string;
  readonly #run: MemoryRun;
  readonly #records: JournalRecord[];
  #closed = false;

  constructor(runId: string, run: MemoryRun, records: JournalRecord[]) {
    this.runId = runId;
    this.#run = run;
    this.#records = records;
    run.holder = { pid: process.pid, host: hostname(), started: STARTED };
  }

  get lastSeq(): number {
    return this.#records.length;
  }

  async append(seq: number, entry: RecordEntry): Promise<void> {
    if (this.#closed) throw closedError(this.runId);
    const decision = decideAppend(this.runId, this.lastSeq, seq, entry, versionOf(this.#records));
    if (decision.kind === "retry") return;
    this.#records.push(decision.record);
    this.#run.lines.push(decision.line);
    this.#run.updated = new Date();
  }

  async records(): Promise<JournalRecord[]> {
    return this.#records.slice();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    delete this.#run.holder;
  }
}
