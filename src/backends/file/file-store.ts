// The embedded default backend (docs/durability.md, The file backend): each run is `<id>.json`, the journal,
// beside `<id>.lock`, in a 0700 directory of 0600 files.
import { constants } from "node:fs";
import { join } from "node:path";
import type { RunState } from "../../runstate/views/fold.js";
import type { DecodedJournal } from "../../runstate/records/journal-codec.js";
import type { JournalRecord, MetaPayload } from "../../runstate/records/records.js";
import type { Journal, JournalBytes, RunSummary, Store } from "../../runstate/store/store.js";
import { RunStateError } from "../../runstate/errors.js";
import {
  checkedMeta,
  checkedFromSeq,
  ImportCheck,
  corruptSummary,
  decodeRunStreamed,
  existsError,
  notFoundError,
  recordsOfLines,
  summarizeEnds,
  withLiveHolder,
} from "../../runstate/store/store-contract.js";
import { errnoCode, isRegularFile, makeDirectoryDurably, nodeFileSystem, pathExists, syncDirectory, writeFully, type FileSystem } from "./file-system.js";
import { digestLines, emptyDigest, emptyDigestFold, statusOnlyDigest, type RunDigest } from "../../runstate/views/run-digest.js";
import { fileJournal } from "./file-journal.js";
import { journalLines, lineOffset, lineWindows } from "./journal-lines.js";
import { completeLinesBackward, readJournalEnds } from "./journal-ends.js";
import { journalIds, lockIds, RunPaths } from "./run-paths.js";
import { acquireRunLock, peekLiveHolder, refuseSymlink, type RunLock } from "./run-lock.js";
import { defaultStateDir } from "../../runstate/state-dir.js";
import { SUMMARY_CACHE_NAME, SummaryCache } from "./summary-cache.js";

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;
/** What a journal is read in when it is decoded: large enough that a read costs little, small beside a long run's journal. */
const READ_CHUNK = 8 * 1024 * 1024;
const LIST_SLICE = 256;
const { O_RDONLY, O_RDWR, O_APPEND, O_CREAT, O_TRUNC, O_NOFOLLOW, O_NONBLOCK } = constants;

/** How to make a FileStore. */
export interface FileStoreOptions {
  /** The directory of runs; default `$XDG_STATE_HOME/fisk-ai/runs` or `~/.local/state/fisk-ai/runs`. */
  dir?: string | undefined;
}

/** What this package's tests and benchmarks change in a FileStore; not exported from the package. */
export interface FileStoreSeams {
  /** Default on. Off gives every append its own write and fsync, for the benchmark's comparison. */
  groupCommit?: boolean | undefined;
  /** The file-system calls, replaced to count and fail them. */
  fileSystem?: FileSystem | undefined;
}

/** The file system each FileStore calls, for the queue beside its runs to call the same (a test's recording one). */
const fileSystems = new WeakMap<FileStore, FileSystem>();

/** The file system `store` calls: what its queue calls too. */
export function fileSystemOf(store: FileStore): FileSystem {
  return fileSystems.get(store) ?? nodeFileSystem;
}

/** A FileStore with its seams set: for this package's tests and benchmarks only. */
export function fileStoreWithSeams(options: FileStoreOptions & FileStoreSeams): FileStore {
  return new FileStore(options);
}

/**
 * The default backend: each run is `<runId>.json`, its journal, beside `<runId>.lock`
 * while a writer holds it, in a 0700 directory of 0600 files that is made on first write.
 * Two processes on one directory see each other's runs, and the lock keeps one writer a run.
 */
export class FileStore implements Store {
  readonly writers = "user";
  /** The directory of runs, as given or defaulted. */
  readonly dir: string;
  readonly #fs: FileSystem;
  readonly #groupCommit: boolean;
  readonly #paths: RunPaths;
  #dirReady: Promise<void> | undefined;
  /**
   * Where each run's last readRecords stopped (the next seq, its line's offset, the file's
   * inode): a follower asking for the records after it starts there, not at the top of a
   * journal of a gigabyte.
   */
  readonly #readEnds = new Map<string, { seq: number; offset: number; ino: number }>();

