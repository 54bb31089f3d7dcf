// The file backend of the queue (one machine, no server): each queued run is
// `<id>.json` in a `queue` directory beside the runs, made durably (written aside,
// fsynced, linked into place, the directory fsynced) so a submit that returned survives
// a crash. Workers poll the directory (a readdir) and claim a run by opening it in the
// store, which takes its kernel lock: a dead worker's run is free the instant the kernel
// drops that lock, and its entry still waits for the next worker. A waiting worker or
// follower hears of a change by fs.watch on the directory (RunQueue.watch). A follow-up to a run
// the queue has already waits behind it in `<id>.behind/`, one file each, named so that
// names sort in submission order (`.interrupt` in the name asks the claim ahead to stop);
// the claim ahead promotes the oldest when it finishes, under the run's hold.
import { constants } from "node:fs";
import { randomBytes } from "node:crypto";
import { basename, dirname, join } from "node:path";
import { RunStateError } from "../../runstate/errors.js";
import { errnoCode, makeDirectoryDurably, nodeFileSystem, readWholeFile, syncDirectory, writeFully, type FileSystem } from "./file-system.js";
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
  promotedFollowUp,
  type Accepts,
  type Claim,
  type EnqueueOptions,
  type QueuedRun,
  type QueueWatch,
  type RunQueue,
  type WaitingFollowUp,
} from "../../queue/run-queue.js";
import { DirectoryChanges, type ChangeListener } from "./directory-changes.js";
import { QueueWatches } from "../../queue/queue-watch.js";

const ENTRY_SUFFIX = ".json";
const BEHIND_SUFFIX = ".behind";
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
      if (entry.followUp === undefined) throw alreadyQueuedError(entry.runId);
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
    const ids = names
      .filter((name) => name.endsWith(ENTRY_SUFFIX))
      .map((name) => name.slice(0, -ENTRY_SUFFIX.length))
      .filter(isValidRunId);
    const entries = await Promise.all(ids.map((runId) => this.get(runId)));
    return entries.filter((entry) => entry !== undefined).sort(byQueuedTime);
  }

  async get(runId: string): Promise<QueuedRun | undefined> {
    const path = this.#path(runId);
    try {
      return decodeEntry(await readWholeFile(this.#fs, path), path);
    } catch (error) {
      // Removed since the directory was read: a worker finished it, or it was withdrawn.
      if (errnoCode(error) === "ENOENT") return undefined;
      throw error;
    }
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
      try {
        waiting.push({ path, entry: decodeEntry(await readWholeFile(this.#fs, path), path) });
      } catch (error) {
        if (errnoCode(error) !== "ENOENT") throw error;
      }
    }
    return waiting;
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
    for (const name of names) await this.#fs.unlink(join(dir, name));
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
