// A cache of what list() read from each journal, so that listing thousands of sessions
// costs one stat a session instead of two reads and two record checks. It is derived,
// never a source of truth: an entry is used only while its journal has the size, mtime
// and inode it had when it was summarized; a missing, unreadable or foreign cache is an
// empty one; and deleting the file costs one slower listing, which writes it again.
// It also remembers the lock files whose holder was found dead (a crashed run's), by the
// same key: a process that is gone stays gone, and a new holder writes a new note.
import { constants } from "node:fs";
import type { Fingerprint, ImportedPayload, MetaPayload, OriginPayload } from "../../runstate/records/records.js";
import type { RunDigest, TokenUsage } from "../../runstate/views/run-digest.js";
import type { RunStatus, RunSummary } from "../../runstate/store/store.js";
import { errnoCode, isRegularFile, readFullySync, writeFully, type FileStat, type FileSystem } from "./file-system.js";

/** Not a run id (the dot), and not `.json` or `.lock`: nothing else in the directory takes it for a run. */
export const SUMMARY_CACHE_NAME = ".summaries";
/** Changed whenever what an entry holds changes, so an older cache is simply not read. */
const FORMAT = 9;
const FILE_MODE = 0o600;
const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK } = constants;

/**
 * What identifies the bytes a summary was read from. Any change is a new read of the whole
 * journal: a journal mostly grows, but a power cut can take back bytes a listing saw before
 * they were synced, and the fold that checks a run's records needs every one from the first.
 */
type JournalKey = Pick<FileStat, "size" | "mtimeMs" | "ino">;
/**
 * One entry on disk: the journal's key, then its summary without a holder, its meta apart
 * from the fingerprint, and the index of that fingerprint in the file's table: the runs of
 * one agent share one, so the file holds it once (the cache's size is what a listing of
 * thousands of sessions spends its time reading and parsing).
 */
type Entry = [
  runId: string,
  size: number,
  mtimeMs: number,
  ino: number,
  status: RunStatus,
  lastSeq: number,
  updated: string,
  /** Without its run id, the entry's first field, as the fingerprint is the table's. */
  meta: Omit<MetaPayload, "fingerprint" | "run_id">,
  fingerprint: number,
  digest: StoredDigest,
];
/**
 * A digest as the cache keeps it, in arrays (its status is the entry's): the cache's size
 * is what a listing spends its time on. Absent title, origin and import mark are 0; each model's tokens
 * are its name and the five counts, one after another.
 */
type StoredDigest = [
  bytes: number,
  title: string | 0,
  origin: OriginPayload | 0,
  calls: (string | number)[],
  compactions: (string | number)[],
  copied: number[],
  imported: ImportedPayload | 0,
];
/** A lock file whose holder was found dead, by its key. */
type DeadLock = [runId: string, size: number, mtimeMs: number, ino: number];
interface CacheFile {
  format: typeof FORMAT;
  fingerprints: Fingerprint[];
  entries: Entry[];
  deadLocks: DeadLock[];
}

let temporaries = 0;

export class SummaryCache {
  readonly #read: Map<string, Entry>;
  readonly #fingerprints: readonly Fingerprint[];
  /** The summaries this listing used, each with the key of the bytes it was read from. */
  readonly #kept: { summary: RunSummary; key: JournalKey }[] = [];
  readonly #deadRead: Map<string, DeadLock>;
  readonly #deadKept: DeadLock[] = [];
  #changed = false;

  private constructor(file: CacheFile | undefined) {
    this.#fingerprints = file?.fingerprints ?? [];
    this.#read = new Map(file?.entries.map((entry) => [entry[0], entry]));
    this.#deadRead = new Map(file?.deadLocks.map((lock) => [lock[0], lock]));
  }

  /** The cache at `path`, or an empty one when there is none or it cannot be used. */
  static read(fs: FileSystem, path: string): SummaryCache {
    let fd: number;
    try {
      fd = fs.sync.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    } catch {
      return new SummaryCache(undefined);
    }
    try {
      const stat = fs.sync.fstat(fd);
      if (!isRegularFile(stat)) return new SummaryCache(undefined);
      const bytes = Buffer.allocUnsafe(stat.size);
      readFullySync(fs.sync, fd, bytes, 0);
      return new SummaryCache(cacheFileOf(JSON.parse(bytes.toString("utf8"))));
    } catch {
      return new SummaryCache(undefined);
    } finally {
      fs.sync.close(fd);
    }
  }

