// The JetStream backend of the queue (many machines, one NATS server or cluster): each
// queued run is one message on a work-queue stream beside the runs, and JetStream hands
// them out. One durable pull consumer delivers each message to one worker at a time; the
// worker keeps it with in-progress acknowledgements while it drives the run, acks it
// when the run is at rest (the work queue drops it), naks it to hand it back. A worker
// that dies stops acknowledging, and the message is delivered again after AckWait, which
// is the store's lease TTL: by then the dead worker's lease on the run has run out too,
// and the next worker's open of the run (its lease, the fence) succeeds. A parked run is
// a message on a subject no consumer reads, until a decision moves it back. A follow-up
// to a run the queue has already waits behind it as a message of its own on
// `behind.<id>.<waits|interrupts>.<token>` (no consumer reads those either), in stream
// order; the claim ahead hears of an `interrupts` one by a subscription (and looks for one
// with each heartbeat), and when it finishes it moves the oldest to the run's subject,
// under the run's hold; a finish cut short between is completed by an idle claim within AckWait.
// A waiting worker or follower hears of what is published by a core NATS subscription
// (RunQueue.watch); an ack or a nak publishes nothing it could hear. A message that is no
// entry, or not the entry of the run its subject names, is set aside: copied (its first
// QUARANTINE_KEPT_BYTES) to `quarantine.<seq>` with the reason in its headers, then deleted.
import {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  jetstream,
  jetstreamManager,
  JetStreamApiError,
  JetStreamError,
  RetentionPolicy,
  StorageType,
  type Consumer,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
} from "@nats-io/jetstream";
import { headers, nanos } from "@nats-io/transport-node";
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { RunStateError } from "../../runstate/errors.js";
import { DEFAULT_TIMEOUT_MS, ioError, slotTaken } from "./connection.js";
import type { JetStreamStore } from "./jetstream-store.js";
import { assertRunId } from "../../runstate/records/run-id.js";
import type { Journal } from "../../runstate/store/store.js";
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
import { QueueWatches } from "../../queue/queue-watch.js";
import {
  notQuarantinedError,
  QUARANTINE_KEPT_BYTES,
  QuarantineListeners,
  quarantineName,
  type QuarantinedEntry,
  type QuarantineListener,
} from "../../queue/quarantine.js";

/** The consumer every worker of a store pulls from: JetStream gives each message to one of them. */
const WORKERS_CONSUMER = "workers";
/** How long a claim waits on the server for a message (the client's least). */
const PULL_EXPIRES_MS = 1000;
/** A run this worker does not take waits this long before it is offered again (to any worker). */
const NOT_OURS_DELAY_MS = 2000;
/** A run someone else holds (a dead worker's lease not yet run out, a `run --resume`) is offered again this soon. */
const HELD_DELAY_MS = 250;
/** Messages one claim looks at before it gives up for this poll. */
const MOST_LOOKED_AT = 16;
/** 10058: a stream or consumer of that name exists with another configuration; it is used as it is. */
const ALREADY_IN_USE = 10058;
/** 10037: no message of that sequence or subject. */
const NO_MESSAGE_FOUND = 10037;
/** The headers of a message set aside: its name in the quarantine, why, and the subject it was on. */
const NAME_HEADER = "Fisk-Quarantine-Name";
const REASON_HEADER = "Fisk-Quarantine-Reason";
const SUBJECT_HEADER = "Fisk-Quarantine-Subject";

/** The work-queue stream of a runs stream: `<STREAM>_QUEUE`. */
export function queueStreamName(runsStream: string): string {
  return `${runsStream}_QUEUE`;
}

/** Its subjects: `$FISK_QUEUE.<STREAM>.run.<id>` (delivered to workers), `….parked.<id>` (waiting for a decision) and `….behind.<id>.<how>.<token>` (a follow-up waiting behind the run). */
function subjectBase(runsStream: string): string {
  return `$FISK_QUEUE.${runsStream}`;
}

/** How a follow-up waits behind its run: `interrupts` asks the claim ahead to suspend it. */
type BehindHow = "waits" | "interrupts";

/** A follow-up waiting behind its run, with the subject and stream sequence it is kept at. */
interface Waiting extends Stored {
  subject: string;
}

