// The queue seam (docs/workers.md): where submitted runs wait for a worker. A backend
// decides how an entry is kept and how a worker hears of it; what an entry holds, what
// is refused and said about it is decided here, so backends cannot drift apart. The
// claim on a run is the store's own exclusive hold (Store.open): a queue never keeps a
// lock of its own, so no run is driven by two workers whatever the queue does.
import type { Fingerprint } from "../runstate/records/records.js";
import { RunStateError } from "../runstate/errors.js";
import type { Journal } from "../runstate/store/store.js";
import { assertRunId, isValidRunId } from "../runstate/records/run-id.js";
import { tenantProblem } from "../runstate/store/tenant.js";
import type { QuarantinedEntry, QuarantineListener } from "./quarantine.js";

/**
 * The most bytes an entry may take, a follow-up's text included: JetStream's default
 * largest message. A longer submit is refused; a longer entry found is set aside unread.
 */
export const QUEUE_ENTRY_MAX_BYTES = 1024 * 1024;

/** One run waiting for the pool. */
export interface QueuedRun {
  /** The session to drive. */
  runId: string;
  /** When it was queued, RFC 3339: workers take the oldest first. */
  queued: string;
  /** The run's configuration fingerprint and record version (its meta's): a worker takes only a run whose agent it has. */
  fingerprint: Fingerprint;
  /** The run's record version: how its fingerprint is compared. */
  version: number;
  /** The session's tenant (its meta's), so a tenant's view of the queue lists its own entries without reading each session; absent for the default tenant. */
  tenant?: string;
  /** A follow-up prompt to take the session further, journaled once as the run's next `user` record. */
  followUp?: string;
  /**
   * A request to suspend the run (suspendRun): it waits behind the run and interrupts its
   * claim, as an interrupting follow-up does, and once it is the run's entry a worker
   * settles it without driving the run, which stays suspended. Never with `followUp`.
   */
  suspend?: true;
  /** The run's last seq when it was queued: a follow-up found journaled after it is not journaled again. */
  afterSeq: number;
  /** `queued` waits for a worker; `parked` waits for a decision (session approve/deny/answer queues it again). */
  state: "queued" | "parked";
}

/** What a worker holds once it claimed a run: the run's journal, opened exclusively, and the entry it came from. */
export interface Claim {
  /** The entry the run was claimed from. */
  readonly entry: QueuedRun;
  /** The run's journal, held: the store's exclusive hold is the claim. */
  readonly journal: Journal;
  /**
   * Aborted once a follow-up submitted to interrupt the run waits behind it (`submit
   * --if-running interrupt`): the driver suspends the run at its next boundary and
   * finishes, which queues that follow-up.
   */
  readonly interrupted: AbortSignal;
  /**
   * The run is at rest (terminal): the oldest follow-up waiting behind it becomes its entry,
   * queued after the run's last record, or else its entry goes; then its hold is released.
   */
  finish(): Promise<void>;
  /** The run parked for a decision: its entry waits, untaken, until the decision queues it again; the hold is released. */
  park(): Promise<void>;
  /** The worker gives the run back (a deploy's SIGTERM): it stays queued for another worker; the hold is released. */
  handBack(): Promise<void>;
  /**
   * Aborted once the hold is lost (a lease that ran out while this process was paused or
   * cut off): the run may be another worker's now, so the worker stops driving it at once,
   * and settling it leaves the queue as it is. Absent where a hold cannot be lost (a kernel lock).
   */
  readonly lost?: AbortSignal;
}

/** A follow-up waiting behind its run's entry (RunQueue.behind). */
export interface WaitingFollowUp {
  /** The follow-up as submitted: it becomes the run's entry once the claim ahead of it finishes. */
  entry: QueuedRun;
  /** Whether it asks the claim ahead to suspend the run at its next boundary (`submit --if-running interrupt`). */
  interrupts: boolean;
}

/** How an entry is queued. */
export interface EnqueueOptions {
  /** For a follow-up that waits behind its run: have the run's claim suspend it at its next boundary (Claim.interrupted). */
  interrupt?: boolean;
}

/**
 * Wake-ups for one waiter (an idle worker, a follower of a submitted run), from
 * RunQueue.watch. It hears changes from the moment it is made, so a change between the
 * waiter's look and its wait is not lost.
 */
