// A worker of the pool: takes queued runs whose agent it has, drives each to a terminal
// state, a park or a suspend, N at a time, and on stop hands its runs back suspended.
// A server starts one beside its own code; `fisk-ai worker` is a thin layer over it.
import { fingerprintOf } from "../agent/agent-loop.js";
import type { AgentEvents } from "../agent/events.js";
import { diffFingerprints, fingerprintStyle, type FingerprintStyle } from "../agent/fingerprint.js";
import { agentSpec, type AgentOptions } from "../agent/agent-spec.js";
import type { QuarantinedEntry } from "../queue/quarantine.js";
import type { Claim, QueuedRun, QueueWatch, RunQueue } from "../queue/run-queue.js";
import type { Fingerprint } from "../runstate/records/records.js";
import type { Store } from "../runstate/store/store.js";
import { driveClaimed, type Settled } from "./drive-claimed.js";
import { isOrphan, queuedRunIds } from "../queue/orphans.js";
import { queueSession } from "./submit-run.js";

/** An agent a worker can drive: an AgentSpec, as loadAgent gives it (`.spec`), or options built by hand. */
export type WorkerAgent = AgentOptions;

/** What a worker reports, one call per run it takes and per run it lets go of. */
export interface WorkerEvents {
  /** It claimed `entry`'s run and starts driving it. */
  took?(entry: QueuedRun): void;
  /** It let go of `entry`'s run, and how. */
  settled?(entry: QueuedRun, settled: Settled): void;
  /** The queue or the store failed while looking for work; the worker tries again at its next poll. */
  failed?(error: unknown): void;
  /** It set aside a queue entry it could not trust (RunQueue.quarantined), once, and went on. */
  quarantined?(entry: QuarantinedEntry): void;
}

/** What a Worker works with. */
export interface WorkerOptions {
  /** The store the runs are in. */
  store: Store;
  /** Its queue: the backend's (`const { store, queue } = await openBackend(url)`). */
  queue: RunQueue;
  /** The agents it drives: a run is taken only when its configuration fingerprint is one of theirs. */
  agents: readonly WorkerAgent[];
  /** Runs driven at once (default 1). */
  concurrency?: number;
  /** How long an idle worker waits to hear of a run (RunQueue.watch) before it looks at the queue anyway, in milliseconds (default 200). */
  pollMs?: number;
  /** One call per run taken and let go of. */
  events?: WorkerEvents;
  /**
   * Also take open sessions nobody holds (a plain `run --checkpoint` whose process died):
   * each is queued for the pool, then claimed like any other. Looked for at most every
   * `adoptEveryMs` (default 5000), since it lists the store.
   */
  adopt?: boolean;
  /** How often `adopt` lists the store, in milliseconds (default 5000). */
  adoptEveryMs?: number;
  /** The events of each run it drives (narration, traces). */
  runEvents?(entry: QueuedRun): AgentEvents | undefined;
}

/** A worker's defaults. */
export interface WorkerDefaults {
  /** Runs driven at once. */
  readonly concurrency: number;
  /** How often an idle worker looks at the queue, in milliseconds. */
  readonly pollMs: number;
  /** How often `adopt` lists the store for orphans, in milliseconds. */
  readonly adoptEveryMs: number;
}

/** The defaults of WorkerOptions. */
export const WORKER_DEFAULTS: WorkerDefaults = { concurrency: 1, pollMs: 200, adoptEveryMs: 5000 };

/**
 * A worker of the pool: `run()` takes queued runs of its agents and drives each to a
 * terminal state, a park or a suspend, until `stop()` (hand its runs back suspended) or
 * `abort()` (stop them at once, as a crash would).
 */
export class Worker {
  readonly #options: WorkerOptions;
  readonly #running = new Map<string, Promise<void>>();
  readonly #abort = new AbortController();
  readonly #handBack = new AbortController();
  /** Each agent's fingerprint in each style asked for: worked out once, compared at every poll. */
  readonly #fingerprints: Map<FingerprintStyle, Fingerprint>[];
  #stopping = false;
  #adoptedAt = 0;
  /** Set by #nudge since the worker last looked at the queue: its next idle is skipped. */
  #nudged = false;
  #idling: AbortController | undefined;

  constructor(options: WorkerOptions) {
    if (options.agents.length === 0) throw new TypeError("a worker needs at least one agent to drive");
    this.#options = options;
    this.#fingerprints = options.agents.map(() => new Map());
  }

