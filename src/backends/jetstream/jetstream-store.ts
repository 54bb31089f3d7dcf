// The NATS JetStream backend (docs/backends.md, The JetStream backend), laid out as the Go implementation lays it
// out, so both list and resume each other's runs on one stream: a run's meta record is
// the message at `<prefix>.<run>._meta`, each later record the message at
// `<prefix>.<run>.<seq>`, each body a journal line without its newline. The operator's
// stream keeps one message per subject and refuses a second (discard new per subject),
// so each slot is written once; a lease in a KV bucket names the one writer of a run.
import {
  DeliverPolicy,
  jetstream,
  jetstreamManager,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  type OrderedConsumerOptions,
  type StoredMsg,
} from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import type { RunState } from "../../runstate/views/fold.js";
import { encodeRecordIn } from "../../runstate/records/journal-codec.js";
import type { JournalRecord, MetaPayload, MetaRecord } from "../../runstate/records/records.js";
import type { RunHolder } from "../../runstate/store/run-holder.js";
import type { Journal, JournalBytes, RunSummary, Store } from "../../runstate/store/store.js";
import {
  assertRunId,
  checkedFromSeq,
  checkedMeta,
  checkImport,
  wholeJournal,
  corruptSummary,
  versionOf,
  decodeRun,
  existsError,
  isValidRunId,
  notFoundError,
  recordsOfLines,
  summarizeEnds,
  withLiveHolder,
} from "../../runstate/store/store-contract.js";
import { connectTo, DEFAULT_TIMEOUT_MS, ioError, MAX_RECONNECTS, type JetStreamStoreConfig } from "./connection.js";
import { JetStreamWriter } from "./journal-writer.js";
import { leaseBucket, Leases } from "./leases.js";
import { checkStream, storeUrlOf } from "./run-stream.js";
import { RunSummaries, type KeptSummary } from "./run-summaries.js";
import { checkedDigestOf, digestLines, emptyDigest, emptyDigestFold } from "../../runstate/views/run-digest.js";

const META_TOKEN = "_meta";
/** Runs summarised at once by list: enough to hide round trips, few enough not to flood the server. */
const LIST_CONCURRENCY = 64;
/** Records a streamed read asks the server for at once: a few round trips a thousand records, a few megabytes held at most. */
const READ_BATCH = 64;

export async function connectJetStreamStore(config: JetStreamStoreConfig, env: NodeJS.ProcessEnv = process.env): Promise<JetStreamStore> {
  const timeout = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const nc = await connectTo(config, env);
  try {
    const jsm = await jetstreamManager(nc, { timeout });
    const prefix = await checkStream(jsm, config.stream, config.prefix, storeUrlOf(config));
    const bucket = await leaseBucket(nc, config);
    const report = config.report ?? (() => undefined);
    const leases = new Leases(bucket, (await bucket.status()).ttl, report, { nc, jsm, stream: config.stream, timeoutMs: timeout });
    const js = jetstream(nc, { timeout });
    return new JetStreamStore(nc, jsm, js, leases, await RunSummaries.open(nc, jsm, js, config.stream, timeout), config.stream, prefix, report);
  } catch (error) {
    await nc.close();
    throw error;
  }
}

export class JetStreamStore implements Store {
  readonly stream: string;
  readonly prefix: string;
  readonly #nc: NatsConnection;
  readonly #jsm: JetStreamManager;
  readonly #js: JetStreamClient;
  readonly #leases: Leases;
  /** Each run's summary, for listings; undefined where the bucket may not be made, and listings read records. */
  readonly #summaries: RunSummaries | undefined;
  readonly #report: (line: string) => void;
  #closing: Promise<void> | undefined;

  constructor(
    nc: NatsConnection,
    jsm: JetStreamManager,
    js: JetStreamClient,
    leases: Leases,
    summaries: RunSummaries | undefined,
    stream: string,
    prefix: string,
    report: (line: string) => void,
  ) {
    this.#nc = nc;
    this.#jsm = jsm;
    this.#js = js;
    this.#leases = leases;
    this.#summaries = summaries;
    this.stream = stream;
    this.prefix = prefix;
    this.#report = report;
    void this.#watchStatus();
  }

