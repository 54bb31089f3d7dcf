// The NATS JetStream backend (SPEC section 4), laid out as the Go implementation lays it
// out, so both list and resume each other's runs on one stream: a run's meta record is
// the message at `<prefix>.<run>._meta`, each later record the message at
// `<prefix>.<run>.<seq>`, each body a journal line without its newline. The operator's
// stream keeps one message per subject and refuses a second (discard new per subject),
// so each slot is written once; a lease in a KV bucket names the one writer of a run.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { DiscardPolicy, jetstream, jetstreamManager, JetStreamApiError, type JetStreamClient, type JetStreamManager, type StreamConfig } from "@nats-io/jetstream";
import { Kvm, type KV } from "@nats-io/kv";
import { connect, credsAuthenticator, type ConnectionOptions, type NatsConnection } from "@nats-io/transport-node";
import { RunStateError } from "../errors.js";
import type { RunState } from "../fold.js";
import { encodeRecordIn } from "../journal-codec.js";
import { JournalCore, type JournalWriter, type LinedRecord } from "../journal-core.js";
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
  lockedError,
  notFoundError,
  summarizeEnds,
  withLiveHolder,
} from "../store-contract.js";

export interface JetStreamStoreConfig {
  backend: "jetstream";
  /** One or more `nats://host:port` URLs. */
  servers: string | string[];
  /** The operator-created stream the runs live on. */
  stream: string;
  /** The subject prefix; default the one the stream's single wildcard subject names. */
  prefix?: string;
  /** How long one call to the server may take before it fails; default 5 s. */
  timeoutMs?: number;
  /** How long a writer's lease outlives its last heartbeat; default 10 s. Set when the lease bucket is made. */
  leaseTtlMs?: number;
  /** Where reconnects and lease trouble are reported, one line each; the library never prints. */
  report?: (line: string) => void;
}

const META_TOKEN = "_meta";
const DEFAULT_TIMEOUT_MS = 5000;
const DEFAULT_LEASE_TTL_MS = 10_000;
const MAX_RECONNECTS = 10;
const RECONNECT_WAIT_MS = 1000;
/** Runs summarised at once by list: enough to hide round trips, few enough not to flood the server. */
const LIST_CONCURRENCY = 64;
/** JetStream's "wrong last sequence" and "maximum messages per subject exceeded": a slot taken. */
const SLOT_TAKEN_CODES = new Set([10071, 10077]);
const STREAM_NOT_FOUND = 10059;
/** One record a write: each append resolves once its own slot is taken, and a failure stops at the record that failed. */
const JOURNAL_OPTIONS = { maxBatch: 1 };

/** Credentials come only from the environment, never from a config file or a record. */
export function natsAuthFromEnv(env: NodeJS.ProcessEnv): Partial<ConnectionOptions> {
  if (env.NATS_CREDS) {
    const path = env.NATS_CREDS;
    let creds: Uint8Array;
    try {
      creds = readFileSync(path);
    } catch (error) {
      throw new RunStateError("ERR_IO", `cannot read the NATS credentials file ${path} named by NATS_CREDS: ${(error as Error).message}`);
    }
    return { authenticator: credsAuthenticator(creds) };
  }
  if (env.NATS_USER) return { user: env.NATS_USER, pass: env.NATS_PASSWORD ?? "" };
  if (env.NATS_TOKEN) return { token: env.NATS_TOKEN };
  return {};
}

/** The `nats stream add` command that makes a stream this backend accepts. */
function streamAddCommand(stream: string, prefix: string): string {
  return `nats stream add ${stream} --subjects "${prefix}.>" --storage file --retention limits --max-msgs-per-subject=1 --discard new --discard-per-subject --max-age=0 --dupe-window=2m --defaults`;
}

/** What a stream for runs must be: write-once slots, nothing expiring, nothing overwritten. */
export function runStreamConfig(stream: string, prefix: string): Partial<StreamConfig> & { name: string } {
  return {
    name: stream,
    subjects: [`${prefix}.>`],
    max_msgs_per_subject: 1,
    discard: DiscardPolicy.New,
    discard_new_per_subject: true,
    max_age: 0,
  };
}

/** The prefix a new stream binds when none is configured. */
const DEFAULT_PREFIX = "fisk-ai.runs";