/** An entry and the stream sequence it is kept at. */
interface Stored {
  seq: number;
  entry: QueuedRun;
}

/**
 * Of a run's queued and parked entries, the one that stands: the newer. Both are there
 * while a park (parked, then the run's message acked) or an unpark (queued, then the
 * parked one removed) is half done, or was cut short by a crash.
 */
function newer(a: Stored | undefined, b: Stored | undefined): Stored | undefined {
  return a === undefined || (b !== undefined && b.seq > a.seq) ? b : a;
}

/** The JetStream backend of RunQueue: see the top of this module. */
export class JetStreamQueue implements RunQueue {
  readonly stream: string;
  readonly #store: JetStreamStore;
  readonly #base: string;
  readonly #ackWaitMs: number;
  readonly #watches = new QueueWatches();
  readonly #quarantine = new QuarantineListeners();
  #ready: Promise<{ jsm: JetStreamManager; js: JetStreamClient; consumer: Consumer }> | undefined;
  /** When this process last swept for stranded follow-ups (performance.now()). */
  #sweptAt = Number.NEGATIVE_INFINITY;

  constructor(store: JetStreamStore) {
    this.#store = store;
    this.stream = queueStreamName(store.stream);
    this.#base = subjectBase(store.stream);
    this.#ackWaitMs = store.leaseTtlMs;
  }