  /** Where the runs are, for messages: `stream FISK_RUNS (fisk-ai.runs.>)`. */
  get dir(): string {
    return `stream ${this.stream} (${this.prefix}.>)`;
  }

  subject(runId: string, seq: number): string {
    return `${this.prefix}.${runId}.${seq === 1 ? META_TOKEN : seq}`;
  }

  async create(runId: string, meta: MetaPayload): Promise<Journal> {
    assertRunId(runId);
    const { record, line } = checkedMeta(runId, meta);
    if (await this.#hasMeta(runId)) throw existsError(runId);
    const lease = await this.#leases.take(runId);
    try {
      const writer = new JetStreamWriter(this, runId, lease, meta, this.#summaries, checkedDigestOf([], 0));
      writer.digest(record, line);
      await writer.publish(record, line);
      return writer.journal([record]);
    } catch (error) {
      await lease.release();
      throw error;
    }
  }

  async open(runId: string): Promise<Journal> {
    return (await this.openHeld(runId)).journal;
  }

  /**
   * open, with the signal that aborts once its lease is lost (or may be: it ran out
   * unrenewed), so whoever drives the run can stop at once rather than at its next append.
   */
  async openHeld(runId: string): Promise<{ journal: Journal; lost: AbortSignal }> {
    assertRunId(runId);
    if (!(await this.#hasMeta(runId))) throw notFoundError(runId);
    const lease = await this.#leases.take(runId);
    try {
      const bytes = await this.readJournal(runId);
      const { records, state } = decodeRun(runId, bytes, this.#where(runId));
      const journal = new JetStreamWriter(this, runId, lease, state.meta, this.#summaries, checkedDigestOf(records, bytes.length)).journal(records);
      return { journal, lost: lease.lostSignal };
    } catch (error) {
      await lease.release();
      throw error;
    }
  }

  /** The connection, for what keeps its state beside the runs (the pool's queue). */
  get connection(): NatsConnection {
    return this.#nc;
  }

  /** The TTL of the store's leases (its lease bucket's), in milliseconds. */
  get leaseTtlMs(): number {
    return this.#leases.ttlMs;
  }

  async load(runId: string): Promise<RunState> {
    return decodeRun(runId, await this.readJournal(runId), this.#where(runId)).state;
  }

  /**
   * Every run's summary from the summaries bucket, in a few requests however many runs
   * there are, when they account for every message on the stream; else from the records.
   */
  async list(): Promise<RunSummary[]> {
    const [[kept, messages], holders] = await Promise.all([this.#summariesThenCount(), this.#leases.holders()]);
    let accounted = 0;
    for (const { count } of kept?.values() ?? []) accounted += count;
    if (kept === undefined || accounted !== messages) return this.#listFromRecords(kept ?? new Map<string, KeptSummary>(), holders);
    const summaries: RunSummary[] = [];
    for (const { summary } of kept.values()) {
      if (summary !== undefined && isValidRunId(summary.runId)) summaries.push(withLiveHolder(summary, holders.get(summary.runId)));
    }
    return summaries;
  }

  async summarize(runId: string): Promise<RunSummary> {
    assertRunId(runId);
    // Read together: a record published meanwhile leaves the two counts unequal, and the records are read.
    const [subjects, holder, kept] = await Promise.all([
      this.#subjects(this.#runWildcard(runId)),
      this.#leases.holder(runId),
      this.#summaries?.get(runId).catch(() => undefined),
    ]);
    if (!subjects.has(this.subject(runId, 1))) throw notFoundError(runId);
    if (kept?.summary !== undefined && kept.count === subjects.size) return withLiveHolder(kept.summary, holder);
    return this.#summarizeRecords(runId, this.#lastSeqOf(subjects.keys()), subjects.size, holder);
  }

  async *readRecords(runId: string, fromSeq?: number): AsyncGenerator<JournalRecord> {
    assertRunId(runId);
    const first = checkedFromSeq(fromSeq);
    if (!(await this.#hasMeta(runId))) throw notFoundError(runId);
    yield* recordsOfLines(runId, this.#where(runId), first, this.#bodiesFrom(runId, first));
  }

  /**
   * The bodies of a run's records from seq `first` on, in seq order, through an ordered
   * consumer that starts at that record's message. Records come in publish order, which is
   * seq order but for an import's meta, published last: it is read by its subject.
   * Stops at the last message pending when the read began its final batch.
   */
  async *#bodiesFrom(runId: string, first: number): AsyncGenerator<Uint8Array> {
    let next = first;
    if (first === 1) {
      const meta = await this.#message(runId, 1);
      if (meta === null) return;
      yield meta.data;
      next = 2;
    }
    const start = await this.#message(runId, next);
    if (start === null) return;
    const early = new Map<number, Uint8Array>();
    const delivered = this.#delivered(`reading session ${runId}`, {
      filter_subjects: this.#runWildcard(runId),
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: start.seq,
    });
    for await (const message of delivered) {
      const seq = this.#seqOf(message.subject);
      if (seq >= next) early.set(seq, message.data);
      for (let body = early.get(next); body !== undefined; body = early.get(next)) {
        early.delete(next);
        next++;
        yield body;
      }
    }
  }

  /**
   * What an ordered consumer of `options` delivers, in batches, until the message that
   * had none pending after it; `reading` names the read in an error.
   */
  async *#delivered(reading: string, options: Partial<OrderedConsumerOptions>): AsyncGenerator<JsMsg> {
    let consumer: Awaited<ReturnType<JetStreamClient["consumers"]["get"]>>;
    try {
      consumer = await this.#js.consumers.get(this.stream, options);
    } catch (error) {
      throw ioError(reading, error);
    }
    try {
      for (let pending = 1; pending > 0; ) {
        let got = 0;
        let batch: Awaited<ReturnType<typeof consumer.fetch>>;
        try {
          batch = await consumer.fetch({ max_messages: READ_BATCH, expires: 2000 });
        } catch (error) {
          throw ioError(reading, error);
        }
        for await (const message of batch) {
          got++;
          pending = message.info.pending;
          yield message;
          if (pending === 0) break;
        }
        // Nothing came (a delete raced the read): what was read is all there is.
        if (got === 0) break;
      }
    } finally {
      await consumer.delete().catch(() => undefined);
    }
  }

  async #message(runId: string, seq: number): Promise<StoredMsg | null> {
    try {
      return await this.#jsm.streams.getMessage(this.stream, { last_by_subj: this.subject(runId, seq) });
    } catch (error) {
      throw ioError(`reading session ${runId}`, error);
    }
  }

  /**
   * Every run's records in one pass over the stream, through one ordered consumer: a
   * consumer a run would cost a round trip a run. A record is handed over as it comes, so
   * memory holds a batch, never a journal. The stream is read whole: a run's records are
   * spread through it, so what `visit` needs no more of is not skipped.
   */
  async readJournals(visit: (runId: string, lines: Buffer) => boolean | void): Promise<void> {
    // An empty stream would keep a fetch waiting for its expiry.
    if ((await this.#messageCount()) === 0) return;
    for await (const { data, subject } of this.#delivered(`reading the stream ${this.stream}`, { filter_subjects: `${this.prefix}.>` })) {
      visit(subject.slice(this.prefix.length + 1, subject.lastIndexOf(".")), Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    }
  }

  async readJournal(runId: string): Promise<Buffer> {
    assertRunId(runId);
    const subjects = await this.#subjects(this.#runWildcard(runId));
    if (!subjects.has(this.subject(runId, 1))) throw notFoundError(runId);
    const bodies = await this.#readRun(runId, subjects.size);
    return Buffer.from(bodies.map((body) => `${body}\n`).join(""));
  }

  async importJournal(runId: string, journal: JournalBytes): Promise<void> {
    assertRunId(runId);
    const bytes = await wholeJournal(journal);
    const records = checkImport(runId, bytes);
    if (await this.#hasMeta(runId)) throw existsError(runId);
    const lease = await this.#leases.take(runId);
    const writer = new JetStreamWriter(this, runId, lease, (records[0] as MetaRecord).meta, this.#summaries, checkedDigestOf(records, bytes.byteLength));
    try {
      // Leftovers of an import that died before its meta: the run never existed.
      await this.#purge(runId);
      // The meta goes last: until it is there, nothing lists, loads or opens the run.
      const version = versionOf(records);
      for (const record of [...records.slice(1), records[0] as JournalRecord]) await writer.publish(record, encodeRecordIn(version, record));
      writer.summarizeAt(records.at(-1) as JournalRecord);
    } finally {
      await writer.release();
    }
  }

  async delete(runId: string): Promise<void> {
    assertRunId(runId);
    if (!(await this.#hasMeta(runId))) throw notFoundError(runId);
    const lease = await this.#leases.take(runId);
    try {
      await this.#purge(runId);
      await this.#summaries?.remove(runId).catch(() => undefined);
    } finally {
      await lease.release();
    }
  }

  close(): Promise<void> {
    // Not drain: every write was awaited already, and a drain waits forever for a server that is gone.
    this.#closing ??= this.#nc.close();
    return this.#closing;
  }

  /** Publishes one record into its slot; a slot already taken is the caller's to judge. */
  async publishRecord(runId: string, seq: number, line: string, msgID: string): Promise<void> {
    await this.#js.publish(this.subject(runId, seq), line.slice(0, -1), {
      msgID,
      expect: { lastSubjectSequence: 0 },
    });
  }

  /** The message id in a taken slot, to tell a lost ack of ours from another writer's record. */
  async slotMessageId(runId: string, seq: number): Promise<string | undefined> {
    const message = await this.#jsm.streams.getMessage(this.stream, { last_by_subj: this.subject(runId, seq) });
    return message?.header.get("Nats-Msg-Id") ?? undefined;
  }

  async #watchStatus(): Promise<void> {
    for await (const status of this.#nc.status()) {
      if (status.type === "disconnect") this.#report(`lost the NATS server ${status.server}; reconnecting (at most ${MAX_RECONNECTS} tries)`);
      else if (status.type === "reconnect") this.#report(`reconnected to the NATS server ${status.server}`);
    }
  }

  #where(runId: string): string {
    return `${this.#runWildcard(runId)} on stream ${this.stream}`;
  }

  #runWildcard(runId: string): string {
    return `${this.prefix}.${runId}.>`;
  }

  async #hasMeta(runId: string): Promise<boolean> {
    try {
      return (await this.#jsm.streams.getMessage(this.stream, { last_by_subj: this.subject(runId, 1) })) !== null;
    } catch (error) {
      throw ioError(`reading session ${runId}`, error);
    }
  }

  /** Message counts by subject, for the subjects matching `filter`: names only, no bodies. */
  async #subjects(filter: string): Promise<Map<string, number>> {
    try {
      const info = await this.#jsm.streams.info(this.stream, { subjects_filter: filter });
      return new Map(Object.entries(info.state.subjects ?? {}));
    } catch (error) {
      throw ioError(`reading the subjects of stream ${this.stream}`, error);
    }
  }

  /** The bodies of a run's `count` records, in seq order, through one ordered consumer. */
  async #readRun(runId: string, count: number): Promise<string[]> {
    const bodies = new Map<number, string>();
    try {
      const consumer = await this.#js.consumers.get(this.stream, { filter_subjects: this.#runWildcard(runId) });
      try {
        while (bodies.size < count) {
          const before = bodies.size;
          const batch = await consumer.fetch({ max_messages: count - bodies.size, expires: 2000 });
          for await (const message of batch) {
            bodies.set(this.#seqOf(message.subject), message.string());
            if (bodies.size >= count) break;
          }
          // Fewer than counted (a delete raced the read): what was read is the run.
          if (bodies.size === before) break;
        }
      } finally {
        await consumer.delete().catch(() => undefined);
      }
    } catch (error) {
      throw ioError(`reading session ${runId}`, error);
    }
    return [...bodies.entries()].sort(([a], [b]) => a - b).map(([, body]) => body);
  }

  #seqOf(subject: string): number {
    const token = subject.slice(subject.lastIndexOf(".") + 1);
    return token === META_TOKEN ? 1 : Number(token);
  }

  /**
   * The listing from every record subject's name (one paged call, no bodies): a run's
   * summary is read from its first and last records unless what is kept of it accounts
   * for all of them, and put right for the next listing.
   */
  async #listFromRecords(kept: Map<string, KeptSummary>, holders: Map<string, RunHolder>): Promise<RunSummary[]> {
    const subjectsOf = new Map<string, string[]>();
    for (const subject of (await this.#subjects(`${this.prefix}.*.>`)).keys()) {
      const runId = subject.slice(this.prefix.length + 1, subject.lastIndexOf("."));
      const subjects = subjectsOf.get(runId);
      if (subjects === undefined) subjectsOf.set(runId, [subject]);
      else subjects.push(subject);
    }
    const runIds = [...subjectsOf.keys()];
    const summaries: RunSummary[] = [];
    for (let start = 0; start < runIds.length; start += LIST_CONCURRENCY) {
      const slice = runIds.slice(start, start + LIST_CONCURRENCY);
      const read = await Promise.all(slice.map((runId) => this.#currentSummary(runId, subjectsOf.get(runId) as string[], kept.get(runId), holders.get(runId))));
      for (const summary of read) if (summary !== undefined) summaries.push(summary);
    }
    // Runs gone since their summary was put: forget them, so the counts add up again.
    for (const runId of kept.keys()) if (!subjectsOf.has(runId) && !holders.has(runId)) await this.#summaries?.remove(runId).catch(() => undefined);
    return summaries;
  }

  /** One run's summary in a listing from records, or undefined for subjects that make no run (no meta, or an id not ours). */
  async #currentSummary(runId: string, subjects: string[], kept: KeptSummary | undefined, holder: RunHolder | undefined): Promise<RunSummary | undefined> {
    const isRun = isValidRunId(runId) && subjects.includes(this.subject(runId, 1));
    if (kept?.count === subjects.length && (kept.summary !== undefined) === isRun) return kept.summary && withLiveHolder(kept.summary, holder);
    if (!isRun) {
      if (holder === undefined) await this.#summaries?.put(runId, { count: subjects.length }).catch(() => undefined);
      return undefined;
    }
    return this.#summarizeRecords(runId, this.#lastSeqOf(subjects), subjects.length, holder);
  }

  /** A run's summary from its first and last records, read by subject; kept for listings unless a writer holds the run (it keeps its own). */
  async #summarizeRecords(runId: string, lastSeq: number, count: number, holder: RunHolder | undefined): Promise<RunSummary> {
    let summary: RunSummary;
    try {
      // Every record, for the digest (the title, the tokens); the summary put keeps the next listing from reading them again.
      const [bytes, last] = await Promise.all([
        this.readJournal(runId),
        this.#jsm.streams.getMessage(this.stream, { last_by_subj: this.subject(runId, lastSeq) }),
      ]);
      const digest = emptyDigest();
      const ends = digestLines(digest, emptyDigestFold(), bytes, undefined);
      summary = summarizeEnds(runId, this.#where(runId), ends, last?.time ?? new Date(0), digest);
    } catch (error) {
      return corruptSummary(runId, new Date(0), error);
    }
    if (holder === undefined) await this.#summaries?.put(runId, { count, summary }).catch(() => undefined);
    return withLiveHolder(summary, holder);
  }

  #lastSeqOf(subjects: Iterable<string>): number {
    let last = 0;
    for (const subject of subjects) last = Math.max(last, this.#seqOf(subject));
    return last;
  }

  /**
   * The summaries, then the stream's message count: each record a summary accounts for was
   * published before that summary was put, so it is in the count read after, and the two
   * are equal only when no record lacks its summary.
   */
  async #summariesThenCount(): Promise<[Map<string, KeptSummary> | undefined, number]> {
    const kept = await this.#summaries?.readAll().catch(() => undefined);
    return [kept, await this.#messageCount()];
  }

  /** How many messages the stream holds: every record of every run, and nothing else. */
  async #messageCount(): Promise<number> {
    try {
      return (await this.#jsm.streams.info(this.stream)).state.messages;
    } catch (error) {
      throw ioError(`reading the stream ${this.stream}`, error);
    }
  }

  async #purge(runId: string): Promise<void> {
    try {
      await this.#jsm.streams.purge(this.stream, { filter: this.#runWildcard(runId) });
    } catch (error) {
      throw ioError(`removing session ${runId}`, error);
    }
  }
}