async function connectTo(config: JetStreamStoreConfig, env: NodeJS.ProcessEnv): Promise<NatsConnection> {
  const servers = Array.isArray(config.servers) ? config.servers : [config.servers];
  const auth = natsAuthFromEnv(env);
  try {
    return await connect({
      servers,
      timeout: config.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxReconnectAttempts: MAX_RECONNECTS,
      reconnectTimeWait: RECONNECT_WAIT_MS,
      name: `fisk-ai ${process.pid}`,
      ...auth,
    });
  } catch (error) {
    throw new RunStateError("ERR_IO", `cannot reach the NATS server at ${servers.join(", ")}: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * What `fisk-ai session init-stream` does: creates the stream for runs, or checks the
 * one already there as binding would. Says whether it created it.
 */
export async function initRunStream(config: JetStreamStoreConfig, env: NodeJS.ProcessEnv = process.env): Promise<{ created: boolean; prefix: string }> {
  const nc = await connectTo(config, env);
  try {
    const jsm = await jetstreamManager(nc, { timeout: config.timeoutMs ?? DEFAULT_TIMEOUT_MS });
    const exists = await jsm.streams.info(config.stream).then(
      () => true,
      (error: unknown) => {
        if (error instanceof JetStreamApiError && error.code === STREAM_NOT_FOUND) return false;
        throw ioError(`reading the stream ${config.stream}`, error);
      },
    );
    if (!exists) {
      await jsm.streams.add(runStreamConfig(config.stream, config.prefix ?? DEFAULT_PREFIX)).catch((error: unknown) => {
        throw ioError(`creating the stream ${config.stream}`, error);
      });
    }
    const prefix = await checkStream(jsm, config.stream, config.prefix);
    await leaseBucket(nc, config);
    return { created: !exists, prefix };
  } finally {
    await nc.close();
  }
}

export async function connectJetStreamStore(config: JetStreamStoreConfig, env: NodeJS.ProcessEnv = process.env): Promise<JetStreamStore> {
  const timeout = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const nc = await connectTo(config, env);
  try {
    const jsm = await jetstreamManager(nc, { timeout });
    const prefix = await checkStream(jsm, config.stream, config.prefix);
    const leases = await leaseBucket(nc, config);
    // The bucket's own TTL sets the heartbeat, whoever made the bucket.
    const leaseTtlMs = (await leases.status()).ttl;
    return new JetStreamStore(nc, jsm, jetstream(nc, { timeout }), leases, { ...config, leaseTtlMs }, prefix);
  } catch (error) {
    await nc.close();
    throw error;
  }
}

/**
 * The KV bucket of leases beside the stream, made on first use. Its TTL is the lease's:
 * fixed when the bucket is made, so an existing bucket is used as it is.
 */
async function leaseBucket(nc: NatsConnection, config: JetStreamStoreConfig): Promise<KV> {
  const kvm = new Kvm(jetstream(nc, { timeout: config.timeoutMs ?? DEFAULT_TIMEOUT_MS }));
  const name = `${config.stream}_LEASES`;
  try {
    return await kvm.create(name, { history: 1, ttl: config.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS });
  } catch (error) {
    // 10058: it exists with another TTL.
    if (error instanceof JetStreamApiError && error.code === 10058) return kvm.open(name);
    throw ioError(`making the lease bucket ${name}`, error);
  }
}

/** Binds the stream, or refuses one that could lose or overwrite a record, naming the fix. */
async function checkStream(jsm: JetStreamManager, stream: string, wanted: string | undefined): Promise<string> {
  let config: StreamConfig;
  try {
    config = (await jsm.streams.info(stream)).config;
  } catch (error) {
    if (error instanceof JetStreamApiError && error.code === STREAM_NOT_FOUND) {
      const prefix = wanted ?? DEFAULT_PREFIX;
      throw new RunStateError(
        "ERR_STORE_CONFIG",
        `no JetStream stream ${stream}: create it with 'fisk-ai session init-stream', or with: ${streamAddCommand(stream, prefix)}`,
      );
    }
    throw ioError(`binding the stream ${stream}`, error);
  }
  const wildcards = config.subjects.filter((subject) => subject.split(".").some((token) => token === "*" || token === ">"));
  const only = wildcards.length === 1 ? (wildcards[0] as string) : undefined;
  const prefix = only?.endsWith(".>") && !only.slice(0, -2).split(".").some((token) => token === "*" || token === ">" || token === "") ? only.slice(0, -2) : undefined;
  const fix = (problem: string) =>
    new RunStateError("ERR_STORE_CONFIG", `stream ${stream} ${problem}, so a record could be lost or overwritten: recreate it with: ${streamAddCommand(stream, prefix ?? wanted ?? DEFAULT_PREFIX)}`);
  if (prefix === undefined) throw fix(`must bind exactly one subject of the form <prefix>.> (it binds ${config.subjects.join(", ")})`);
  if (wanted !== undefined && wanted !== prefix) throw fix(`binds ${prefix}.>, not the configured prefix ${wanted}.>`);
  if (config.max_msgs_per_subject !== 1) throw fix(`keeps ${config.max_msgs_per_subject} messages per subject, not 1`);
  if (config.discard !== DiscardPolicy.New || config.discard_new_per_subject !== true) throw fix("does not discard new messages per subject");
  if (config.max_age !== 0) throw fix(`expires messages after ${config.max_age / 1e9} s`);
  return prefix;
}

function ioError(doing: string, error: unknown): RunStateError {
  return new RunStateError("ERR_IO", `${doing} on the NATS server failed: ${(error as Error).message}`, { cause: error });
}

function slotTaken(error: unknown): boolean {
  return error instanceof JetStreamApiError && SLOT_TAKEN_CODES.has(error.code);
}

interface Lease extends RunHolder {
  /** Which open holds it, so a writer tells its own lease from a successor's. */
  nonce: string;
}

const STARTED = new Date(Date.now() - process.uptime() * 1000).toISOString();

export class JetStreamStore implements Store {
  readonly stream: string;
  readonly prefix: string;
  readonly #nc: NatsConnection;
  readonly #jsm: JetStreamManager;
  readonly #js: JetStreamClient;
  readonly #leases: KV;
  readonly #leaseTtlMs: number;
  readonly #report: (line: string) => void;
  #closing: Promise<void> | undefined;

  constructor(nc: NatsConnection, jsm: JetStreamManager, js: JetStreamClient, leases: KV, config: JetStreamStoreConfig, prefix: string) {
    this.#nc = nc;
    this.#jsm = jsm;
    this.#js = js;
    this.#leases = leases;
    this.stream = config.stream;
    this.prefix = prefix;
    this.#leaseTtlMs = config.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
    this.#report = config.report ?? (() => undefined);
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
    const lease = await this.#takeLease(runId);
    try {
      const writer = new JetStreamWriter(this, runId, lease);
      await writer.publish(record, line);
      return new JournalCore(runId, [record], writer, JOURNAL_OPTIONS);
    } catch (error) {
      await lease.release();
      throw error;
    }
  }

  async open(runId: string): Promise<Journal> {
    assertRunId(runId);
    if (!(await this.#hasMeta(runId))) throw notFoundError(runId);
    const lease = await this.#takeLease(runId);
    try {
      const { records } = decodeRun(runId, await this.readJournal(runId), this.#where(runId));
      return new JournalCore(runId, records, new JetStreamWriter(this, runId, lease), JOURNAL_OPTIONS);
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
    const holders = await this.#liveLeases();
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
    return this.#summarize(runId, lastSeq, await this.#readLease(runId));
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
    const lease = await this.#takeLease(runId);
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
    const lease = await this.#takeLease(runId);
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

  report(line: string): void {
    this.#report(line);
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

  /** Who holds the run's lease, as a holder (the nonce is the writer's own business). */
  async #readLease(runId: string): Promise<RunHolder | undefined> {
    const entry = await this.#leases.get(runId);
    const lease = entry === null || entry.operation !== "PUT" ? undefined : parseLease(entry.string());
    return lease === undefined ? undefined : { pid: lease.pid, host: lease.host, started: lease.started };
  }

  async #liveLeases(): Promise<Map<string, RunHolder>> {
    const held = new Map<string, RunHolder>();
    for await (const key of await this.#leases.keys()) {
      const lease = await this.#readLease(key);
      if (lease !== undefined) held.set(key, lease);
    }
    return held;
  }

  /**
   * Takes the run's lease: a create-only key, so a second writer anywhere fails at once
   * naming the holder. A heartbeat keeps it; a holder that dies stops beating and its
   * lease expires with the bucket's TTL.
   */
  async #takeLease(runId: string): Promise<HeldLease> {
    const lease: Lease = { pid: process.pid, host: hostname(), started: STARTED, nonce: randomBytes(12).toString("hex") };
    let revision: number;
    try {
      revision = await this.#leases.create(runId, JSON.stringify(lease));
    } catch (error) {
      if (slotTaken(error) || /wrong last sequence|key exists/i.test((error as Error).message)) {
        throw lockedError(runId, await this.#readLease(runId).catch(() => undefined));
      }
      throw ioError(`taking the lease of session ${runId}`, error);
    }
    return new HeldLease(this.#leases, runId, lease, revision, this.#leaseTtlMs, (line) => this.#report(line));
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
class HeldLease {
  readonly nonce: string;
  readonly #kv: KV;
  readonly #runId: string;
  readonly #body: string;
  readonly #timer: NodeJS.Timeout;
  #revision: number;
  #lost: string | undefined;

  constructor(kv: KV, runId: string, lease: Lease, revision: number, ttlMs: number, report: (line: string) => void) {
    this.#kv = kv;
    this.#runId = runId;
    this.nonce = lease.nonce;
    this.#body = JSON.stringify(lease);
    this.#revision = revision;
    this.#timer = setInterval(() => {
      kv.update(runId, this.#body, this.#revision).then(
        (next) => (this.#revision = next),
        (error: unknown) => {
          // Another writer took it after it expired: this one may not write again.
          if (slotTaken(error) || /wrong last sequence/i.test((error as Error).message)) {
            this.#lost = `the lease of session ${runId} passed to another writer`;
            report(this.#lost);
          }
        },
      );
    }, Math.max(100, Math.floor(ttlMs / 3)));
    // The lease must not keep a finished process alive.
    this.#timer.unref();
  }

  /** Why this writer may no longer write, if it lost the lease. */
  get lost(): string | undefined {
    return this.#lost;
  }

  async release(): Promise<void> {
    clearInterval(this.#timer);
    if (this.#lost !== undefined) return;
    // Only our own lease: a successor's (after ours expired) is not ours to remove.
    await this.#kv.delete(this.#runId, { previousSeq: this.#revision }).catch(() => undefined);
  }
}

/** A journal's writer on JetStream: publishes each record into its slot, holding the run's lease. */
class JetStreamWriter implements JournalWriter {
  readonly #store: JetStreamStore;
  readonly #runId: string;
  readonly #lease: HeldLease;

  constructor(store: JetStreamStore, runId: string, lease: HeldLease) {
    this.#store = store;
    this.#runId = runId;
    this.#lease = lease;
  }

  /**
   * Each record once the one before it is acknowledged: a record published without
   * waiting could land after a slot that another writer took.
   */
  async write(batch: readonly LinedRecord[]): Promise<void> {
    for (const { record, line } of batch) await this.publish(record, line);
  }

  release(): Promise<void> {
    return this.#lease.release();
  }

  /**
   * Writes a record into its slot as `line`, its encoding in this run's record version. A
   * slot already taken holds either our own record (a retry whose ack was lost: written)
   * or another writer's (ERR_LOCKED, or ERR_EXISTS for a meta: the run was created meanwhile).
   */
  async publish(record: JournalRecord, line: string): Promise<void> {
    if (this.#lease.lost !== undefined) throw lockedError(this.#runId, undefined);
    const msgID = `${this.#lease.nonce}-${record.seq}`;
    try {
      await this.#store.publishRecord(this.#runId, record.seq, line, msgID);
      return;
    } catch (error) {
      if (!slotTaken(error)) {
        throw new RunStateError(
          "ERR_IO",
          `the NATS server did not take record ${record.seq} of session ${this.#runId}: ${(error as Error).message}`,
          { cause: error, seq: record.seq },
        );
      }
    }
    const holder = await this.#store.slotMessageId(this.#runId, record.seq).catch(() => undefined);
    if (holder === msgID) return;
    throw record.seq === 1 ? existsError(this.#runId) : lockedError(this.#runId, undefined);
  }
}