  constructor(options: FileStoreOptions = {}) {
    this.dir = options.dir ?? defaultStateDir();
    // Set only through fileStoreWithSeams: the public options have neither.
    const seams = options as FileStoreSeams;
    this.#fs = seams.fileSystem ?? nodeFileSystem;
    fileSystems.set(this, this.#fs);
    this.#groupCommit = seams.groupCommit ?? true;
    this.#paths = new RunPaths(this.dir);
  }

  async create(runId: string, meta: MetaPayload): Promise<Journal> {
    const path = this.#paths.journal(runId);
    const { record, line } = checkedMeta(runId, meta);
    const { fd, lock } = await this.#createJournal(runId, path, Buffer.from(line));
    return fileJournal(this.#fs, fd, lock, runId, [record], this.#groupCommit);
  }

  async open(runId: string): Promise<Journal> {
    const path = this.#paths.journal(runId);
    await this.#requireJournal(runId, path);
    await this.#ensureDir();
    const lock = await acquireRunLock(this.#fs, this.#paths.lock(runId), runId);
    let fd: number | undefined;
    try {
      fd = await this.#openJournal(runId, path, O_RDWR | O_APPEND);
      const { records, completeLength, length } = await this.#decodeStreamed(runId, fd, path);
      if (completeLength < length) {
        // A torn final write: cut it so the next record does not land glued to it.
        await this.#fs.ftruncate(fd, completeLength);
        await this.#fs.fsync(fd);
      }
      return fileJournal(this.#fs, fd, lock, runId, records, this.#groupCommit);
    } catch (error) {
      if (fd !== undefined) await this.#fs.close(fd);
      await lock.release();
      throw error;
    }
  }

  async load(runId: string): Promise<RunState> {
    const path = this.#paths.journal(runId);
    const fd = await this.#openJournal(runId, path, O_RDONLY);
    try {
      return (await this.#decodeStreamed(runId, fd, path)).state;
    } finally {
      await this.#fs.close(fd);
    }
  }

  async list(): Promise<RunSummary[]> {
    let names: string[];
    try {
      names = await this.#fs.readdir(this.dir);
    } catch (error) {
      if (errnoCode(error) === "ENOENT") return [];
      throw error;
    }
    const runIds = journalIds(names);
    // A lock file is there only while a process holds its run, or after one died holding
    // it: only those runs need their holder's note read.
    const locked = new Set(lockIds(names));
    const cachePath = join(this.dir, SUMMARY_CACHE_NAME);
    const cache = SummaryCache.read(this.#fs, cachePath);
    const summaries: RunSummary[] = [];
    for (let index = 0; index < runIds.length; index++) {
      // Synchronous reads in slices: a tiny read costs less than its trip through the
      // thread pool, and yielding between slices keeps the event loop responsive.
      if (index > 0 && index % LIST_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
      const runId = runIds[index] as string;
      const summary = this.#summarize(runId, locked.has(runId), cache);
      if (summary !== undefined) summaries.push(summary);
    }
    await cache.write(this.#fs, cachePath);
    return summaries;
  }

  async summarize(runId: string, options: { digest?: boolean } = {}): Promise<RunSummary> {
    const summary = this.#summarize(runId, true, undefined, options.digest !== false);
    if (summary === undefined) throw notFoundError(runId);
    return summary;
  }

  async *readRecords(runId: string, fromSeq?: number): AsyncGenerator<JournalRecord> {
    const first = checkedFromSeq(fromSeq);
    const path = this.#paths.journal(runId);
    const fd = await this.#openJournal(runId, path, O_RDONLY);
    try {
      const { ino } = await this.#fs.fstat(fd);
      const known = this.#readEnds.get(runId);
      const from = known?.ino === ino && known.seq <= first ? known : { seq: 1, offset: 0 };
      const start = await lineOffset(this.#fs, fd, from.offset, from.seq, first);
      if (start === undefined) return;
      const lines = journalLines(this.#fs, fd, start, first);
      let end = { seq: first, offset: start, ino };
      const ends = async function* () {
        for await (const { line, end: offset } of lines) {
          yield line;
          end = { seq: end.seq + 1, offset, ino };
        }
      };
      try {
        yield* recordsOfLines(runId, path, first, ends());
      } finally {
        this.#readEnds.set(runId, end);
      }
    } finally {
      await this.#fs.close(fd);
    }
  }

  async readJournal(runId: string): Promise<Buffer> {
    const fd = await this.#openJournal(runId, this.#paths.journal(runId), O_RDONLY);
    try {
      return await this.#readAll(fd);
    } finally {
      await this.#fs.close(fd);
    }
  }

  /**
   * Reads each journal synchronously in windows of one buffer, in slices of journals between
   * which the event loop runs (as list does): for thousands of journals a read's trip
   * through the thread pool costs more than the read. A window ends at its last whole
   * line; the buffer grows only for a line longer than it, so memory holds the longest
   * record, not the largest journal.
   */
  async readJournals(visit: (runId: string, lines: Buffer) => boolean | void): Promise<void> {
    let names: string[];
    try {
      names = await this.#fs.readdir(this.dir);
    } catch (error) {
      if (errnoCode(error) === "ENOENT") return;
      throw error;
    }
    const runIds = journalIds(names);
    const scratch = { buffer: Buffer.allocUnsafe(READ_CHUNK) };
    for (let index = 0; index < runIds.length; index++) {
      if (index > 0 && index % LIST_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
      const runId = runIds[index] as string;
      let fd: number;
      try {
        fd = this.#fs.sync.open(this.#paths.journal(runId), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
      } catch {
        // Removed since the directory was read, or not a plain file (list says what is wrong with it).
        continue;
      }
      if (!isRegularFile(this.#fs.sync.fstat(fd))) {
        this.#fs.sync.close(fd);
        continue;
      }
      try {
        for (const window of lineWindows(this.#fs.sync, fd, 0, this.#fs.sync.fstat(fd).size, scratch)) if (visit(runId, window) === true) break;
      } finally {
        this.#fs.sync.close(fd);
      }
    }
  }

  /** Each piece is checked as it is written to the temporary file: nothing links into place until the whole has passed. */
  async importJournal(runId: string, journal: JournalBytes): Promise<void> {
    const path = this.#paths.journal(runId);
    const check = new ImportCheck(runId);
    const { fd, lock } = await this.#createJournal(runId, path, checked(journal, check));
    await this.#fs.close(fd);
    await lock.release();
  }

  async *readJournalPieces(runId: string): AsyncIterable<Uint8Array> {
    const fd = await this.#openJournal(runId, this.#paths.journal(runId), O_RDONLY);
    try {
      for (let position = 0; ; ) {
        // A piece of its own each time: the caller may hold it past the next read (a write in flight).
        const piece = Buffer.allocUnsafe(READ_CHUNK);
        const read = await this.#fs.read(fd, piece, 0, READ_CHUNK, position);
        if (read === 0) return;
        position += read;
        yield piece.subarray(0, read);
      }
    } finally {
      await this.#fs.close(fd);
    }
  }

  async delete(runId: string): Promise<void> {
    const path = this.#paths.journal(runId);
    await this.#requireJournal(runId, path);
    const lock = await acquireRunLock(this.#fs, this.#paths.lock(runId), runId);
    try {
      try {
        await this.#fs.unlink(path);
      } catch (error) {
        // Another delete won the race between our check and our lock.
        if (errnoCode(error) === "ENOENT") throw notFoundError(runId);
        throw error;
      }
      // A crash between link and unlink in #writeNewJournal leaves this second name behind.
      await this.#fs.unlink(`${path}.tmp`).catch(() => undefined);
      await this.#syncDir();
    } finally {
      await lock.release();
    }
  }

  /** Nothing to let go of: every journal closes its own file and lock. */
  async close(): Promise<void> {}

  /** A run's summary, read synchronously (see list); undefined when the run is gone. */
  #summarize(runId: string, mayBeHeld: boolean, cache?: SummaryCache, withDigest = true): RunSummary | undefined {
    const summary = this.#journalSummary(runId, cache, withDigest);
    if (summary === undefined || !mayBeHeld || summary.status === "corrupt") return summary;
    const lockPath = this.#paths.lock(runId);
    try {
      if (cache === undefined) return withLiveHolder(summary, peekLiveHolder(this.#fs, lockPath));
      // A crashed run's lock file stays: once its holder is known dead, one stat says it is the same file.
      const lock = this.#fs.sync.lstat(lockPath);
      // The lock file is the run's too: removing the run frees it.
      const withLock = summary.digest === undefined ? summary : { ...summary, digest: { ...summary.digest, bytes: summary.digest.bytes + lock.size } };
      if (cache.isDeadLock(runId, lock)) return withLock;
      const holder = peekLiveHolder(this.#fs, lockPath);
      // An empty note is a holder between its flock and its note: alive, for all we know.
      if (holder === undefined && lock.size > 0) cache.setDeadLock(runId, lock);
      return withLiveHolder(withLock, holder);
    } catch (error) {
      // Released since the directory was read: no holder.
      if (errnoCode(error) === "ENOENT") return summary;
      return corruptSummary(runId, new Date(summary.updated), error);
    }
  }

  /**
   * What the journal says from its first and last records, or from the cache when the
   * journal's size, mtime and inode are still those the cached summary was read at.
   */
  #journalSummary(runId: string, cache: SummaryCache | undefined, withDigest: boolean): RunSummary | undefined {
    const path = this.#paths.journal(runId);
    if (cache?.has(runId) === true) {
      try {
        const stat = this.#fs.sync.lstat(path);
        // Anything but a plain file (a symlink) is for the full read below to refuse.
        const cached = stat.isFile() ? cache.get(runId, stat) : undefined;
        if (cached !== undefined) return cached;
      } catch (error) {
        if (errnoCode(error) === "ENOENT") return undefined;
      }
    }
    let fd: number;
    try {
      // Non-blocking: a FIFO where a journal goes must not stop a listing.
      fd = this.#fs.sync.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    } catch (error) {
      // Removed since the directory was read: it is no longer there to list.
      if (errnoCode(error) === "ENOENT") return undefined;
      return corruptSummary(runId, new Date(0), refuseSymlink(error, path));
    }
    let updated = new Date(0);
    try {
      const stat = this.#fs.sync.fstat(fd);
      updated = stat.mtime;
      if (!isRegularFile(stat)) throw notRegularFile(path);
      if (!withDigest) {
        const ends = readJournalEnds(this.#fs.sync, fd, stat.size);
        const { digest: _status, ...summary } = summarizeEnds(
          runId,
          path,
          ends,
          updated,
          statusOnlyDigest(completeLinesBackward(this.#fs.sync, fd, stat.size, 0)),
        );
        return summary;
      }
      const digest = emptyDigest();
      this.#digestFrom(fd, stat.size, digest);
      // What the file holds, a torn tail included: what removing it frees.
      digest.bytes = stat.size;
      const summary = summarizeEnds(runId, path, readJournalEnds(this.#fs.sync, fd, stat.size), updated, digest);
      cache?.set(runId, stat, summary);
      return summary;
    } catch (error) {
      return corruptSummary(runId, updated, error);
    } finally {
      this.#fs.sync.close(fd);
    }
  }

  /** Advances `digest` by every complete line of the journal, `size` bytes, read a chunk at a time, with the fold's rules checked. */
  #digestFrom(fd: number, size: number, digest: RunDigest): void {
    const fold = emptyDigestFold();
    let model: string | undefined;
    const scratch = { buffer: Buffer.allocUnsafe(Math.min(READ_CHUNK, Math.max(1, size))) };
    for (const window of lineWindows(this.#fs.sync, fd, 0, size, scratch)) model = digestLines(digest, fold, window, model).model;
  }

  /** A new run's journal, written whole, with its lock held. */
  async #createJournal(runId: string, path: string, bytes: Buffer | AsyncIterable<Uint8Array>): Promise<{ fd: number; lock: RunLock }> {
    // Asked before the lock, so an existing id is ERR_EXISTS even while its writer runs.
    if (await pathExists(this.#fs, path)) throw existsError(runId);
    await this.#ensureDir();
    const lock = await acquireRunLock(this.#fs, this.#paths.lock(runId), runId);
    try {
      return { fd: await this.#writeNewJournal(runId, path, bytes), lock };
    } catch (error) {
      await lock.release();
      throw error;
    }
  }

  /**
   * Makes a journal appear whole or not at all: its bytes go to a temporary file that
   * is synced and then hard-linked into place (link refuses an existing name, where
   * rename would replace it), and the directory is synced so the new run survives a
   * crash. Returns an open descriptor of the journal for appending.
   */
  async #writeNewJournal(runId: string, path: string, bytes: Buffer | AsyncIterable<Uint8Array>): Promise<number> {
    const temporary = `${path}.tmp`;
    let fd: number;
    try {
      fd = await this.#fs.open(temporary, O_RDWR | O_APPEND | O_CREAT | O_TRUNC | O_NOFOLLOW, FILE_MODE);
    } catch (error) {
      throw refuseSymlink(error, temporary);
    }
    try {
      await this.#fs.fchmod(fd, FILE_MODE);
      if (Buffer.isBuffer(bytes)) await writeFully(this.#fs, fd, bytes);
      else for await (const piece of bytes) await writeFully(this.#fs, fd, piece);
      await this.#fs.fdatasync(fd);
      try {
        await this.#fs.link(temporary, path);
      } catch (error) {
        throw errnoCode(error) === "EEXIST" ? existsError(runId) : error;
      }
      // The journal is in place from here on: a second name left behind is only litter,
      // which delete() sweeps up, not a reason to report the journal as not written.
      await this.#fs.unlink(temporary).catch(() => undefined);
      await this.#syncDir();
      return fd;
    } catch (error) {
      await this.#fs.close(fd);
      await this.#fs.unlink(temporary).catch(() => undefined);
      throw error;
    }
  }

  async #openJournal(runId: string, path: string, flags: number): Promise<number> {
    let fd: number;
    try {
      fd = await this.#fs.open(path, flags | O_NOFOLLOW | O_NONBLOCK);
    } catch (error) {
      if (errnoCode(error) === "ENOENT") throw notFoundError(runId);
      throw refuseSymlink(error, path);
    }
    if (!isRegularFile(await this.#fs.fstat(fd))) {
      await this.#fs.close(fd);
      throw notRegularFile(path);
    }
    return fd;
  }

  async #requireJournal(runId: string, path: string): Promise<void> {
    if (!(await pathExists(this.#fs, path))) throw notFoundError(runId);
  }

  /**
   * Decodes and folds a journal as it is read, a chunk at a time: a resume of a journal of
   * a gigabyte holds its records, not its bytes besides. `length` is the bytes read.
   */
  async #decodeStreamed(runId: string, fd: number, path: string): Promise<DecodedJournal & { state: RunState; length: number }> {
    let length = 0;
    const decoded = await decodeRunStreamed(runId, path, async (decoder) => {
      const chunk = Buffer.allocUnsafe(READ_CHUNK);
      for (;;) {
        const read = await this.#fs.read(fd, chunk, 0, READ_CHUNK, length);
        if (read === 0) return;
        length += read;
        decoder.push(chunk.subarray(0, read));
      }
    });
    return { ...decoded, length };
  }

  /** The file's bytes; a file cut shorter while being read (a torn tail repaired) gives what is left. */
  async #readAll(fd: number): Promise<Buffer> {
    const { size } = await this.#fs.fstat(fd);
    const bytes = Buffer.allocUnsafe(size);
    let done = 0;
    while (done < size) {
      const read = await this.#fs.read(fd, bytes, done, size - done, done);
      if (read === 0) break;
      done += read;
    }
    return bytes.subarray(0, done);
  }

  /**
   * Creates the directory 0700, or tightens an existing one that is looser. Each level it
   * makes is synced into its parent: on the first run on a machine a power cut must not
   * take the new directories, and the journals in them, away after tools already ran.
   */
  #ensureDir(): Promise<void> {
    this.#dirReady ??= (async () => {
      await makeDirectoryDurably(this.#fs, this.dir, DIR_MODE);
      const stat = await this.#fs.lstat(this.dir);
      if ((stat.mode & 0o777) !== DIR_MODE) await this.#fs.chmod(this.dir, DIR_MODE);
    })().catch((error: unknown) => {
      this.#dirReady = undefined;
      throw error;
    });
    return this.#dirReady;
  }

  #syncDir(dir: string = this.dir): Promise<void> {
    return syncDirectory(this.#fs, dir);
  }
}

/** The run ids among file names with that suffix; anything else in the directory is not ours. */

/** ERR_CORRUPT: a FIFO, a directory or a device where a journal goes. */
function notRegularFile(path: string): RunStateError {
  return new RunStateError("ERR_CORRUPT", `${path} is not a regular file: remove it, fisk-ai only uses its own files`);
}

/** The pieces of `journal` as they pass `check`, which has had them all when the last is taken (and throws then if the whole does not pass). */
async function* checked(journal: JournalBytes, check: ImportCheck): AsyncIterable<Uint8Array> {
  for await (const piece of journal instanceof Uint8Array ? [journal] : journal) {
    check.push(piece);
    yield piece;
  }
  check.finish();
}
