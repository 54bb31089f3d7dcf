// The embedded default backend (SPEC section 5): each run is `<id>.json`, the journal,
// beside `<id>.lock`, in a 0700 directory of 0600 files.
import { constants } from "node:fs";
import { join } from "node:path";
import { RunStateError } from "../errors.js";
import { assertReadableVersion, fold, type RunState } from "../fold.js";
import { decodeJournal, decodeRecordLine, encodeRecord } from "../journal-codec.js";
import { checkRecord, PROTOCOLS, type MetaPayload, type MetaRecord } from "../records.js";
import { assertRunId, isValidRunId } from "../run-id.js";
import type { Journal, RunSummary, Store } from "../store.js";
import { errnoCode, nodeFileSystem, type FileSystem } from "./file-system.js";
import { FileJournal } from "./file-journal.js";
import { readFully, readJournalEnds } from "./journal-ends.js";
import { acquireRunLock, refuseSymlink, type RunLock } from "./run-lock.js";
import { defaultStateDir } from "./state-dir.js";

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;
const JOURNAL_SUFFIX = ".json";
const LIST_CONCURRENCY = 32;
const { O_RDONLY, O_RDWR, O_APPEND, O_CREAT, O_TRUNC, O_NOFOLLOW, O_DIRECTORY } = constants;

export interface FileStoreOptions {
  /** The directory of runs; default `$XDG_STATE_HOME/fisk-ai/runs` or `~/.local/state/fisk-ai/runs`. */
  dir?: string;
  /** Default on. Off gives every append its own write and fsync. */
  groupCommit?: boolean;
  /** The file-system calls, replaceable so tests can count and fail them. */
  fileSystem?: FileSystem;
}

export class FileStore implements Store {
  readonly dir: string;
  readonly #fs: FileSystem;
  readonly #groupCommit: boolean;
  #dirReady: Promise<void> | undefined;

  constructor(options: FileStoreOptions = {}) {
    this.dir = options.dir ?? defaultStateDir();
    this.#fs = options.fileSystem ?? nodeFileSystem;
    this.#groupCommit = options.groupCommit ?? true;
  }

  journalPath(runId: string): string {
    assertRunId(runId);
    return join(this.dir, runId + JOURNAL_SUFFIX);
  }

  lockPath(runId: string): string {
    assertRunId(runId);
    return join(this.dir, `${runId}.lock`);
  }

