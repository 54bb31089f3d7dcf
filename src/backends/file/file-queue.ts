// The file backend of the queue (one machine, no server): each queued run is
// `<id>.json` in a `queue` directory beside the runs, made durably (written aside,
// fsynced, linked into place, the directory fsynced) so a submit that returned survives
// a crash. Workers poll the directory (a readdir) and claim a run by opening it in the
// store, which takes its kernel lock: a dead worker's run is free the instant the kernel
// drops that lock, and its entry still waits for the next worker. A waiting worker or
// follower hears of a change by fs.watch on the directory (RunQueue.watch). A follow-up to a run
// the queue has already waits behind it in `<id>.behind/`, one file each, named so that
// names sort in submission order (`.interrupt` in the name asks the claim ahead to stop);
// the claim ahead promotes the oldest when it finishes, under the run's hold. Anyone who
// can write the directory can put anything in it: each entry is read as a regular file
// (lstat, then opened O_NOFOLLOW|O_NONBLOCK, so a symlink is refused and a FIFO cannot
// block), under QUEUE_ENTRY_MAX_BYTES, and one that is bad is moved to `quarantine/`.
import { constants } from "node:fs";
import { rm } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { basename, dirname, join, relative } from "node:path";
import { RunStateError } from "../../runstate/errors.js";
import { errnoCode, isRegularFile, makeDirectoryDurably, nodeFileSystem, pathExists, syncDirectory, writeFully, type FileSystem } from "./file-system.js";
import { FileStore, fileSystemOf } from "./file-store.js";
import { RunPaths } from "./run-paths.js";
import { assertRunId, isValidRunId } from "../../runstate/records/run-id.js";
import type { Journal, Store } from "../../runstate/store/store.js";
import {
  alreadyQueuedError,
  byQueuedTime,
  decodeEntry,
  drivenError,
  encodeEntry,
  isPromotionOf,
  notQueuedError,
  oversizedReason,
  promotedFollowUp,
  QUEUE_ENTRY_MAX_BYTES,
  type Accepts,
  type Claim,
  type EnqueueOptions,
  type QueuedRun,
  type QueueWatch,
  type RunQueue,
  type WaitingFollowUp,
  waitsBehind,
} from "../../queue/run-queue.js";
import { DirectoryChanges, type ChangeListener } from "./directory-changes.js";
import { QueueWatches } from "../../queue/queue-watch.js";
import { notQuarantinedError, QuarantineListeners, quarantineName, type QuarantinedEntry, type QuarantineListener } from "../../queue/quarantine.js";

const ENTRY_SUFFIX = ".json";
const BEHIND_SUFFIX = ".behind";
const QUARANTINE_DIR = "quarantine";
const INTERRUPT_MARK = ".interrupt";
/** How often a claim looks for a follow-up that asks to interrupt its run. */
const INTERRUPT_POLL_MS = 100;

/** How to make a FileQueue. */
export interface FileQueueOptions {
  /** The queue's directory: by convention `queue` inside the file store's directory (fileQueueDir). */
  dir: string;
  /** The store the queued runs are in: a claim is its open(). */
  store: Store;
}

/** The queue directory of a file store's directory of runs. */
export function fileQueueDir(runsDir: string): string {
  return join(runsDir, "queue");
}

/** The file backend of RunQueue: see the top of this module. */
export class FileQueue implements RunQueue {
  /** The queue's directory. */
  readonly dir: string;
  readonly #store: Store;
  readonly #fs: FileSystem;
  readonly #changes = new DirectoryChanges();
  readonly #watches = new QueueWatches();
  readonly #quarantine = new QuarantineListeners();
  #dirReady: Promise<void> | undefined;

  constructor(options: FileQueueOptions) {
    this.dir = options.dir;
    this.#store = options.store;
    // A file store's own calls, so that a test that records the store's records the queue's too.
    this.#fs = options.store instanceof FileStore ? fileSystemOf(options.store) : nodeFileSystem;
  }

  async enqueue(entry: QueuedRun, options: EnqueueOptions = {}): Promise<void> {
    await this.#ensureDir();
    const aside = await this.#writeAside(entry);
    try {
      await this.#fs.link(aside, this.#path(entry.runId));
    } catch (error) {
      if (errnoCode(error) !== "EEXIST") throw error;
      if (!waitsBehind(entry)) throw alreadyQueuedError(entry.runId);
      await this.#waitBehind(aside, entry.runId, options.interrupt === true);
      return;
    } finally {
      await this.#fs.unlink(aside).catch(() => undefined);
    }
    await this.#syncDir();
  }