export interface QueueWatch {
  /**
   * Resolves once what is watched may have changed since the watch was made or since `next`
   * last resolved (at once if it has), after `timeoutMs` at the latest, or when `signal`
   * aborts; never rejects. A wake may be spurious and a change may go unheard, so the
   * waiter looks again after each, and the timeout is its bound.
   */
  next(timeoutMs: number, signal?: AbortSignal): Promise<void>;
  /** Stops hearing changes (RunQueue.close stops every watch still open). */
  close(): void;
}

/** Which queued runs a worker can take: those whose agent it was given. */
export type Accepts = (entry: QueuedRun) => boolean;

/**
 * Where runs wait for a worker: a backend (the file queue, the JetStream queue, or one of
 * your own that passes `fisk-ai/conformance`'s runQueueConformance). Its methods fail
 * with a RunStateError whose code says why.
 */
export interface RunQueue {
  /**
   * Queues a run. A follow-up (an entry with `followUp`) or a request to suspend (`suspend`)
   * to a run that is queued, parked or driven already waits behind it, in the order submitted, until the claim ahead of it
   * finishes (Claim.finish); any other entry of such a run is ERR_EXISTS.
   */
  enqueue(entry: QueuedRun, options?: EnqueueOptions): Promise<void>;
  /** Every entry, oldest first. */
  list(): Promise<QueuedRun[]>;
  /** A run's entry, or undefined. */
  get(runId: string): Promise<QueuedRun | undefined>;
  /** The follow-ups waiting behind a run, in the order they will be queued (none when nothing waits). */
  behind(runId: string): Promise<WaitingFollowUp[]>;
  /** Withdraws a run no worker has taken, with the follow-ups waiting behind it: ERR_NOT_FOUND when not queued, ERR_LOCKED while a worker drives it. */
  withdraw(runId: string): Promise<void>;
  /** A parked run's decision was journaled: it is queued again (ERR_NOT_FOUND when not parked). */
  unpark(runId: string): Promise<void>;
  /** Takes the oldest queued run `accepts` and nobody holds, holding its journal; undefined when there is none. */
  claim(accepts: Accepts): Promise<Claim | undefined>;
  /**
   * Wake-ups for a waiter (QueueWatch): without `runId`, when an entry may have become
   * claimable (queued, unparked, a follow-up promoted, handed back); with it, when that
   * run's entry or journal may have changed (a record journaled, the entry parked or gone).
   * The file queue hears every one of them by fs.watch (inotify) on its directory and, for
   * a run, on the file store's directory. The JetStream queue hears what is published, by a
   * core NATS subscription: an entry queued, unparked or promoted, a run parked, a record
   * journaled; not a hand-back (a nak: a worker's claim, which waits in a pull, gets the
   * run as it comes back) nor an entry acked away at a finish, which wait for the timeout.
   */
  watch(runId?: string): QueueWatch;
  /**
   * The entries set aside as bad (quarantine.ts): each listing, claim or read that meets an
   * entry it cannot trust (not a regular file, past QUEUE_ENTRY_MAX_BYTES, not an entry, a
   * run id that is invalid or not the one it is kept under) moves it here and goes on.
   */
  quarantined(): Promise<QuarantinedEntry[]>;
  /** Removes an entry set aside, by its name: ERR_NOT_FOUND when there is none of that name. */
  discard(name: string): Promise<void>;
  /** Hears each entry this queue object sets aside, once; returns the function that stops it. */
  onQuarantine(listener: QuarantineListener): () => void;
  /** Lets go of what the queue holds (its watches too); claims still open are the caller's to settle first. */
  close(): Promise<void>;
}

/** An entry as every backend keeps it: JSON of exactly these fields; ERR_INVALID_RECORD past QUEUE_ENTRY_MAX_BYTES. */
export function encodeEntry(entry: QueuedRun): string {
  assertRunId(entry.runId);
  const { runId, queued, fingerprint, version, tenant, followUp, suspend, afterSeq, state } = entry;
  const optional = { ...(tenant === undefined ? {} : { tenant }), ...(followUp === undefined ? {} : { followUp }), ...(suspend === true ? { suspend } : {}) };
  const encoded = JSON.stringify({ runId, queued, fingerprint, version, ...optional, afterSeq, state });
  const bytes = Buffer.byteLength(encoded);
  if (bytes > QUEUE_ENTRY_MAX_BYTES)
    throw new RunStateError(
      "ERR_INVALID_RECORD",
      `the queue entry of session ${runId} would be ${bytes} bytes, past the queue's limit of ${QUEUE_ENTRY_MAX_BYTES}: shorten the follow-up`,
      { runId },
    );
  return encoded;
}