  async enqueue(entry: QueuedRun, options: EnqueueOptions = {}): Promise<void> {
    const { jsm, js } = await this.#setUp();
    const parked = (await this.#read(jsm, this.#subject("parked", entry.runId))) !== undefined;
    if (!parked && (await this.#publishOnce(js, "run", entry))) return;
    if (!waitsBehind(entry)) throw alreadyQueuedError(entry.runId);
    await this.#waitBehind(entry, options.interrupt === true ? "interrupts" : "waits");
  }

  async list(): Promise<QueuedRun[]> {
    const { jsm } = await this.#setUp();
    const subjects = [...(await this.#subjects(`${this.#base}.run.*`)), ...(await this.#subjects(`${this.#base}.parked.*`))];
    const byRun = new Map<string, Stored>();
    for (const stored of await Promise.all(subjects.map((subject) => this.#stored(jsm, subject)))) {
      if (stored !== undefined) byRun.set(stored.entry.runId, newer(byRun.get(stored.entry.runId), stored) as Stored);
    }
    return [...byRun.values()].map((stored) => stored.entry).sort(byQueuedTime);
  }

  async get(runId: string): Promise<QueuedRun | undefined> {
    assertRunId(runId);
    const { jsm } = await this.#setUp();
    const [queued, parked] = await Promise.all([this.#stored(jsm, this.#subject("run", runId)), this.#stored(jsm, this.#subject("parked", runId))]);
    return newer(queued, parked)?.entry;
  }

  async withdraw(runId: string): Promise<void> {
    if ((await this.get(runId)) === undefined) throw notQueuedError(runId);
    // Held while the entry goes, so no worker can be starting it meanwhile.
    const held = await this.#hold(runId);
    if (held === "held") throw drivenError(runId);
    try {
      await this.#remove(runId);
      const { jsm } = await this.#setUp();
      // By subject, unread: a follow-up that is not an entry goes with its run too.
      for (const subject of await this.#subjects(`${this.#behindBase(runId)}.>`)) await this.#purge(jsm, subject);
    } finally {
      await held?.journal.close();
    }
  }

  async behind(runId: string): Promise<WaitingFollowUp[]> {
    return (await this.#waiting(runId)).map(({ subject, entry }) => ({ entry, interrupts: subject.startsWith(`${this.#behindBase(runId)}.interrupts.`) }));
  }

  async unpark(runId: string): Promise<void> {
    assertRunId(runId);
    const { jsm, js } = await this.#setUp();
    const entry = await this.#read(jsm, this.#subject("parked", runId));
    if (entry?.state !== "parked") throw notQueuedError(runId, "parked");
    // Queued before the parked one goes: a crash between leaves both, and the queued one wins.
    await this.#publishOnce(js, "run", { ...entry, state: "queued" });
    await this.#purge(jsm, this.#subject("parked", runId));
  }

  async claim(accepts: Accepts): Promise<Claim | undefined> {
    const { jsm, consumer } = await this.#setUp();
    const passed = new Set<number>();
    for (let looked = 0; looked < MOST_LOOKED_AT; looked++) {
      const message = await this.#next(consumer);
      // A stalled server would stall the sweep's listing too: the next idle claim sweeps.
      if (message === "stalled") return undefined;
      if (message === "empty") {
        await this.#sweep();
        return undefined;
      }
      // Back again within this claim (a short nak delay): every run it could take was looked at.
      if (passed.has(message.seq)) {
        message.nak(HELD_DELAY_MS);
        return undefined;
      }
      passed.add(message.seq);
      const entry = await this.#entryOf(message.seq, message.subject, message.data);
      if (entry === undefined) {
        // Set aside (deleted from the stream): not to be delivered again.
        message.term();
        continue;
      }
      if (entry.state !== "queued" || !accepts(entry)) {
        message.nak(NOT_OURS_DELAY_MS);
        continue;
      }
      const held = await this.#hold(entry.runId);
      if (held === "held" || held === undefined) {
        message.nak(held === "held" ? HELD_DELAY_MS : NOT_OURS_DELAY_MS);
        continue;
      }
      // Read again under the hold: a withdraw may have taken it just before.
      if ((await jsm.streams.getMessage(this.stream, { seq: message.seq }).catch(() => null)) === null) {
        await held.journal.close();
        continue;
      }
      return this.#claimOf(message, entry, held);
    }
    return undefined;
  }

  /**
   * One message, or null once the pull expires. The pull is also stopped from here past its
   * expiry: a process paused mid-pull can miss the server's end of it and would wait forever.
   * The client stops a pull that heard none of its heartbeats for two intervals (a server or a
   * process stalled on a loaded machine): that too is null, since nothing was taken; a message
   * the server sent meanwhile is offered again after AckWait, as after a crash.
   */
  async #next(consumer: Consumer): Promise<JsMsg | "empty" | "stalled"> {
    let batch: Awaited<ReturnType<Consumer["fetch"]>>;
    try {
      batch = await consumer.fetch({ max_messages: 1, expires: PULL_EXPIRES_MS });
    } catch (error) {
      throw ioError(`taking a run from the queue ${this.stream}`, error);
    }
    const stop = setTimeout(() => batch.stop(), PULL_EXPIRES_MS * 3);
    try {
      for await (const message of batch) return message;
      return "empty";
    } catch (error) {
      // nats.js gives this stop no code of its own, only its message: the stalled-server test in
      // test/jetstream-queue.test.ts fails with ERR_IO if a new client says it otherwise.
      if (error instanceof JetStreamError && error.message === "heartbeats missed") return "stalled";
      throw ioError(`taking a run from the queue ${this.stream}`, error);
    } finally {
      clearTimeout(stop);
    }
  }

  watch(runId?: string): QueueWatch {
    // A JetStream publish reaches core subscribers too: an entry queued, unparked or promoted, a run parked, a record journaled.
    const subjects =
      runId === undefined ? [`${this.#base}.run.*`] : [this.#subject("run", runId), this.#subject("parked", runId), `${this.#store.prefix}.${runId}.*`];
    return this.#watches.open((changed) => {
      const subscriptions = subjects.map((subject) => this.#store.connection.subscribe(subject, { callback: changed }));
      return () => {
        for (const subscription of subscriptions) subscription.unsubscribe();
      };
    });
  }

  async close(): Promise<void> {
    // The connection is the store's, closed with it; a claim still open is the caller's to settle.
    this.#watches.closeAll();
  }

  /**
   * In-progress acknowledgements keep the message ours while the run is driven, each beat
   * also looking for a follow-up that interrupts it. They stop with the lease, and for good
   * once a beat comes late by half of AckWait (this process was paused): the message may
   * have gone to another worker meanwhile, so the claim settles nothing.
   */
  #keepWorking(message: JsMsg, held: { lost: AbortSignal }, interrupts: { look(): void }): { stop(): void; readonly overdue: boolean } {
    const every = Math.max(100, Math.floor(this.#ackWaitMs / 3));
    let beatAt = performance.now();
    let overdue = false;
    const beat = setInterval(() => {
      const now = performance.now();
      if (held.lost.aborted || now - beatAt > every + this.#ackWaitMs / 2) {
        overdue = true;
        clearInterval(beat);
        return;
      }
      beatAt = now;
      message.working();
      interrupts.look();
    }, every);
    beat.unref();
    held.lost.addEventListener("abort", () => clearInterval(beat), { once: true });
    return {
      stop: () => clearInterval(beat),
      get overdue() {
        return overdue;
      },
    };
  }

  #claimOf(message: JsMsg, entry: QueuedRun, held: { journal: Journal; lost: AbortSignal }): Claim {
    const interrupts = this.#interrupts(entry);
    const working = this.#keepWorking(message, held, interrupts);
    const journal: Journal = {
      get runId() {
        return held.journal.runId;
      },
      get lastSeq() {
        return held.journal.lastSeq;
      },
      append: (seq, record) => held.journal.append(seq, record),
      records: () => held.journal.records(),
      // Closed unsettled (a worker that dies): the message goes back to the queue after AckWait.
      close: async () => {
        working.stop();
        interrupts.stop();
        await held.journal.close();
      },
    };
    const settle = (change: () => Promise<void>) => async () => {
      working.stop();
      interrupts.stop();
      try {
        // A lost hold settles nothing: the message may be another worker's delivery by now.
        if (!held.lost.aborted && !working.overdue) await change();
      } finally {
        await held.journal.close();
      }
    };
    return {
      entry,
      journal,
      lost: held.lost,
      interrupted: interrupts.signal,
      finish: settle(async () => {
        await this.#ack(message, entry.runId);
        // Left by an unpark a crash cut short: the run is at rest now.
        await this.#purge((await this.#setUp()).jsm, this.#subject("parked", entry.runId));
        await this.#promoteNext(entry.runId, entry, held.journal.lastSeq);
      }),
      park: settle(async () => {
        await this.#publishOnce((await this.#setUp()).js, "parked", { ...entry, state: "parked" });
        await this.#ack(message, entry.runId);
      }),
      handBack: settle(async () => message.nak()),
    };
  }

  /**
   * A claim's `interrupted`: aborted once a follow-up that interrupts the run waits behind
   * it (not the one the claim was promoted from). A subscription to those subjects hears of
   * one at once (a JetStream publish reaches core subscribers too); `look`, on each beat,
   * finds one queued before the claim or published while the connection was down.
   */
  #interrupts(claimed: QueuedRun): { signal: AbortSignal; look(): void; stop(): void } {
    const interrupt = new AbortController();
    const heard = (behind: QueuedRun) => {
      if (!isPromotionOf(claimed, behind)) interrupt.abort(new Error("a follow-up interrupts the run"));
    };
    const subscription = this.#store.connection.subscribe(`${this.#behindBase(claimed.runId)}.interrupts.*`, {
      callback: (error, message) => {
        if (error !== null) return;
        try {
          heard(decodeEntry(message.data, claimed.runId));
        } catch {
          // Not an entry: the look reads the stream, and sets it aside.
        }
      },
    });
    const look = () => {
      if (interrupt.signal.aborted) return;
      this.#waiting(claimed.runId, "interrupts").then(
        (waiting) => waiting.forEach((behind) => heard(behind.entry)),
        // Unreachable now: the next beat looks again.
        () => undefined,
      );
    };
    look();
    return { signal: interrupt.signal, look, stop: () => subscription.unsubscribe() };
  }

  async #ack(message: JsMsg, runId: string): Promise<void> {
    try {
      await message.ackAck();
    } catch (error) {
      throw ioError(`settling the queue entry of session ${runId}`, error);
    }
  }

  /** Publishes an entry unless its subject holds one already (a retry after a crash, or a run queued already): whether it did. */
  async #publishOnce(js: JetStreamClient, kind: "run" | "parked", entry: QueuedRun): Promise<boolean> {
    // Encoded before the publish: an entry past the limit is the caller's error, not the server's.
    const encoded = encodeEntry(entry);
    try {
      await js.publish(this.#subject(kind, entry.runId), encoded, { expect: { lastSubjectSequence: 0 } });
      return true;
    } catch (error) {
      if (!slotTaken(error)) throw ioError(`queueing session ${entry.runId}`, error);
      return false;
    }
  }

  /** A follow-up whose run has an entry already: it waits behind it; queued here if the claim ahead finished meanwhile without seeing it. */
  async #waitBehind(entry: QueuedRun, how: BehindHow): Promise<void> {
    const { js } = await this.#setUp();
    const encoded = encodeEntry(entry);
    try {
      await js.publish(`${this.#behindBase(entry.runId)}.${how}.${randomBytes(8).toString("hex")}`, encoded);
    } catch (error) {
      throw ioError(`queueing a follow-up to session ${entry.runId}`, error);
    }
    if ((await this.get(entry.runId)) !== undefined) return;
    const held = await this.#hold(entry.runId);
    try {
      const lastSeq = held === "held" || held === undefined ? (await this.#store.summarize(entry.runId)).lastSeq : held.journal.lastSeq;
      await this.#promoteNext(entry.runId, undefined, lastSeq);
    } finally {
      if (held !== "held") await held?.journal.close();
    }
  }

  /**
   * The oldest follow-up waiting behind a run is queued as its entry, after `lastSeq`,
   * unless an entry stands already (another promoted one first). One `done` was promoted
   * from (a promotion a crash cut short before its waiting message went) is dropped.
   */
  async #promoteNext(runId: string, done: QueuedRun | undefined, lastSeq: number): Promise<void> {
    const { jsm, js } = await this.#setUp();
    for (const { subject, entry } of await this.#waiting(runId)) {
      const promotedAlready = done !== undefined && isPromotionOf(done, entry);
      if (!promotedAlready && !(await this.#publishOnce(js, "run", promotedFollowUp(entry, lastSeq)))) return;
      await this.#purge(jsm, subject);
      if (!promotedAlready) return;
    }
  }

  /**
   * An idle claim's chore, at most once per AckWait in a process (the first idle claim of a
   * new one sweeps at once): it lists the queue stream's subjects, a request to the server
   * that every idle poll of every worker would otherwise make. So a follow-up stranded by a
   * crash is queued within AckWait and one idle poll of any worker, the bound a dead
   * worker's run is taken over within too.
   */
  async #sweep(): Promise<void> {
    if (performance.now() - this.#sweptAt < this.#ackWaitMs) return;
    this.#sweptAt = performance.now();
    await this.#promoteStranded();
  }

  /** Follow-ups waiting behind a run that has no entry (a finish that crashed between its ack and the promotion) are queued, under the run's hold. */
  async #promoteStranded(): Promise<void> {
    const prefix = `${this.#base}.behind.`;
    const runIds = new Set((await this.#subjects(`${prefix}>`)).map((subject) => subject.slice(prefix.length).split(".")[0] ?? ""));
    for (const runId of runIds) {
      if ((await this.get(runId)) !== undefined) continue;
      const held = await this.#hold(runId);
      if (held === "held" || held === undefined) continue;
      try {
        // Read again under the hold: a finish may have queued one just before.
        if ((await this.get(runId)) === undefined) await this.#promoteNext(runId, undefined, held.journal.lastSeq);
      } catch (error) {
        // A waiting message that is no entry keeps only its own run's follow-ups back, not this claim.
        if (!(error instanceof RunStateError && error.code === "ERR_CORRUPT")) throw error;
      } finally {
        await held.journal.close();
      }
    }
  }

  /** The follow-ups waiting behind a run (those that interrupt it, with `how`), oldest first. */
  async #waiting(runId: string, how?: BehindHow): Promise<Waiting[]> {
    const { jsm } = await this.#setUp();
    const subjects = await this.#subjects(`${this.#behindBase(runId)}.${how ?? "*"}.*`);
    const waiting: Waiting[] = [];
    for (const subject of subjects) {
      // None when gone since the subjects were listed (promoted or withdrawn), or set aside.
      const stored = await this.#stored(jsm, subject);
      if (stored !== undefined) waiting.push({ subject, ...stored });
    }
    return waiting.sort((a, b) => a.seq - b.seq);
  }

  /** The subjects of the queue stream that hold a message and match `filter`. */
  async #subjects(filter: string): Promise<string[]> {
    const { jsm } = await this.#setUp();
    try {
      return Object.keys((await jsm.streams.info(this.stream, { subjects_filter: filter })).state.subjects ?? {});
    } catch (error) {
      throw ioError(`listing the queue ${this.stream}`, error);
    }
  }

  async #remove(runId: string): Promise<void> {
    const { jsm } = await this.#setUp();
    await this.#purge(jsm, this.#subject("run", runId));
    await this.#purge(jsm, this.#subject("parked", runId));
  }

  /**
   * Deletes the message on `subject`, if there is one, by its sequence: a purge filtered by
   * subject would also move the workers' consumer past messages it has not delivered yet
   * (nats-server 2.9), and runs queued before it would never be handed out.
   */
  async #purge(jsm: JetStreamManager, subject: string): Promise<void> {
    try {
      const stored = await jsm.streams.getMessage(this.stream, { last_by_subj: subject });
      if (stored !== null) await jsm.streams.deleteMessage(this.stream, stored.seq, false);
    } catch (error) {
      // Gone meanwhile (a worker acked it): what was asked.
      if (error instanceof JetStreamApiError && error.code === NO_MESSAGE_FOUND) return;
      throw ioError(`removing the queue entry ${subject}`, error);
    }
  }

  async #read(jsm: JetStreamManager, subject: string): Promise<QueuedRun | undefined> {
    return (await this.#stored(jsm, subject))?.entry;
  }

  /** The entry on `subject` and its sequence; undefined when there is none, or it was bad and is set aside now. */
  async #stored(jsm: JetStreamManager, subject: string): Promise<Stored | undefined> {
    const stored = await this.#lastOn(jsm, subject);
    if (stored === null) return undefined;
    const entry = await this.#entryOf(stored.seq, subject, stored.data);
    return entry === undefined ? undefined : { seq: stored.seq, entry };
  }

  async quarantined(): Promise<QuarantinedEntry[]> {
    const { jsm } = await this.#setUp();
    const entries: QuarantinedEntry[] = [];
    for (const subject of await this.#subjects(`${this.#base}.quarantine.*`)) {
      const stored = await this.#lastOn(jsm, subject);
      if (stored !== null) entries.push({ name: stored.header.get(NAME_HEADER), reason: stored.header.get(REASON_HEADER) });
    }
    return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async discard(name: string): Promise<void> {
    const seq = name.slice(name.lastIndexOf(".") + 1);
    if (!/^[0-9]+$/.test(seq)) throw notQuarantinedError(name);
    const { jsm } = await this.#setUp();
    const subject = `${this.#base}.quarantine.${seq}`;
    const stored = await this.#lastOn(jsm, subject);
    if (stored === null || stored.header.get(NAME_HEADER) !== name) throw notQuarantinedError(name);
    await this.#purge(jsm, subject);
  }

  onQuarantine(listener: QuarantineListener): () => void {
    return this.#quarantine.add(listener);
  }

  /** The entry a message holds, checked against the run its subject names; undefined once a bad one is set aside. */
  async #entryOf(seq: number, subject: string, data: Uint8Array): Promise<QueuedRun | undefined> {
    // `run.<id>`, `parked.<id>` or `behind.<id>.<how>.<token>`: the id is the token after the kind (and the rest, for run and parked).
    const [kind, ...rest] = subject.slice(this.#base.length + 1).split(".");
    const keptAs = kind === "behind" ? (rest[0] ?? "") : rest.join(".");
    try {
      return decodeEntry(data, keptAs);
    } catch (error) {
      if (!(error instanceof RunStateError && error.code === "ERR_CORRUPT")) throw error;
      await this.#setAside(seq, subject, data, error.message);
      return undefined;
    }
  }

  /**
   * Copies a bad message to the quarantine (once, whoever found it first: its subject takes
   * one message), deletes it, and tells the listeners when this process was the one.
   */
  async #setAside(seq: number, subject: string, data: Uint8Array, reason: string): Promise<void> {
    const { jsm, js } = await this.#setUp();
    const name = `${quarantineName(subject.slice(this.#base.length + 1))}.${seq}`;
    const kept = headers();
    kept.set(NAME_HEADER, name);
    kept.set(REASON_HEADER, reason);
    kept.set(SUBJECT_HEADER, subject);
    let first = true;
    try {
      await js.publish(`${this.#base}.quarantine.${seq}`, data.subarray(0, QUARANTINE_KEPT_BYTES), { headers: kept, expect: { lastSubjectSequence: 0 } });
    } catch (error) {
      if (!slotTaken(error)) throw ioError(`setting aside the queue entry ${subject}`, error);
      first = false;
    }
    try {
      await jsm.streams.deleteMessage(this.stream, seq, false);
    } catch (error) {
      // Deleted by whoever set it aside first.
      if (!(error instanceof JetStreamApiError && error.code === NO_MESSAGE_FOUND)) throw ioError(`setting aside the queue entry ${subject}`, error);
    }
    if (first) this.#quarantine.tell({ name, reason });
  }

  /** The message on `subject`, or null. */
  async #lastOn(jsm: JetStreamManager, subject: string) {
    try {
      return await jsm.streams.getMessage(this.stream, { last_by_subj: subject });
    } catch (error) {
      throw ioError(`reading the queue ${this.stream}`, error);
    }
  }

  /** The run's journal held by us, with its lost signal; "held" when another holds it; undefined when the session is gone. */
  async #hold(runId: string): Promise<{ journal: Journal; lost: AbortSignal } | "held" | undefined> {
    try {
      return await this.#store.openHeld(runId);
    } catch (error) {
      if (error instanceof RunStateError && error.code === "ERR_LOCKED") return "held";
      if (error instanceof RunStateError && error.code === "ERR_NOT_FOUND") return undefined;
      throw error;
    }
  }