  async list(): Promise<QueuedRun[]> {
    let names: string[];
    try {
      names = await this.#fs.readdir(this.dir);
    } catch (error) {
      if (errnoCode(error) === "ENOENT") return [];
      throw error;
    }
    const entries = await Promise.all(
      names.map(async (name) => {
        if (name.endsWith(BEHIND_SUFFIX)) await this.#checkBehindDir(join(this.dir, name));
        if (!name.endsWith(ENTRY_SUFFIX)) return undefined;
        const runId = name.slice(0, -ENTRY_SUFFIX.length);
        if (isValidRunId(runId)) return this.get(runId);
        await this.#setAside(join(this.dir, name), `its name is no session id's ${ENTRY_SUFFIX}`);
        return undefined;
      }),
    );
    return entries.filter((entry) => entry !== undefined).sort(byQueuedTime);
  }

  async get(runId: string): Promise<QueuedRun | undefined> {
    return this.#readEntry(this.#path(runId), runId);
  }

  async quarantined(): Promise<QuarantinedEntry[]> {
    let names: string[];
    try {
      names = await this.#fs.readdir(this.#quarantineDir());
    } catch (error) {
      if (errnoCode(error) === "ENOENT") return [];
      throw error;
    }
    return Promise.all(names.sort().map(async (name) => ({ name, reason: await this.#reasonOf(name) })));
  }

  async discard(name: string): Promise<void> {
    // A name read from the quarantine is one level under it, never a path.
    if (name !== quarantineName(name)) throw notQuarantinedError(name);
    const path = join(this.#quarantineDir(), name);
    try {
      await this.#fs.lstat(path);
    } catch (error) {
      if (errnoCode(error) === "ENOENT") throw notQuarantinedError(name);
      throw error;
    }
    // A symlink goes, not what it points to; a directory set aside goes with what it holds.
    await rm(path, { recursive: true, force: true });
    await this.#syncDir(this.#quarantineDir());
  }

  onQuarantine(listener: QuarantineListener): () => void {
    return this.#quarantine.add(listener);
  }

  async withdraw(runId: string): Promise<void> {
    if ((await this.get(runId)) === undefined) throw notQueuedError(runId);
    // Held while the entry goes, so no worker can be starting it meanwhile.
    const journal = await this.#hold(runId);
    if (journal === "held") throw drivenError(runId);
    try {
      await this.#remove(runId);
      await this.#removeBehind(runId);
    } finally {
      await journal?.close();
    }
  }

  async behind(runId: string): Promise<WaitingFollowUp[]> {
    return (await this.#waiting(runId)).map(({ path, entry }) => ({ entry, interrupts: path.endsWith(INTERRUPT_MARK + ENTRY_SUFFIX) }));
  }

  async unpark(runId: string): Promise<void> {
    const entry = await this.get(runId);
    if (entry?.state !== "parked") throw notQueuedError(runId, "parked");
    await this.#replace({ ...entry, state: "queued" });
  }

  async claim(accepts: Accepts): Promise<Claim | undefined> {
    for (const entry of await this.list()) {
      if (entry.state !== "queued" || !accepts(entry)) continue;
      const journal = await this.#hold(entry.runId);
      if (journal === "held" || journal === undefined) continue;
      // Read again under the hold: the worker that had it may have finished it just before.
      const now = await this.get(entry.runId).catch(() => undefined);
      if (now?.state !== "queued") {
        await journal.close();
        continue;
      }
      return this.#claimOf(now, journal);
    }
    return undefined;
  }

  watch(runId?: string): QueueWatch {
    const entryName = runId === undefined ? undefined : basename(this.#path(runId));
    // An entry's file, not a file written aside to be linked into place.
    const entryChanged = (name: string | null) => name === null || (entryName === undefined ? name.endsWith(ENTRY_SUFFIX) : name === entryName);
    const journal = runId !== undefined && this.#store instanceof FileStore ? new RunPaths(this.#store.dir).journal(runId) : undefined;
    return this.#watches.open((changed) => {
      const stops: (() => void)[] = [];
      let stopped = false;
      const listen = (dir: string, heard: (name: string | null) => boolean) => {
        const listener: ChangeListener = (name) => heard(name) && changed();
        if (!stopped) stops.push(this.#changes.listen(dir, listener));
      };
      // Made if missing: a worker may wait before anything was ever queued.
      void this.#ensureDir().then(
        () => listen(this.dir, entryChanged),
        () => undefined,
      );
      if (journal !== undefined) listen(dirname(journal), (name) => name === null || name === basename(journal));
      return () => {
        stopped = true;
        for (const stop of stops) stop();
      };
    });
  }

  async close(): Promise<void> {
    // Nothing else is held between calls: every claim holds its own journal.
    this.#watches.closeAll();
    this.#changes.close();
  }

  #claimOf(entry: QueuedRun, journal: Journal): Claim {
    const interrupt = new AbortController();
    const look = async () => {
      // Only the follow-ups that interrupt are read: their names say so.
      const interrupting = await this.#waiting(entry.runId, INTERRUPT_MARK + ENTRY_SUFFIX).catch(() => []);
      if (interrupting.some(({ entry: behind }) => !isPromotionOf(entry, behind))) interrupt.abort(new Error("a follow-up interrupts the run"));
    };
    const looking = setInterval(() => void look().then(() => interrupt.signal.aborted && clearInterval(looking)), INTERRUPT_POLL_MS);
    looking.unref();
    void look();
    const settle = (change: () => Promise<void>) => async () => {
      clearInterval(looking);
      try {
        await change();
      } finally {
        await journal.close();
      }
    };
    return {
      entry,
      journal: {
        runId: journal.runId,
        get lastSeq() {
          return journal.lastSeq;
        },
        append: (seq, record) => journal.append(seq, record),
        records: () => journal.records(),
        // Closed unsettled (a worker that dies): the look for interrupts ends with it.
        close: async () => {
          clearInterval(looking);
          await journal.close();
        },
      },
      interrupted: interrupt.signal,
      finish: settle(async () => {
        if (await this.#promoteNext(entry.runId, entry, journal.lastSeq, "replace")) return;
        await this.#remove(entry.runId);
        // A follow-up that came to wait behind after the look above: its submitter may have seen the entry still here.
        await this.#promoteNext(entry.runId, entry, journal.lastSeq, "link");
      }),
      park: settle(() => this.#replace({ ...entry, state: "parked" })),
      handBack: settle(async () => undefined),
    };
  }

  /** A follow-up whose run has an entry already: it waits behind it; promoted here if the claim ahead finished meanwhile without seeing it. */
  async #waitBehind(aside: string, runId: string, interrupt: boolean): Promise<void> {
    const dir = this.#behindDir(runId);
    await this.#fs.mkdir(dir, 0o700);
    const name = `${String(Date.now()).padStart(15, "0")}-${randomBytes(4).toString("hex")}${interrupt ? INTERRUPT_MARK : ""}${ENTRY_SUFFIX}`;
    await this.#fs.link(aside, join(dir, name));
    await this.#syncDir(dir);
    await this.#syncDir();
    if ((await this.get(runId)) !== undefined) return;
    const journal = await this.#hold(runId);
    try {
      const lastSeq = journal === "held" || journal === undefined ? (await this.#store.summarize(runId)).lastSeq : journal.lastSeq;
      await this.#promoteNext(runId, undefined, lastSeq, "link");
    } finally {
      if (journal !== "held") await journal?.close();
    }
  }

  /**
   * The oldest follow-up waiting behind a run becomes its entry: `replace` rewrites the
   * entry of the claim that finished (`done`), `link` makes one where there is none (and
   * leaves one that appeared meanwhile). Whether one was promoted or an entry stands.
   */
  async #promoteNext(runId: string, done: QueuedRun | undefined, lastSeq: number, how: "replace" | "link"): Promise<boolean> {
    for (const { path, entry } of await this.#waiting(runId)) {
      if (done !== undefined && isPromotionOf(done, entry)) {
        await this.#fs.unlink(path).catch(() => undefined);
        continue;
      }
      const next = promotedFollowUp(entry, lastSeq);
      if (how === "replace") await this.#replace(next);
      else {
        const aside = await this.#writeAside(next);
        try {
          await this.#fs.link(aside, this.#path(runId));
        } catch (error) {
          if (errnoCode(error) !== "EEXIST") throw error;
          return true;
        } finally {
          await this.#fs.unlink(aside).catch(() => undefined);
        }
        await this.#syncDir();
      }
      await this.#fs.unlink(path).catch(() => undefined);
      await this.#syncDir(this.#behindDir(runId));
      return true;
    }
    return false;
  }

  /** The follow-ups waiting behind a run, oldest first: those whose file name ends in `suffix` (every one, by default). */
  async #waiting(runId: string, suffix = ENTRY_SUFFIX): Promise<{ path: string; entry: QueuedRun }[]> {
    const dir = this.#behindDir(runId);
    if (!(await this.#checkBehindDir(dir))) return [];
    let names: string[];
    try {
      names = (await this.#fs.readdir(dir)).filter((name) => name.endsWith(suffix)).sort();
    } catch (error) {
      if (errnoCode(error) === "ENOENT") return [];
      throw error;
    }
    const waiting: { path: string; entry: QueuedRun }[] = [];
    for (const name of names) {
      const path = join(dir, name);
      const entry = await this.#readEntry(path, runId);
      if (entry !== undefined) waiting.push({ path, entry });
    }
    return waiting;
  }

  /** The entry at `path`, kept as `runId`'s; undefined when it is gone, or was bad and is set aside now. */
  async #readEntry(path: string, runId: string): Promise<QueuedRun | undefined> {
    const read = await readEntryFile(this.#fs, path);
    if (read === undefined) return undefined;
    if (typeof read === "string") return this.#setAside(path, read);
    try {
      return decodeEntry(read, runId);
    } catch (error) {
      if (!(error instanceof RunStateError && error.code === "ERR_CORRUPT")) throw error;
      return this.#setAside(path, error.message);
    }
  }

  /** Whether a run's follow-up folder is one (or absent); anything else in its place is set aside. */
  async #checkBehindDir(path: string): Promise<boolean> {
    try {
      if ((await this.#fs.lstat(path)).isDirectory()) return true;
    } catch (error) {
      if (errnoCode(error) === "ENOENT") return false;
      throw error;
    }
    await this.#setAside(path, "not a directory where a run's follow-ups wait");
    return false;
  }

  /**
   * Moves a bad entry (or follow-up folder) into the quarantine under a name made of where
   * it was, and tells the listeners; one another process moved first is left to it.
   */
  async #setAside(path: string, reason: string): Promise<undefined> {
    const quarantine = this.#quarantineDir();
    await makeDirectoryDurably(this.#fs, quarantine, 0o700);
    if (!(await this.#fs.lstat(quarantine)).isDirectory())
      throw new RunStateError("ERR_CORRUPT", `${quarantine} is not a directory: remove it, and the queue sets bad entries aside there again`);
    let name = quarantineName(relative(this.dir, path));
    if (await pathExists(this.#fs, join(quarantine, name))) name = `${name}.${randomBytes(4).toString("hex")}`;
    try {
      await this.#fs.rename(path, join(quarantine, name));
    } catch (error) {
      if (errnoCode(error) === "ENOENT") return undefined;
      throw error;
    }
    await this.#syncDir(quarantine);
    await this.#syncDir(dirname(path));
    this.#quarantine.tell({ name, reason });
    return undefined;
  }

  /** What is wrong with an entry set aside, read again as the queue reads an entry. */
  async #reasonOf(name: string): Promise<string> {
    const path = join(this.#quarantineDir(), name);
    const read = await readEntryFile(this.#fs, path);
    if (read === undefined) return "gone";
    if (typeof read === "string") return read;
    try {
      const entry = decodeEntry(read);
      // Checked against no name: it was set aside for where it was kept.
      return `an entry of session ${entry.runId}, not kept where that session's entry goes`;
    } catch (error) {
      if (!(error instanceof RunStateError && error.code === "ERR_CORRUPT")) throw error;
      return error.message;
    }
  }

  #quarantineDir(): string {
    return join(this.dir, QUARANTINE_DIR);
  }

  /** The run's journal held by us; "held" when another holds it; undefined when the session is gone. */
  async #hold(runId: string): Promise<Journal | "held" | undefined> {
    try {
      return await this.#store.open(runId);
    } catch (error) {
      if (error instanceof RunStateError && error.code === "ERR_LOCKED") return "held";
      if (error instanceof RunStateError && error.code === "ERR_NOT_FOUND") return undefined;
      throw error;
    }
  }

  async #remove(runId: string): Promise<void> {
    try {
      await this.#fs.unlink(this.#path(runId));
    } catch (error) {
      if (errnoCode(error) !== "ENOENT") throw error;
    }
    await this.#syncDir();
  }

  /** The follow-ups waiting behind a withdrawn run, and their directory. */
  async #removeBehind(runId: string): Promise<void> {
    const dir = this.#behindDir(runId);
    let names: string[];
    try {
      names = await this.#fs.readdir(dir);
    } catch (error) {
      if (errnoCode(error) === "ENOENT") return;
      throw error;
    }
    for (const name of names) {
      await this.#fs.unlink(join(dir, name)).catch(async (error: unknown) => {
        // Not a file the queue wrote (a directory): set aside, for its owner to look at.
        if (errnoCode(error) !== "EISDIR" && errnoCode(error) !== "EPERM") throw error;
        await this.#setAside(join(dir, name), "a directory where a follow-up goes");
      });
    }
    await this.#fs.rmdir(dir);
    await this.#syncDir();
  }

  /** An entry rewritten in place, atomically: written aside, then renamed over it. */
  async #replace(entry: QueuedRun): Promise<void> {
    const aside = await this.#writeAside(entry);
    await this.#fs.rename(aside, this.#path(entry.runId));
    await this.#syncDir();
  }

  async #writeAside(entry: QueuedRun): Promise<string> {
    const aside = join(this.dir, `.${entry.runId}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
    const fd = await this.#fs.open(aside, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      await writeFully(this.#fs, fd, Buffer.from(encodeEntry(entry)));
      await this.#fs.fsync(fd);
    } finally {
      await this.#fs.close(fd);
    }
    return aside;
  }

  #syncDir(path = this.dir): Promise<void> {
    return syncDirectory(this.#fs, path);
  }

  #ensureDir(): Promise<void> {
    // Synced into the runs' directory as made: an entry linked and synced in a queue
    // directory whose own name a power cut takes is lost with it.
    this.#dirReady ??= makeDirectoryDurably(this.#fs, this.dir, 0o700);
    return this.#dirReady;
  }

  #behindDir(runId: string): string {
    assertRunId(runId);
    return join(this.dir, runId + BEHIND_SUFFIX);
  }

  #path(runId: string): string {
    assertRunId(runId);
    return join(this.dir, runId + ENTRY_SUFFIX);
  }
}

/** What a file's mode says it is, for a reason. */
function kindOf(mode: number): string {
  switch (mode & constants.S_IFMT) {
    case constants.S_IFLNK:
      return "a symbolic link";
    case constants.S_IFIFO:
      return "a FIFO";
    case constants.S_IFDIR:
      return "a directory";
    case constants.S_IFSOCK:
      return "a socket";
    default:
      return "a device";
  }
}

/**
 * An entry's bytes, read as a regular file within QUEUE_ENTRY_MAX_BYTES: a string saying
 * why not (a symlink, a FIFO, a directory, too large), or undefined when it is gone. Never
 * follows a link, never waits on a FIFO, never reads past the limit.
 */
async function readEntryFile(fs: FileSystem, path: string): Promise<Buffer | string | undefined> {
  const gone = (error: unknown) => {
    if (errnoCode(error) === "ENOENT") return undefined;
    throw error;
  };
  let stat;
  try {
    stat = await fs.lstat(path);
  } catch (error) {
    return gone(error);
  }
  if (!isRegularFile(stat)) return kindOf(stat.mode);
  let fd: number;
  try {
    fd = await fs.open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    // Replaced by a link since the lstat.
    if (errnoCode(error) === "ELOOP") return kindOf(constants.S_IFLNK);
    return gone(error);
  }
  try {
    const opened = await fs.fstat(fd);
    if (!isRegularFile(opened)) return kindOf(opened.mode);
    const tooLarge = oversizedReason(opened.size);
    if (tooLarge !== undefined) return tooLarge;
    // One byte past its size: a file that grew since the fstat is read no further than the limit's next byte.
    const bytes = Buffer.allocUnsafe(Math.min(opened.size, QUEUE_ENTRY_MAX_BYTES) + 1);
    let done = 0;
    for (let read = -1; done < bytes.length && read !== 0; done += read) read = await fs.read(fd, bytes, done, bytes.length - done, done);
    return oversizedReason(done) ?? bytes.subarray(0, done);
  } finally {
    await fs.close(fd);
  }
}