  /** Whether there is an entry for `runId` to check: without one, a stat of its journal is wasted. */
  has(runId: string): boolean {
    return this.#read.has(runId);
  }

  /** The cached summary of `runId`, when its journal is still the one it was read from. */
  get(runId: string, key: JournalKey): RunSummary | undefined {
    const entry = this.#read.get(runId);
    if (entry === undefined || !sameKey(entry, key)) return undefined;
    const fingerprint = this.#fingerprints[entry[8]];
    if (fingerprint === undefined) return undefined;
    // The entry's own meta, completed, and the entry's key: a hit copies nothing, which is
    // what a listing of thousands spends in the garbage collector otherwise.
    const meta = entry[7] as MetaPayload;
    meta.run_id = runId;
    meta.fingerprint = fingerprint;
    const summary: RunSummary = { runId, status: entry[4], meta, lastSeq: entry[5], updated: entry[6], digest: digestOf(entry[9], entry[4]) };
    this.#kept.push({ summary, key: { size: entry[1], mtimeMs: entry[2], ino: entry[3] } });
    return summary;
  }

  /** A summary just read from the journal with that key. A corrupt one is not kept: the problem may pass. */
  set(runId: string, key: JournalKey, summary: RunSummary): void {
    this.#changed = true;
    if (summary.status !== "corrupt" && summary.meta !== undefined && summary.digest !== undefined && summary.runId === runId) {
      this.#kept.push({ summary, key: { size: key.size, mtimeMs: key.mtimeMs, ino: key.ino } });
    }
  }

  /** Whether the lock file of `runId` with this key is one whose holder was found dead. */
  isDeadLock(runId: string, key: JournalKey): boolean {
    const lock = this.#deadRead.get(runId);
    if (lock === undefined || !sameKey(lock, key)) return false;
    this.#deadKept.push(lock);
    return true;
  }

  /** The lock file of `runId` with this key was just found to have no live holder. */
  setDeadLock(runId: string, key: JournalKey): void {
    this.#changed = true;
    this.#deadKept.push([runId, key.size, key.mtimeMs, key.ino]);
  }

