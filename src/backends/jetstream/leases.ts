// Who may write a run: a lease in a KV bucket beside the stream, one key a run, taken
// create-only and kept alive by a heartbeat; a holder that dies stops beating and its
// lease expires with the bucket's TTL. A holder also counts the lease lost once the TTL
// has passed since its last acknowledged beat was sent: a process paused or cut off that
// long may have a successor, and must not write before it hears otherwise.
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { jetstream, JetStreamApiError, type JetStreamManager } from "@nats-io/jetstream";
import { Kvm, type KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { thisProcess, type RunHolder } from "../../runstate/store/run-holder.js";
import { lockedError } from "../../runstate/store/store-contract.js";
import { DEFAULT_TIMEOUT_MS, ioError, slotTaken, type JetStreamStoreConfig } from "./connection.js";
import { readLastValues } from "./last-values.js";

/** The lease's default TTL: how long a dead writer's run stays held before anyone else may take it. */
export const DEFAULT_LEASE_TTL_MS = 5_000;
/** Taken off the TTL when a holder judges its own lease (at most 200 ms): the server's clock and ours may run at slightly different rates. */
function clockMargin(ttlMs: number): number {
  return Math.min(200, Math.floor(ttlMs / 10));
}
/** Up to this many leases (live, or markers of released ones) are read a get each rather than through a consumer. */
const FEW_LEASES = 32;

interface Lease extends RunHolder {
  /** Which open holds it, so a writer tells its own lease from a successor's. */
  nonce: string;
}

/**
 * The KV bucket of leases beside the stream, made on first use. Its TTL is the lease's:
 * fixed when the bucket is made, so an existing bucket is used as it is.
 */
export async function leaseBucket(nc: NatsConnection, config: JetStreamStoreConfig): Promise<KV> {
  const kvm = new Kvm(jetstream(nc, { timeout: config.timeoutMs ?? DEFAULT_TIMEOUT_MS }));
  const name = leaseBucketName(config.stream);
  try {
    return await kvm.create(name, { history: 1, ttl: config.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS });
  } catch (error) {
    // 10058: it exists with another TTL.
    if (error instanceof JetStreamApiError && error.code === 10058) return kvm.open(name);
    throw ioError(`making the lease bucket ${name}`, error);
  }
}

function leaseBucketName(stream: string): string {
  return `${stream}_LEASES`;
}

/** The leases of a store's runs. */
export class Leases {
  readonly #kv: KV;
  readonly #ttlMs: number;
  readonly #report: (line: string) => void;
  readonly #connection: { nc: NatsConnection; jsm: JetStreamManager; stream: string; timeoutMs: number };

  /** `ttlMs` is the bucket's own TTL, which sets the heartbeat whoever made the bucket. */
  constructor(
    kv: KV,
    ttlMs: number,
    report: (line: string) => void,
    connection: { nc: NatsConnection; jsm: JetStreamManager; stream: string; timeoutMs: number },
  ) {
    this.#kv = kv;
    this.#ttlMs = ttlMs;
    this.#report = report;
    this.#connection = connection;
  }

  /** The bucket's TTL, in milliseconds. */
  get ttlMs(): number {
    return this.#ttlMs;
  }

  /**
   * Takes the run's lease: a create-only key, so a second writer anywhere fails at once
   * with ERR_LOCKED naming the holder.
   */
  async take(runId: string): Promise<HeldLease> {
    const lease: Lease = { ...thisProcess(), nonce: randomBytes(12).toString("hex") };
    const sent = performance.now();
    let revision: number;
    try {
      revision = await this.#kv.create(runId, JSON.stringify(lease));
    } catch (error) {
      if (slotTaken(error) || /wrong last sequence|key exists/i.test((error as Error).message)) {
        throw lockedError(runId, await this.holder(runId).catch(() => undefined));
      }
      throw ioError(`taking the lease of session ${runId}`, error);
    }
    return new HeldLease(this.#kv, runId, lease, revision, sent, this.#ttlMs, this.#report);
  }

  /** Who holds the run's lease, as a holder (the nonce is the writer's own business). */
  async holder(runId: string): Promise<RunHolder | undefined> {
    const entry = await this.#kv.get(runId);
    const lease = entry === null || entry.operation !== "PUT" ? undefined : parseLease(entry.string());
    return lease === undefined ? undefined : { pid: lease.pid, host: lease.host, started: lease.started };
  }

  /**
   * The holder of every run whose lease is live, by run id. A lease released or expired
   * within the bucket's TTL leaves a marker: the keys with a message are read one by one
   * when they are few (a consumer costs the server more than a handful of gets), else
   * in one pass over the bucket.
   */
  async holders(): Promise<Map<string, RunHolder>> {
    const { nc, jsm, stream, timeoutMs } = this.#connection;
    const name = leaseBucketName(stream);
    const prefix = `$KV.${name}.`;
    const held = new Map<string, RunHolder>();
    let keys: string[];
    try {
      keys = Object.keys((await jsm.streams.info(`KV_${name}`, { subjects_filter: `${prefix}>` })).state.subjects ?? {}).map((subject) =>
        subject.slice(prefix.length),
      );
    } catch (error) {
      throw ioError(`reading the leases of stream ${stream}`, error);
    }
    if (keys.length <= FEW_LEASES) {
      const holders = await Promise.all(keys.map((key) => this.holder(key)));
      keys.forEach((key, index) => holders[index] !== undefined && held.set(key, holders[index]));
      return held;
    }
    for (const [subject, text] of await readLastValues(nc, jsm, `KV_${name}`, `${prefix}>`, timeoutMs)) {
      // A marker has no body.
      const lease = text === "" ? undefined : parseLease(text);
      if (lease !== undefined) held.set(subject.slice(prefix.length), { pid: lease.pid, host: lease.host, started: lease.started });
    }
    return held;
  }
}

function parseLease(text: string): Lease | undefined {
  try {
    const value = JSON.parse(text) as Partial<Lease>;
    if (typeof value.pid === "number" && typeof value.host === "string" && typeof value.started === "string" && typeof value.nonce === "string") {
      return { pid: value.pid, host: value.host, started: value.started, nonce: value.nonce };
    }
  } catch {
    // Not a lease of ours: nobody to name.
  }
  return undefined;
}

/** A lease this process holds, beating until released. */
export class HeldLease {
  readonly nonce: string;
  readonly #kv: KV;
  readonly #runId: string;
  readonly #body: string;
  readonly #timer: NodeJS.Timeout;
  readonly #ttlMs: number;
  readonly #report: (line: string) => void;
  readonly #lostController = new AbortController();
  #revision: number;
  /** The renewal in flight, if any: a release waits for it, since it moves the revision the release deletes at. */
  #beating: Promise<void> | undefined;
  /** Until then (performance.now()) the lease is surely ours: the TTL from when its last acknowledged beat was sent. */
  #surelyUntil: number;

  /** `sent` is when the request that took the lease was sent (performance.now()). */
  constructor(kv: KV, runId: string, lease: Lease, revision: number, sent: number, ttlMs: number, report: (line: string) => void) {
    this.#kv = kv;
    this.#runId = runId;
    this.nonce = lease.nonce;
    this.#body = JSON.stringify(lease);
    this.#revision = revision;
    this.#ttlMs = ttlMs;
    this.#report = report;
    this.#surelyUntil = sent + ttlMs - clockMargin(ttlMs);
    this.#timer = setInterval(() => this.#beat(), Math.max(100, Math.floor(ttlMs / 3)));
    // The lease must not keep a finished process alive.
    this.#timer.unref();
  }

  /** Why this writer may no longer write, if it lost the lease (or may have: its TTL ran out unrenewed). */
  get lost(): string | undefined {
    if (!this.#lostController.signal.aborted && performance.now() >= this.#surelyUntil) {
      this.#lose(
        `the lease of session ${this.#runId} ran out before it was renewed (this process was paused or cut off from the server for longer than the lease): another writer may hold it`,
      );
    }
    return this.#lostController.signal.aborted ? (this.#lostController.signal.reason as Error).message : undefined;
  }

  /** Aborted, with the reason as an Error, once the lease is lost: whoever drives the run stops at once. */
  get lostSignal(): AbortSignal {
    return this.#lostController.signal;
  }

  async release(): Promise<void> {
    clearInterval(this.#timer);
    await this.#beating;
    if (this.lost !== undefined) return;
    // Only our own lease: a successor's (after ours expired) is not ours to remove.
    await this.#kv.delete(this.#runId, { previousSeq: this.#revision }).catch(() => undefined);
  }

  #beat(): void {
    // Judged before anything is sent: a process just woken from a pause learns at once.
    if (this.lost !== undefined) {
      clearInterval(this.#timer);
      return;
    }
    const sent = performance.now();
    this.#beating = this.#kv.update(this.#runId, this.#body, this.#revision).then(
      (next) => {
        this.#revision = next;
        this.#surelyUntil = Math.max(this.#surelyUntil, sent + this.#ttlMs - clockMargin(this.#ttlMs));
      },
      (error: unknown) => {
        // Another writer took it after it expired: this one may not write again.
        if (slotTaken(error) || /wrong last sequence/i.test((error as Error).message))
          this.#lose(`the lease of session ${this.#runId} passed to another writer`);
      },
    );
  }

  #lose(why: string): void {
    if (this.#lostController.signal.aborted) return;
    clearInterval(this.#timer);
    this.#lostController.abort(new Error(why));
    this.#report(why);
  }
}