/** The reason an entry's size is refused, or undefined when it is within QUEUE_ENTRY_MAX_BYTES. */
export function oversizedReason(bytes: number): string | undefined {
  return bytes > QUEUE_ENTRY_MAX_BYTES ? `${bytes} bytes, past the limit of ${QUEUE_ENTRY_MAX_BYTES}` : undefined;
}

/**
 * An entry back from its bytes, kept where `keptAs`'s entry goes; ERR_CORRUPT whose
 * message is the reason when they are not one: too many bytes, not JSON, a field missing
 * or of the wrong type, a run id that is not valid or (when `keptAs` is given) not `keptAs`.
 */
export function decodeEntry(bytes: Uint8Array | string, keptAs?: string): QueuedRun {
  const corrupt = (reason: string) => new RunStateError("ERR_CORRUPT", reason);
  const tooLarge = oversizedReason(typeof bytes === "string" ? Buffer.byteLength(bytes) : bytes.byteLength);
  if (tooLarge !== undefined) throw corrupt(tooLarge);
  let value: Partial<QueuedRun>;
  try {
    value = JSON.parse(typeof bytes === "string" ? bytes : Buffer.from(bytes).toString("utf8")) as Partial<QueuedRun>;
  } catch {
    throw corrupt("not JSON");
  }
  const ok =
    typeof value === "object" &&
    value !== null &&
    typeof value.runId === "string" &&
    typeof value.queued === "string" &&
    typeof value.fingerprint === "object" &&
    value.fingerprint !== null &&
    typeof value.version === "number" &&
    typeof value.afterSeq === "number" &&
    (value.state === "queued" || value.state === "parked") &&
    (value.followUp === undefined || typeof value.followUp === "string") &&
    (value.suspend === undefined || (value.suspend === true && value.followUp === undefined)) &&
    (value.tenant === undefined || tenantProblem(value.tenant) === undefined);
  if (!ok) throw corrupt("not a queue entry (a field is missing or of the wrong type)");
  const { runId } = value as QueuedRun;
  const shown = JSON.stringify(runId.slice(0, 40));
  if (!isValidRunId(runId)) throw corrupt(`its run id ${shown} is not a valid session id`);
  if (keptAs !== undefined && runId !== keptAs) throw corrupt(`an entry of session ${runId}, kept where session ${keptAs}'s goes`);
  return value as QueuedRun;
}

/** Whether an entry waits behind its run's when the run is queued or driven: a follow-up, or a request to suspend it. */
export function waitsBehind(entry: QueuedRun): boolean {
  return entry.followUp !== undefined || entry.suspend === true;
}

/** A follow-up that waited behind its run, as the run's entry once the claim ahead finished: queued after the run's last record. */
export function promotedFollowUp(waiting: QueuedRun, lastSeq: number): QueuedRun {
  return { ...waiting, afterSeq: lastSeq, state: "queued" };
}

/** Whether `waiting` is the follow-up `entry` was promoted from: a promotion a crash cut short before the waiting one was removed, not to be run twice. */
export function isPromotionOf(entry: QueuedRun, waiting: QueuedRun): boolean {
  return waitsBehind(waiting) && waiting.followUp === entry.followUp && waiting.suspend === entry.suspend && waiting.queued === entry.queued;
}

/** Oldest first; equal times by id, so every worker sees one order. */
export function byQueuedTime(a: QueuedRun, b: QueuedRun): number {
  return a.queued < b.queued ? -1 : a.queued > b.queued ? 1 : a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0;
}

/** ERR_EXISTS: the run waits in the queue already. */
export function alreadyQueuedError(runId: string): RunStateError {
  return new RunStateError("ERR_EXISTS", `session ${runId} is queued already: wait for it, or withdraw it with fisk-ai queue rm ${runId}`, { runId });
}

/** ERR_NOT_FOUND: the run is not in the queue. */
export function notQueuedError(runId: string, what = "queued"): RunStateError {
  return new RunStateError("ERR_NOT_FOUND", `session ${runId} is not ${what} (fisk-ai queue ls lists what is)`, { runId });
}

/** ERR_LOCKED: a worker drives the run, so it cannot be withdrawn. */
export function drivenError(runId: string): RunStateError {
  return new RunStateError("ERR_LOCKED", `session ${runId} is being run by a worker: it can no longer be withdrawn: wait for it to finish`, { runId });
}