  /**
   * Writes the entries this listing used, when they differ from those read: whole, by
   * rename, so a reader sees the old cache or the new. Not synced, and any failure (a
   * read-only directory, a full disk) only leaves the old cache, which is checked anyway.
   */
  async write(fs: FileSystem, path: string): Promise<void> {
    if (!this.#changed && this.#kept.length === this.#read.size && this.#deadKept.length === this.#deadRead.size) return;
    const temporary = `${path}.${process.pid}.${++temporaries}.tmp`;
    let fd: number | undefined;
    try {
      fd = await fs.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, FILE_MODE);
      await writeFully(fs, fd, Buffer.from(JSON.stringify(this.#file())));
      await fs.close(fd);
      fd = undefined;
      await fs.rename(temporary, path);
    } catch (error) {
      if (fd !== undefined) await fs.close(fd).catch(() => undefined);
      if (errnoCode(error) !== "EEXIST") await fs.unlink(temporary).catch(() => undefined);
    }
  }

  #file(): CacheFile {
    const fingerprints: Fingerprint[] = [];
    const indexOf = new Map<string, number>();
    const entries = this.#kept.map(({ summary, key }): Entry => {
      const { fingerprint, run_id: _runId, ...meta } = summary.meta as MetaPayload;
      const text = JSON.stringify(fingerprint);
      let index = indexOf.get(text);
      if (index === undefined) indexOf.set(text, (index = fingerprints.push(fingerprint) - 1));
      return [
        summary.runId,
        key.size,
        key.mtimeMs,
        key.ino,
        summary.status,
        summary.lastSeq,
        summary.updated,
        meta,
        index,
        storedDigest(summary.digest as RunDigest),
      ];
    });
    return { format: FORMAT, fingerprints, entries, deadLocks: this.#deadKept };
  }
}

function storedDigest(digest: RunDigest): StoredDigest {
  const flat = (usages: Record<string, TokenUsage>) => Object.entries(usages).flatMap(([model, usage]) => [model, ...counts(usage)]);
  return [digest.bytes, digest.title ?? 0, digest.origin ?? 0, flat(digest.calls), flat(digest.compactions), counts(digest.copied), digest.imported ?? 0];
}

function counts(usage: TokenUsage): number[] {
  return [usage.calls, usage.inTokens, usage.outTokens, usage.cacheReadTokens, usage.cacheWriteTokens];
}

function usageOf(values: readonly (string | number)[], at: number): TokenUsage {
  const [calls, inTokens, outTokens, cacheReadTokens, cacheWriteTokens] = values.slice(at, at + 5) as number[];
  return {
    calls: calls ?? 0,
    inTokens: inTokens ?? 0,
    outTokens: outTokens ?? 0,
    cacheReadTokens: cacheReadTokens ?? 0,
    cacheWriteTokens: cacheWriteTokens ?? 0,
  };
}

function digestOf([bytes, title, origin, calls, compactions, copied, imported]: StoredDigest, status: RunStatus): RunDigest {
  const byModel = (flat: readonly (string | number)[]) => {
    const usages: Record<string, TokenUsage> = {};
    for (let at = 0; at + 5 < flat.length; at += 6) usages[flat[at] as string] = usageOf(flat, at + 1);
    return usages;
  };
  const digest: RunDigest = {
    bytes,
    status: status as RunDigest["status"],
    calls: byModel(calls),
    compactions: byModel(compactions),
    copied: usageOf(copied, 0),
  };
  if (title !== 0) digest.title = title;
  if (origin !== 0) digest.origin = origin;
  if (imported !== 0) digest.imported = imported;
  return digest;
}

/** Whether an entry or a dead lock, which both start [runId, size, mtimeMs, ino], was stored for a file with this key. */
function sameKey(stored: Entry | DeadLock, key: JournalKey): boolean {
  return stored[1] === key.size && stored[2] === key.mtimeMs && stored[3] === key.ino;
}

/** The shape only: the file is ours, in a 0700 directory; a stray entry is still checked against its journal's key. */
function cacheFileOf(value: unknown): CacheFile | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const file = value as Partial<CacheFile>;
  if (file.format !== FORMAT || !Array.isArray(file.fingerprints) || !Array.isArray(file.entries) || !Array.isArray(file.deadLocks)) return undefined;
  return { format: FORMAT, fingerprints: file.fingerprints, entries: file.entries.filter(isEntry), deadLocks: file.deadLocks.filter(isDeadLock) };
}

function isEntry(value: unknown): value is Entry {
  return (
    Array.isArray(value) &&
    value.length === 10 &&
    typeof value[0] === "string" &&
    typeof value[1] === "number" &&
    typeof value[2] === "number" &&
    typeof value[3] === "number" &&
    typeof value[4] === "string" &&
    typeof value[5] === "number" &&
    typeof value[6] === "string" &&
    typeof value[7] === "object" &&
    value[7] !== null &&
    typeof value[8] === "number" &&
    isStoredDigest(value[9])
  );
}

function isStoredDigest(value: unknown): value is StoredDigest {
  return (
    Array.isArray(value) &&
    value.length === 7 &&
    typeof value[0] === "number" &&
    (value[1] === 0 || typeof value[1] === "string") &&
    (value[2] === 0 || (typeof value[2] === "object" && value[2] !== null)) &&
    Array.isArray(value[3]) &&
    Array.isArray(value[4]) &&
    Array.isArray(value[5]) &&
    (value[6] === 0 || (typeof value[6] === "object" && value[6] !== null))
  );
}

function isDeadLock(value: unknown): value is DeadLock {
  return (
    Array.isArray(value) &&
    value.length === 4 &&
    typeof value[0] === "string" &&
    typeof value[1] === "number" &&
    typeof value[2] === "number" &&
    typeof value[3] === "number"
  );
}