  /** The ids of the runs it drives now. */
  get running(): string[] {
    return [...this.#running.keys()];
  }

  /** Whether a queued run's configuration is one of this worker's agents. */
  accepts(entry: Pick<QueuedRun, "fingerprint" | "version">): boolean {
    return this.#agentFor(entry) !== undefined;
  }

  /** Takes and drives runs until stopped; resolves once every run it held is settled. */
  async run(): Promise<void> {
    // Made before the first look, so a run queued while the worker looks wakes it from its next idle.
    const watch = this.#options.queue.watch();
    const stopHearing = this.#options.queue.onQuarantine((entry) => this.#options.events?.quarantined?.(entry));
    try {
      await this.#loop(watch);
    } finally {
      stopHearing();
      watch.close();
    }
    await Promise.all(this.#running.values());
  }

  async #loop(watch: QueueWatch): Promise<void> {
    const { queue, concurrency = WORKER_DEFAULTS.concurrency, pollMs = WORKER_DEFAULTS.pollMs, events } = this.#options;
    while (!this.#stopping) {
      this.#nudged = false;
      let claim: Claim | undefined;
      if (this.#running.size < concurrency) {
        try {
          claim = await queue.claim((entry) => this.accepts(entry));
        } catch (error) {
          events?.failed?.(error);
        }
      }
      if (claim !== undefined && this.#stopping) {
        await claim.handBack();
        break;
      }
      if (claim !== undefined) this.#drive(claim);
      else if (!(await this.#adoptOrphans())) await this.#idle(watch, pollMs);
    }
  }

  /** Stops taking runs and suspends each one it drives at its next boundary, handing it back to the queue. */
  stop(): void {
    this.#stopping = true;
    this.#handBack.abort(new Error("the worker is stopping"));
    this.#nudge();
  }

  /** Stops every run at once, as a crash would: each waits for another worker from its last record. */
  abort(): void {
    this.stop();
    this.#abort.abort(new Error("the worker was aborted"));
  }

  #drive(claim: Claim): void {
    const { entry } = claim;
    const agent = this.#agentFor(entry) as WorkerAgent;
    this.#options.events?.took?.(entry);
    const events = this.#options.runEvents?.(entry);
    const driving = driveClaimed(claim, {
      store: this.#options.store,
      agent,
      handBack: this.#handBack.signal,
      abort: this.#abort.signal,
      ...(events === undefined ? {} : { events }),
    })
      .catch((error: unknown): Settled => ({ how: "dropped", message: error instanceof Error ? error.message : String(error) }))
      .then((settled) => {
        this.#running.delete(entry.runId);
        this.#options.events?.settled?.(entry, settled);
        this.#nudge();
      });
    this.#running.set(entry.runId, driving);
  }

  /** With `adopt`, queues the open sessions of its agents that nobody holds; whether it queued any. */
  async #adoptOrphans(): Promise<boolean> {
    const { adopt = false, adoptEveryMs = WORKER_DEFAULTS.adoptEveryMs, store, queue, events } = this.#options;
    if (!adopt || Date.now() - this.#adoptedAt < adoptEveryMs) return false;
    this.#adoptedAt = Date.now();
    let adopted = false;
    try {
      const queued = await queuedRunIds(queue);
      for (const summary of await store.list()) {
        if (!isOrphan(summary, queued) || summary.meta === undefined || !this.accepts(summary.meta)) continue;
        await queueSession({ store, queue }, summary.runId).then(
          () => (adopted = true),
          () => undefined, // Queued by another worker meanwhile.
        );
      }
    } catch (error) {
      events?.failed?.(error);
    }
    return adopted;
  }

  #agentFor(entry: Pick<QueuedRun, "fingerprint" | "version">): WorkerAgent | undefined {
    const style = fingerprintStyle(entry);
    return this.#options.agents.find((agent, index) => {
      const known = this.#fingerprints[index] as Map<FingerprintStyle, Fingerprint>;
      let fingerprint = known.get(style);
      if (fingerprint === undefined) known.set(style, (fingerprint = fingerprintOf(agentSpec(agent), style)));
      return diffFingerprints(entry.fingerprint, fingerprint, style).changes.length === 0;
    });
  }

  /** Until the queue may have a run for it, a run of its own settled, or `ms` passed. */
  async #idle(watch: QueueWatch, ms: number): Promise<void> {
    if (this.#nudged) return;
    this.#idling = new AbortController();
    await watch.next(ms, this.#idling.signal);
    this.#idling = undefined;
  }

  /** Looks at the queue again at once: a slot came free, or the worker stops. */
  #nudge(): void {
    this.#nudged = true;
    this.#idling?.abort();
  }
}
