// One summary a run, kept in a KV bucket beside the stream, so that a listing reads every
// run's summary in one request instead of two records a run. A summary is a cache, never
// the truth: a writer puts it after the records it publishes, and a listing trusts the
// summaries only when, together, they account for every message on the stream (the
// slots are write-once, so a run of last seq n holds n messages). Anything else (a run
// the Go implementation wrote, which keeps no summary, a writer killed between a record
// and its summary, a summary put that failed) leaves a message unaccounted for, and the
// listing reads the records themselves and puts the summaries right.
import { JetStreamApiError, type JetStreamClient, type JetStreamManager } from "@nats-io/jetstream";
import { Kvm, type KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import type { RunStatus, RunSummary } from "../../runstate/store/store.js";
import { readLastValues } from "./last-values.js";
import type { RunDigest } from "../../runstate/views/run-digest.js";

/** What the bucket keeps of a run (a key): the messages it accounts for, and the run's summary. */
export interface KeptSummary {
  /** How many of the stream's messages are under the key's run id. */
  count: number;
  /**
   * What list() says of the run, without a holder; absent for messages that make no run
   * (records of an import that died before its meta), kept so the counts still add up.
   */
  summary?: RunSummary;
}

/** The value's format: a value in another is read as missing, and put right. 2 adds the digest. */
const FORMAT = 2;

interface StoredValue {
  v: number;
  count: number;
  status?: RunStatus;
  meta?: RunSummary["meta"];
  last_seq?: number;
  updated?: string;
  problem?: string;
  digest?: RunDigest;
}

export class RunSummaries {
  readonly #kv: KV;
  readonly #nc: NatsConnection;
  readonly #jsm: JetStreamManager;
  readonly #bucket: string;
  readonly #timeoutMs: number;

  private constructor(kv: KV, nc: NatsConnection, jsm: JetStreamManager, bucket: string, timeoutMs: number) {
    this.#kv = kv;
    this.#nc = nc;
    this.#jsm = jsm;
    this.#bucket = bucket;
    this.#timeoutMs = timeoutMs;
  }

  /**
   * The bucket beside `stream`, made on first use with one value a key; undefined when it
   * can be neither made nor opened (credentials that may not), and listings read records.
   */
  static async open(nc: NatsConnection, jsm: JetStreamManager, js: JetStreamClient, stream: string, timeoutMs: number): Promise<RunSummaries | undefined> {
    const bucket = `${stream}_SUMMARIES`;
    const kvm = new Kvm(js);
    try {
      return new RunSummaries(await kvm.create(bucket, { history: 1 }), nc, jsm, bucket, timeoutMs);
    } catch (error) {
      // 10058: it exists, made otherwise; it is used as it is.
      if (!(error instanceof JetStreamApiError && error.code === 10058)) return undefined;
      return new RunSummaries(await kvm.open(bucket), nc, jsm, bucket, timeoutMs);
    }
  }

  /** Puts what is kept of a run. A failure is the caller's to ignore: the counts will not add up, and a listing puts it right. */
  async put(runId: string, kept: KeptSummary): Promise<void> {
    await this.#kv.put(runId, encode(kept));
  }

  /** Forgets a run, once its records are gone. */
  async remove(runId: string): Promise<void> {
    await this.#kv.delete(runId);
  }

  /** What is kept of one run, or undefined. */
  async get(runId: string): Promise<KeptSummary | undefined> {
    const entry = await this.#kv.get(runId);
    return entry === null || entry.operation !== "PUT" ? undefined : decode(runId, entry.string());
  }

  /** What is kept of every run, in one pass over the bucket (readLastValues). A value that does not parse is left out. */
  async readAll(): Promise<Map<string, KeptSummary>> {
    const prefix = `$KV.${this.#bucket}.`;
    const kept = new Map<string, KeptSummary>();
    for (const [subject, text] of await readLastValues(this.#nc, this.#jsm, `KV_${this.#bucket}`, `${prefix}>`, this.#timeoutMs)) {
      // A removed key's last message is its delete marker, with no body.
      const value = text === "" ? undefined : decode(subject.slice(prefix.length), text);
      if (value !== undefined) kept.set(subject.slice(prefix.length), value);
    }
    return kept;
  }
}

function encode({ count, summary }: KeptSummary): string {
  const value: StoredValue = { v: FORMAT, count };
  if (summary !== undefined) {
    Object.assign(value, { status: summary.status, meta: summary.meta, last_seq: summary.lastSeq, updated: summary.updated });
    if (summary.problem !== undefined) value.problem = summary.problem;
    if (summary.digest !== undefined) value.digest = summary.digest;
  }
  return JSON.stringify(value);
}

function decode(runId: string, text: string): KeptSummary | undefined {
  let value: StoredValue;
  try {
    value = JSON.parse(text) as StoredValue;
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null || value.v !== FORMAT || !Number.isInteger(value.count) || value.count < 0) return undefined;
  if (value.status === undefined) return { count: value.count };
  if (typeof value.status !== "string" || typeof value.last_seq !== "number" || typeof value.updated !== "string") return undefined;
  const corrupt = value.status === "corrupt";
  if (corrupt !== (typeof value.meta !== "object" || value.meta === null)) return undefined;
  const summary: RunSummary = { runId, status: value.status, meta: corrupt ? undefined : value.meta, lastSeq: value.last_seq, updated: value.updated };
  if (typeof value.problem === "string") summary.problem = value.problem;
  if (isDigest(value.digest)) summary.digest = value.digest;
  else if (!corrupt) return undefined;
  return { count: value.count, summary };
}

/** The shape only: the bucket is ours; a value put by this format's writer is a whole digest. */
function isDigest(value: unknown): value is RunDigest {
  if (typeof value !== "object" || value === null) return false;
  const digest = value as Partial<RunDigest>;
  return (
    typeof digest.bytes === "number" &&
    typeof digest.status === "string" &&
    typeof digest.calls === "object" &&
    typeof digest.compactions === "object" &&
    typeof digest.copied === "object"
  );
}

/** How long a writer's summary waits for later records before it is put: one put serves a burst of appends. */
const SUMMARY_DELAY_MS = 100;

/**
 * A writer's puts of its run's summary: the latest only, at most one a SUMMARY_DELAY_MS
 * and one at a time, so they neither hold up an append nor double the server's work for
 * each; the writer puts the last one before it lets go of the run.
 */
export class SummaryPuts {
  readonly #summaries: RunSummaries | undefined;
  readonly #runId: string;
  #next: KeptSummary | undefined;
  #timer: NodeJS.Timeout | undefined;
  #putting: Promise<void> | undefined;

  constructor(summaries: RunSummaries | undefined, runId: string) {
    this.#summaries = summaries;
    this.#runId = runId;
  }

  put(kept: KeptSummary): void {
    if (this.#summaries === undefined) return;
    this.#next = kept;
    // Unref'd: a summary left unput costs a listing the records' reads, not the process its exit.
    this.#timer ??= setTimeout(() => void this.#flush(), SUMMARY_DELAY_MS).unref();
  }

  /** Puts the latest summary given now, and settles once it is put (or its put has failed). */
  async settled(): Promise<void> {
    await this.#flush();
  }

  async #flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    while (this.#putting !== undefined) await this.#putting;
    const kept = this.#next;
    if (kept === undefined || this.#summaries === undefined) return;
    this.#next = undefined;
    this.#putting = this.#summaries
      .put(this.#runId, kept)
      .catch(() => undefined)
      .finally(() => (this.#putting = undefined));
    await this.#putting;
  }
}
