// The NATS JetStream backend (SPEC section 4), laid out as the Go implementation lays it
// out, so both list and resume each other's runs on one stream: a run's meta record is
// the message at `<prefix>.<run>._meta`, each later record the message at
// `<prefix>.<run>.<seq>`, each body a journal line without its newline. The operator's
// stream keeps one message per subject and refuses a second (discard new per subject),
// so each slot is written once; a lease in a KV bucket names the one writer of a run.
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import type { RunState } from "../fold.js";
import { encodeRecordIn } from "../journal-codec.js";
import type { JournalRecord, MetaPayload } from "../records.js";
import type { Journal, RunHolder, RunSummary, Store } from "../store.js";
import {
  assertRunId,
  checkedMeta,
  checkImport,
  corruptSummary,
  versionOf,
  decodeRun,
  existsError,
  isValidRunId,
  notFoundError,
  summarizeEnds,
  withLiveHolder,
} from "../store-contract.js";
import { connectTo, DEFAULT_TIMEOUT_MS, ioError, MAX_RECONNECTS, type JetStreamStoreConfig } from "./connection.js";
import { JetStreamWriter } from "./journal-writer.js";
import { leaseBucket, Leases } from "./leases.js";
import { checkStream } from "./run-stream.js";

const META_TOKEN = "_meta";
/** Runs summarised at once by list: enough to hide round trips, few enough not to flood the server. */
const LIST_CONCURRENCY = 64;

export async function connectJetStreamStore(config: JetStreamStoreConfig, env: NodeJS.ProcessEnv = process.env): Promise<JetStreamStore> {
  const timeout = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const nc = await connectTo(config, env);
  try {
    const jsm = await jetstreamManager(nc, { timeout });
    const prefix = await checkStream(jsm, config.stream, config.prefix);
    const bucket = await leaseBucket(nc, config);
    const report = config.report ?? (() => undefined);
    const leases = new Leases(bucket, (await bucket.status()).ttl, report);
    return new JetStreamStore(nc, jsm, jetstream(nc, { timeout }), leases, config.stream, prefix, report);
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
  readonly #report: (line: string) => void;
  #closing: Promise<void> | undefined;

  constructor(nc: NatsConnection, jsm: JetStreamManager, js: JetStreamClient, leases: Leases, stream: string, prefix: string, report: (line: string) => void) {
    this.#nc = nc;
    this.#jsm = jsm;
    this.#js = js;
    this.#leases = leases;
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
      const writer = new JetStreamWriter(this, runId, lease);
      await writer.publish(record, line);
      return writer.journal([record]);
    } catch (error) {
      await lease.release();
      throw error;
    }
  }

  async open(runId: string): Promise<Journal> {
    assertRunId(runId);
    if (!(await this.#hasMeta(runId))) throw notFoundError(runId);
    const lease = await this.#leases.take(runId);
    try {
      const { records } = decodeRun(runId, await this.readJournal(runId), this.#where(runId));
      return new JetStreamWriter(this, runId, lease).journal(records);
    } catch (error) {
      await lease.release();
      throw error;
    }
  }

  async load(runId: string): Promise<RunState> {
    return decodeRun(runId, await this.readJournal(runId), this.#where(runId)).state;
  }

  async list(): Promise<RunSummary[]> {
    // Every record subject's name in one paged call, no bodies: the runs with a meta, and each one's last seq.
    const lastSeqs = new Map<string, number>();
    const metas = new Set<string>();
    for (const subject of (await this.#subjects(`${this.prefix}.*.>`)).keys()) {
      const runId = subject.slice(this.prefix.length + 1, subject.lastIndexOf("."));
      const seq = this.#seqOf(subject);
      if (seq === 1) metas.add(runId);
      lastSeqs.set(runId, Math.max(seq, lastSeqs.get(runId) ?? 0));
    }
    const runIds = [...metas].filter(isValidRunId);
    const holders = await this.#leases.holders();
    const summaries: RunSummary[] = [];
    for (let start = 0; start < runIds.length; start += LIST_CONCURRENCY) {
      const slice = runIds.slice(start, start + LIST_CONCURRENCY);
      summaries.push(...(await Promise.all(slice.map((runId) => this.#summarize(runId, lastSeqs.get(runId) ?? 1, holders.get(runId))))));
    }
    return summaries;
  }

  async summarize(runId: string): Promise<RunSummary> {
    assertRunId(runId);
    const subjects = await this.#subjects(this.#runWildcard(runId));
    if (!subjects.has(this.subject(runId, 1))) throw notFoundError(runId);
    const lastSeq = Math.max(...[...subjects.keys()].map((subject) => this.#seqOf(subject)));
    return this.#summarize(runId, lastSeq, await this.#leases.holder(runId));
  }

  async readJournal(runId: string): Promise<Buffer> {
    assertRunId(runId);
    const subjects = await this.#subjects(this.#runWildcard(runId));
    if (!subjects.has(this.subject(runId, 1))) throw notFoundError(runId);
    const bodies = await this.#readRun(runId, subjects.size);
    return Buffer.from(bodies.map((body) => `${body}\n`).join(""));
  }

  async importJournal(runId: string, bytes: Uint8Array): Promise<void> {
    assertRunId(runId);
    const records = checkImport(runId, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    if (await this.#hasMeta(runId)) throw existsError(runId);
    const lease = await this.#leases.take(runId);
    try {
      // Leftovers of an import that died before its meta: the run never existed.
      await this.#purge(runId);
      const writer = new JetStreamWriter(this, runId, lease);
      // The meta goes last: until it is there, nothing lists, loads or opens the run.
      const version = versionOf(records);
      for (const record of [...records.slice(1), records[0] as JournalRecord]) await writer.publish(record, encodeRecordIn(version, record));
    } finally {
      await lease.release();
    }
  }

  async delete(runId: string): Promise<void> {
    assertRunId(runId);
    if (!(await this.#hasMeta(runId))) throw notFoundError(runId);
    const lease = await this.#leases.take(runId);
    try {
      await this.#purge(runId);
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

  /** A run's summary from its first and last records, read by subject. */
  async #summarize(runId: string, lastSeq: number, holder: RunHolder | undefined): Promise<RunSummary> {
    try {
      const [first, last] = await Promise.all(
        (lastSeq === 1 ? [1] : [1, lastSeq]).map((seq) => this.#jsm.streams.getMessage(this.stream, { last_by_subj: this.subject(runId, seq) })),
      );
      const updated = (last ?? first)?.time ?? new Date(0);
      const lastData = lastSeq === 1 ? first?.data : last?.data;
      return withLiveHolder(summarizeEnds(runId, this.#where(runId), { first: first?.data, last: lastData }, updated), holder);
    } catch (error) {
      return corruptSummary(runId, new Date(0), error);
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