  #subject(kind: "run" | "parked", runId: string): string {
    assertRunId(runId);
    return `${this.#base}.${kind}.${runId}`;
  }

  #behindBase(runId: string): string {
    assertRunId(runId);
    return `${this.#base}.behind.${runId}`;
  }

  /** The stream and the workers' consumer, made on first use (as the lease bucket is), or used as they are. */
  #setUp(): Promise<{ jsm: JetStreamManager; js: JetStreamClient; consumer: Consumer }> {
    this.#ready ??= this.#make().catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }

  async #make(): Promise<{ jsm: JetStreamManager; js: JetStreamClient; consumer: Consumer }> {
    const nc = this.#store.connection;
    const jsm = await jetstreamManager(nc, { timeout: DEFAULT_TIMEOUT_MS });
    const js = jetstream(nc, { timeout: DEFAULT_TIMEOUT_MS });
    const tolerated = (doing: string) => (error: unknown) => {
      if (error instanceof JetStreamApiError && error.code === ALREADY_IN_USE) return undefined;
      throw ioError(doing, error);
    };
    await jsm.streams
      .add({
        name: this.stream,
        subjects: [`${this.#base}.>`],
        retention: RetentionPolicy.Workqueue,
        storage: StorageType.File,
        // One entry a run a state: a second submit of a queued run is refused by the server.
        max_msgs_per_subject: 1,
        discard: DiscardPolicy.New,
        discard_new_per_subject: true,
      })
      .catch(tolerated(`making the queue stream ${this.stream}`));
    await jsm.consumers
      .add(this.stream, {
        durable_name: WORKERS_CONSUMER,
        filter_subject: `${this.#base}.run.>`,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        ack_wait: nanos(this.#ackWaitMs),
        // Never given up on: a run leaves the queue only at rest, withdrawn, or parked.
        max_deliver: -1,
      })
      .catch(tolerated(`making the consumer ${WORKERS_CONSUMER} of the queue stream ${this.stream}`));
    let consumer: Consumer;
    try {
      consumer = await js.consumers.get(this.stream, WORKERS_CONSUMER);
    } catch (error) {
      throw ioError(`binding the consumer ${WORKERS_CONSUMER} of the queue stream ${this.stream}`, error);
    }
    return { jsm, js, consumer };
  }
}
