// The file backend of the queue (one machine, no server): each queued run is
// `<id>.json` in a `queue` directory beside the runs, made durably (written aside,
// fsynced, linked into place, the directory fsynced) so a submit that returned survives
// a crash. Workers poll the directory (a readdir) and claim a run by opening it in the
// store, which takes its kernel lock: a dead worker's run is free the instant the kernel
// drops that lock, and its entry still waits for the next worker.
import { constants } from "node:fs";
import { link, mkdir, open, readdir, readFile, rename, unlink } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { RunStateError } from "../runstate/errors.js";
import { assertRunId, isValidRunId } from "../runstate/run-id.js";
import type { Journal, Store } from "../runstate/store.js";
import { alreadyQueuedError, byQueuedTime, decodeEntry, drivenError, encodeEntry, notQueuedError, type Accepts, type Claim, type QueuedRun, type RunQueue } from "./run-queue.js";

const ENTRY_SUFFIX = ".json";

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
  #dirReady: Promise<void> | undefined;

  constructor(options: FileQueueOptions) {
    this.dir = options.dir;
    this.#store = options.store;
  }

  async enqueue(entry: QueuedRun): Promise<void> {
    await this.#ensureDir();
    const aside = await this.#writeAside(entry);
    try {
      await link(aside, this.#path(entry.runId));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST") throw alreadyQueuedError(entry.runId);
      throw error;
    } finally {
      await unlink(aside).catch(() => undefined);
    }
    await this.#syncDir();
  }

  async list(): Promise<QueuedRun[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
    const ids = names.filter((name) => name.endsWith(ENTRY_SUFFIX)).map((name) => name.slice(0, -ENTRY_SUFFIX.length)).filter(isValidRunId);
    const entries = await Promise.all(ids.map((runId) => this.get(runId)));
    return entries.filter((entry) => entry !== undefined).sort(byQueuedTime);
  }

  async get(runId: string): Promise<QueuedRun | undefined> {
    const path = this.#path(runId);
    try {
      return decodeEntry(await readFile(path), path);
    } catch (error) {
      // Removed since the directory was read: a worker finished it, or it was withdrawn.
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
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
    } finally {
      await journal?.close();
    }
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

  async close(): Promise<void> {
    // Nothing is held between calls: every claim holds its own journal.
  }

  #claimOf(entry: QueuedRun, journal: Journal): Claim {
    const settle = (change: () => Promise<void>) => async () => {
      try {
        await change();
      } finally {
        await journal.close();
      }
    };
    return {
      entry,
      journal,
      finish: settle(() => this.#remove(entry.runId)),
      park: settle(() => this.#replace({ ...entry, state: "parked" })),
      handBack: settle(async () => undefined),
    };
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
      await unlink(this.#path(runId));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    await this.#syncDir();
  }

  /** An entry rewritten in place, atomically: written aside, then renamed over it. */
  async #replace(entry: QueuedRun): Promise<void> {
    const aside = await this.#writeAside(entry);
    await rename(aside, this.#path(entry.runId));
    await this.#syncDir();
  }

  async #writeAside(entry: QueuedRun): Promise<string> {
    const aside = join(this.dir, `.${entry.runId}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
    const file = await open(aside, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      await file.writeFile(encodeEntry(entry));
      await file.sync();
    } finally {
      await file.close();
    }
    return aside;
  }

  async #syncDir(): Promise<void> {
    const dir = await open(this.dir, constants.O_RDONLY | constants.O_DIRECTORY);
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  }

  #ensureDir(): Promise<void> {
    this.#dirReady ??= mkdir(this.dir, { recursive: true, mode: 0o700 }).then(() => undefined);
    return this.#dirReady;
  }

  #path(runId: string): string {
    assertRunId(runId);
    return join(this.dir, runId + ENTRY_SUFFIX);
  }
}
