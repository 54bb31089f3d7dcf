// The memory backend's queue: the worker pool in one process, for tests and examples. It
// keeps what every queue keeps (an entry a run, follow-ups waiting behind it, parked runs)
// in a state several MemoryQueues may share, as worker processes share a queue directory;
// the claim is the store's exclusive open, as in every backend.
import { RunStateError } from "../../runstate/errors.js";
import { assertRunId } from "../../runstate/records/run-id.js";
import type { Journal } from "../../runstate/store/store.js";
import { notQuarantinedError, type QuarantinedEntry, type QuarantineListener } from "../../queue/quarantine.js";
import { QueueWatches } from "../../queue/queue-watch.js";
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
  waitsBehind,
} from "../../queue/run-queue.js";
import type { MemoryStore } from "./memory-store.js";
import { storageOf, type MemoryStorage } from "./memory-storage.js";

/** What the MemoryQueues over one storage share. */
class QueueState {
  readonly entries = new Map<string, QueuedRun>();
  readonly behind = new Map<string, WaitingFollowUp[]>();
  /** The interrupt of each run a claim holds. */
  readonly claimed = new Map<string, AbortController>();
  /** Told of each run whose entry changed. */
  readonly changed = new Set<(runId: string) => void>();

  tell(runId: string): void {
    for (const heard of this.changed) heard(runId);
  }
}

/** How to make a MemoryQueue. */
export interface MemoryQueueOptions {
  /** The store the queued runs are in: a claim is its open(). */
  store: MemoryStore;
  /** Another MemoryQueue whose entries this one shares (its store shares that queue's store's runs), as two workers share one queue. */
  sharedWith?: MemoryQueue;
}

/** A RunQueue kept in this process: see the top of this module. */
export class MemoryQueue implements RunQueue {
  readonly #store: MemoryStore;
  readonly #storage: MemoryStorage;
  readonly #state: QueueState;
  readonly #watches = new QueueWatches();

  constructor(options: MemoryQueueOptions) {
    this.#store = options.store;
    this.#storage = storageOf(options.store);
    this.#state = options.sharedWith === undefined ? new QueueState() : options.sharedWith.#state;
  }

  async enqueue(entry: QueuedRun, options: EnqueueOptions = {}): Promise<void> {
    // Kept as every backend keeps it: exactly the entry's fields, a copy the caller cannot change.
    const kept = decodeEntry(encodeEntry(entry), entry.runId);
    const { runId } = kept;
    if (!this.#state.entries.has(runId)) this.#state.entries.set(runId, kept);
    else if (!waitsBehind(kept)) throw alreadyQueuedError(runId);
    else {
      const interrupts = options.interrupt === true;
      this.#state.behind.set(runId, [...(this.#state.behind.get(runId) ?? []), { entry: kept, interrupts }]);
      if (interrupts) this.#state.claimed.get(runId)?.abort(new Error("a follow-up interrupts the run"));
    }
    this.#state.tell(runId);
  }

  async list(): Promise<QueuedRun[]> {
    return [...this.#state.entries.values()].map((entry) => ({ ...entry })).sort(byQueuedTime);
  }

  async get(runId: string): Promise<QueuedRun | undefined> {
    assertRunId(runId);
    const entry = this.#state.entries.get(runId);
    return entry === undefined ? undefined : { ...entry };
  }

  async behind(runId: string): Promise<WaitingFollowUp[]> {
    assertRunId(runId);
    return (this.#state.behind.get(runId) ?? []).map(({ entry, interrupts }) => ({ entry: { ...entry }, interrupts }));
  }

  async withdraw(runId: string): Promise<void> {
    if ((await this.get(runId)) === undefined) throw notQueuedError(runId);
    const journal = await this.#hold(runId);
    if (journal === "held") throw drivenError(runId);
    this.#state.entries.delete(runId);
    this.#state.behind.delete(runId);
    await journal?.close();
    this.#state.tell(runId);
  }

  // Entries live only as the queue's own decoded copies, which nothing outside its API can
  // write: there is never a bad entry to set aside.
  async quarantined(): Promise<QuarantinedEntry[]> {
    return [];
  }

  async discard(name: string): Promise<void> {
    throw notQuarantinedError(name);
  }

  onQuarantine(_listener: QuarantineListener): () => void {
    return () => undefined;
  }

  async unpark(runId: string): Promise<void> {
    const entry = await this.get(runId);
    if (entry?.state !== "parked") throw notQueuedError(runId, "parked");
    this.#state.entries.set(runId, { ...entry, state: "queued" });
    this.#state.tell(runId);
  }

  async claim(accepts: Accepts): Promise<Claim | undefined> {
    for (const entry of await this.list()) {
      if (entry.state !== "queued" || !accepts(entry)) continue;
      const journal = await this.#hold(entry.runId);
      if (journal === "held" || journal === undefined) continue;
      // Read again under the hold: the claim that had it may have finished it meanwhile.
      const now = this.#state.entries.get(entry.runId);
      if (now?.state !== "queued") {
        await journal.close();
        continue;
      }
      return this.#claimOf({ ...now }, journal);
    }
    return undefined;
  }

  watch(runId?: string): QueueWatch {
    if (runId !== undefined) assertRunId(runId);
    return this.#watches.open((changed) => {
      const heard = (id: string) => (runId === undefined || id === runId) && changed();
      this.#state.changed.add(heard);
      // A run's follower hears its records too; a waiter for work only the queue's changes.
      if (runId !== undefined) this.#storage.written.add(heard);
      return () => {
        this.#state.changed.delete(heard);
        this.#storage.written.delete(heard);
      };
    });
  }

  async close(): Promise<void> {
    this.#watches.closeAll();
  }

  #claimOf(entry: QueuedRun, journal: Journal): Claim {
    const { runId } = entry;
    const interrupt = new AbortController();
    this.#state.claimed.set(runId, interrupt);
    if ((this.#state.behind.get(runId) ?? []).some((waiting) => waiting.interrupts && !isPromotionOf(entry, waiting.entry))) {
      interrupt.abort(new Error("a follow-up interrupts the run"));
    }
    const release = async () => {
      if (this.#state.claimed.get(runId) === interrupt) this.#state.claimed.delete(runId);
      await journal.close();
    };
    const settle = (change: () => void) => async () => {
      change();
      await release();
      this.#state.tell(runId);
    };
    return {
      entry,
      journal: {
        runId,
        get lastSeq() {
          return journal.lastSeq;
        },
        append: (seq, record) => journal.append(seq, record),
        records: () => journal.records(),
        // Closed unsettled (a worker that dies): the entry stays queued for another claim.
        close: release,
      },
      interrupted: interrupt.signal,
      finish: settle(() => {
        const [next, ...rest] = this.#state.behind.get(runId) ?? [];
        if (next === undefined) {
          this.#state.entries.delete(runId);
          return;
        }
        this.#state.entries.set(runId, promotedFollowUp(next.entry, journal.lastSeq));
        if (rest.length > 0) this.#state.behind.set(runId, rest);
        else this.#state.behind.delete(runId);
      }),
      park: settle(() => this.#state.entries.set(runId, { ...entry, state: "parked" })),
      handBack: settle(() => undefined),
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
}