  async create(runId: string, meta: MetaPayload): Promise<Journal> {
    const path = this.journalPath(runId);
    const record = checkedMeta(runId, meta);
    await this.#ensureDir();
    const lock = await acquireRunLock(this.#fs, this.lockPath(runId), runId);
    try {
      const fd = await this.#writeNewJournal(runId, path, Buffer.from(encodeRecord(record)));
      return new FileJournal(this.#fs, fd, lock, runId, [record], { groupCommit: this.#groupCommit });
    } catch (error) {
      await lock.release();
      throw error;
    }
  }

  async open(runId: string): Promise<Journal> {
    const path = this.journalPath(runId);
    await this.#requireJournal(runId, path);
    await this.#ensureDir();
    const lockPath = this.lockPath(runId);
    const lock = await acquireRunLock(this.#fs, lockPath, runId);
    let fd: number | undefined;
    try {
      fd = await this.#openJournal(runId, path, O_RDWR | O_APPEND);
      const bytes = await this.#readAll(fd);
      const { records, completeLength } = decodeJournal(bytes);
      // Validates the whole run, the version included, before anything is added to it.
      assertHoldsRun(path, runId, fold(records));
      if (completeLength < bytes.length) {
        // A torn final write: cut it so the next record does not land glued to it.
        await this.#fs.ftruncate(fd, completeLength);
        await this.#fs.fsync(fd);
      }
      return new FileJournal(this.#fs, fd, lock, runId, records, { groupCommit: this.#groupCommit });
    } catch (error) {
      if (fd !== undefined) await this.#fs.close(fd);
      await this.#releaseAfterFailedOpen(lock, lockPath, error);
      throw error;
    }
  }

  async load(runId: string): Promise<RunState> {
    const fd = await this.#openJournal(runId, this.journalPath(runId), O_RDONLY);
    try {
      return assertHoldsRun(this.journalPath(runId), runId, fold(decodeJournal(await this.#readAll(fd)).records));
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
    const runIds = names
      .filter((name) => name.endsWith(JOURNAL_SUFFIX))
      .map((name) => name.slice(0, -JOURNAL_SUFFIX.length))
      .filter(isValidRunId);
    const summaries: (RunSummary | undefined)[] = new Array(runIds.length);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < runIds.length) {
        const index = next++;
        summaries[index] = await this.#summarize(runIds[index] as string);
      }
    };
    await Promise.all(Array.from({ length: Math.min(LIST_CONCURRENCY, runIds.length) }, worker));
    return summaries.filter((summary): summary is RunSummary => summary !== undefined);
  }

  async delete(runId: string): Promise<void> {
    const path = this.journalPath(runId);
    await this.#requireJournal(runId, path);
    const lockPath = this.lockPath(runId);
    const lock = await acquireRunLock(this.#fs, lockPath, runId);
    try {
      await this.#fs.unlink(path);
      // Unlinked while held: a process that opened the old lock file sees it is gone.
      await this.#fs.unlink(lockPath);
      await this.#syncDir();
    } finally {
      await lock.release();
    }
  }

  async #summarize(runId: string): Promise<RunSummary | undefined> {
    let fd: number;
    try {
      fd = await this.#openJournal(runId, this.journalPath(runId), O_RDONLY);
    } catch (error) {
      // Removed since the directory was read: it is no longer there to list.
      if (error instanceof RunStateError && error.code === "ERR_NOT_FOUND") return undefined;
      return corruptSummary(runId, new Date(0), error);
    }
    try {
      const stat = await this.#fs.fstat(fd);
      try {
        const ends = await readJournalEnds(this.#fs, fd, stat.size);
        if (ends.first === undefined || ends.last === undefined) {
          throw new RunStateError("ERR_EMPTY", `session ${runId} has no complete record`);
        }
        const first = decodeRecordLine(ends.first, 1);
        if (first.protocol !== PROTOCOLS.meta) {
          throw new RunStateError("ERR_NO_META", `session ${runId} does not start with a meta record`);
        }
        assertReadableVersion(first.meta);
        assertHoldsRun(this.journalPath(runId), runId, { runId: first.meta.run_id });
        const last = ends.last === ends.first ? first : decodeRecordLine(ends.last);
        return {
          runId,
          status: last.protocol === PROTOCOLS.terminal ? last.terminal.reason : "open",
          meta: first.meta,
          lastSeq: last.seq,
          last,
          updated: stat.mtime.toISOString(),
        };
      } catch (error) {
        return corruptSummary(runId, stat.mtime, error);
      }
    } finally {
      await this.#fs.close(fd);
    }
  }

  /**
   * Makes a journal appear whole or not at all: its bytes go to a temporary file that
   * is synced and then hard-linked into place (link refuses an existing name, where
   * rename would replace it), and the directory is synced so the new run survives a
   * crash. Returns an open descriptor of the journal for appending.
   */
  async #writeNewJournal(runId: string, path: string, bytes: Buffer): Promise<number> {
    if (await this.#exists(path)) throw existsError(runId);
    const temporary = `${path}.tmp`;
    let fd: number;
    try {
      fd = await this.#fs.open(temporary, O_RDWR | O_APPEND | O_CREAT | O_TRUNC | O_NOFOLLOW, FILE_MODE);
    } catch (error) {
      throw refuseSymlink(error, temporary);
    }
    try {
      await this.#fs.fchmod(fd, FILE_MODE);
      await this.#fs.write(fd, bytes, null);
      await this.#fs.fdatasync(fd);
      try {
        await this.#fs.link(temporary, path);
      } catch (error) {
        throw errnoCode(error) === "EEXIST" ? existsError(runId) : error;
      }
      await this.#fs.unlink(temporary);
      await this.#syncDir();
      return fd;
    } catch (error) {
      await this.#fs.close(fd);
      await this.#fs.unlink(temporary).catch(() => undefined);
      throw error;
    }
  }

  async #openJournal(runId: string, path: string, flags: number): Promise<number> {
    try {
      return await this.#fs.open(path, flags | O_NOFOLLOW);
    } catch (error) {
      if (errnoCode(error) === "ENOENT") throw notFoundError(runId);
      throw refuseSymlink(error, path);
    }
  }

  async #requireJournal(runId: string, path: string): Promise<void> {
    if (!(await this.#exists(path))) throw notFoundError(runId);
  }

  async #exists(path: string): Promise<boolean> {
    try {
      await this.#fs.lstat(path);
      return true;
    } catch (error) {
      if (errnoCode(error) === "ENOENT") return false;
      throw error;
    }
  }

  async #readAll(fd: number): Promise<Buffer> {
    const { size } = await this.#fs.fstat(fd);
    const bytes = Buffer.allocUnsafe(size);
    await readFully(this.#fs, fd, bytes, 0);
    return bytes;
  }

  /** Creates the directory 0700, or tightens an existing one that is looser. */
  #ensureDir(): Promise<void> {
    this.#dirReady ??= (async () => {
      await this.#fs.mkdir(this.dir, DIR_MODE);
      const stat = await this.#fs.lstat(this.dir);
      if ((stat.mode & 0o777) !== DIR_MODE) await this.#fs.chmod(this.dir, DIR_MODE);
    })().catch((error: unknown) => {
      this.#dirReady = undefined;
      throw error;
    });
    return this.#dirReady;
  }

  async #syncDir(): Promise<void> {
    const fd = await this.#fs.open(this.dir, O_RDONLY | O_DIRECTORY);
    try {
      await this.#fs.fsync(fd);
    } finally {
      await this.#fs.close(fd);
    }
  }

  /** An open that found no journal removes the lock file it made; otherwise just unlocks. */
  async #releaseAfterFailedOpen(lock: RunLock, lockPath: string, error: unknown): Promise<void> {
    if (error instanceof RunStateError && error.code === "ERR_NOT_FOUND") {
      await this.#fs.unlink(lockPath).catch(() => undefined);
    }
    await lock.release();
  }
}

function checkedMeta(runId: string, meta: MetaPayload): MetaRecord {
  if (meta.run_id !== runId) {
    throw new RunStateError("ERR_INVALID_RECORD", `meta.run_id ${JSON.stringify(meta.run_id)} does not match session id ${runId}`);
  }
  assertReadableVersion(meta);
  const record: MetaRecord = { seq: 1, protocol: PROTOCOLS.meta, meta };
  const checked = checkRecord(record);
  if (!checked.ok) throw new RunStateError("ERR_INVALID_RECORD", `refusing to create session ${runId}: ${checked.problem}`);
  return record;
}

/** A journal copied or renamed by hand would otherwise pass for another session. */
function assertHoldsRun<T extends { runId: string }>(path: string, runId: string, state: T): T {
  if (state.runId !== runId) {
    throw new RunStateError("ERR_CORRUPT", `${path} holds session ${state.runId}, not ${runId}: rename it back, or import it under a new name`, {
      seq: 1,
    });
  }
  return state;
}

function notFoundError(runId: string): RunStateError {
  return new RunStateError("ERR_NOT_FOUND", `no session ${runId}: 'fisk-ai session ls' lists the sessions there are`);
}

function existsError(runId: string): RunStateError {
  return new RunStateError("ERR_EXISTS", `session ${runId} already exists: choose another name or resume it`);
}

function corruptSummary(runId: string, updated: Date, error: unknown): RunSummary {
  return {
    runId,
    status: "corrupt",
    meta: undefined,
    lastSeq: 0,
    last: undefined,
    updated: updated.toISOString(),
    problem: error instanceof Error ? error.message : String(error),
  };
}
