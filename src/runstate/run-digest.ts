// What a listing says of a run beyond its first and last records: its title, where it
// was copied from, its bytes, and the tokens of its model calls by model. Built one
// record at a time as a journal is read or written, so a store keeps it beside the
// run's summary and advances it by the records appended since: `session ls`, `stats`
// and `du` then read summaries, never whole journals. Derived only from the records.
import { ANNOTATION_KINDS, kindOfProtocol, PROTOCOLS, type JournalRecord, type OriginPayload, type TerminalReason } from "./records.js";

/** Tokens of some model calls, in the four tiers the providers report. */
export interface TokenUsage {
  /** Model calls. */
  calls: number;
  /** Input tokens neither read from nor written to the prompt cache. */
  inTokens: number;
  /** Output tokens. */
  outTokens: number;
  /** Input tokens read from the prompt cache. */
  cacheReadTokens: number;
  /** Input tokens written to the prompt cache. */
  cacheWriteTokens: number;
}

/** A run's title, origin, bytes and tokens, as its records say. */
export interface RunDigest {
  /** The bytes the run's records take as stored (the file store adds a lock file's). */
  bytes: number;
  /** The latest title; absent when none was given. */
  title?: string;
  /** Where the records before it were copied from (the latest origin); absent for a run of its own. */
  origin?: OriginPayload;
  /**
   * How the run stands after its last record that is not an annotation (ANNOTATION_KINDS): a terminal
   * reason, `open`, or `moved` when it ends on a moved record (it goes on in another store).
   */
  status: TerminalReason | "open" | "moved";
  /** The agent's model calls made in this run, by model: records copied from another run are that run's. */
  calls: Record<string, TokenUsage>;
  /** The summarizing calls of this run's compactions, by the model that wrote the summary. */
  compactions: Record<string, TokenUsage>;
  /** The tokens of the calls in records copied from another run (every kind and model summed), counted there. */
  copied: TokenUsage;
}

/** No calls, no tokens. */
export function emptyUsage(): TokenUsage {
  return { calls: 0, inTokens: 0, outTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
}

/** Adds `more` into `into`. */
export function addUsage(into: TokenUsage, more: TokenUsage): void {
  into.calls += more.calls;
  into.inTokens += more.inTokens;
  into.outTokens += more.outTokens;
  into.cacheReadTokens += more.cacheReadTokens;
  into.cacheWriteTokens += more.cacheWriteTokens;
}

/** The digest of a run holding no record yet. */
export function emptyDigest(): RunDigest {
  // No absent field is set to undefined: a digest is kept as JSON, and comes back equal.
  return { bytes: 0, status: "open", calls: {}, compactions: {}, copied: emptyUsage() };
}

/** One model call as the ledger counts it: the agent's own, or a compaction's summarizing call. */
export interface LedgerCall {
  /** The seq of the record that holds it. */
  seq: number;
  /** `agent` for an assistant record, `compaction` for a compaction's summarizing call. */
  kind: "agent" | "compaction";
  /**
   * The model: the run's (its meta's fingerprint) for the agent's calls, which a record
   * does not name, and the compaction record's own for a summary.
   */
  model: string;
  /** The call's tokens; `calls` is 1. */
  usage: TokenUsage;
}

/** The model call a record holds, or undefined: `runModel` is the model of the run's meta. */
export function callOf(record: JournalRecord, runModel: string): LedgerCall | undefined {
  if (record.protocol === PROTOCOLS.assistant) {
    const turn = record.assistant;
    const usage = { calls: 1, inTokens: turn.in_tokens, outTokens: turn.out_tokens, cacheReadTokens: turn.cache_read_tokens ?? 0, cacheWriteTokens: turn.cache_create_tokens ?? 0 };
    return { seq: record.seq, kind: "agent", model: runModel, usage };
  }
  // A compaction that only trims made no call.
  if (record.protocol === PROTOCOLS.compaction && record.compaction.summary !== "") {
    const { in_tokens: inTokens, out_tokens: outTokens, model } = record.compaction;
    return { seq: record.seq, kind: "compaction", model, usage: { calls: 1, inTokens, outTokens, cacheReadTokens: 0, cacheWriteTokens: 0 } };
  }
  return undefined;
}

/**
 * Advances `digest` in place by one record of `lineBytes` bytes; `runModel` is the model
 * of the run's meta. Records are taken as decoded, not checked: a record the fold would
 * refuse is for `verify` and `load` to report.
 */
export function digestStep(digest: RunDigest, record: JournalRecord, lineBytes: number, runModel: string): void {
  digest.bytes += lineBytes;
  const kind = kindOfProtocol(record.protocol);
  if (kind === undefined) return;
  if (record.protocol === PROTOCOLS.moved) digest.status = "moved";
  else if (!ANNOTATION_KINDS.includes(kind)) digest.status = record.protocol === PROTOCOLS.terminal ? record.terminal.reason : "open";
  if (record.protocol === PROTOCOLS.title) digest.title = record.title.title;
  if (record.protocol === PROTOCOLS.origin) {
    // Every record before an origin was copied: what was counted here so far is the original's.
    digest.origin = record.origin;
    for (const usage of [...Object.values(digest.calls), ...Object.values(digest.compactions)]) addUsage(digest.copied, usage);
    digest.calls = {};
    digest.compactions = {};
    return;
  }
  const call = callOf(record, runModel);
  if (call === undefined) return;
  const byModel = call.kind === "agent" ? digest.calls : digest.compactions;
  addUsage((byModel[call.model] ??= emptyUsage()), call.usage);
}

/** The digest of a whole run from its records and their lines' bytes (`bytes`, the journal's length). */
export function digestOf(records: readonly JournalRecord[], bytes: number): RunDigest {
  const digest = emptyDigest();
  const first = records[0];
  const model = first?.protocol === PROTOCOLS.meta ? first.meta.fingerprint.model : "";
  for (const record of records) digestStep(digest, record, 0, model);
  digest.bytes = bytes;
  return digest;
}

/** What digestLines read: the first and last complete lines, and where the complete lines end. */
export interface DigestedLines {
  /** The first complete line of `bytes`, without its newline. */
  first: Buffer | undefined;
  /** The last complete line, without its newline. */
  last: Buffer | undefined;
  /** The bytes of `bytes` through its last newline: where a later read goes on from. */
  complete: number;
  /** The run's model, from its meta line when `model` was not known yet. */
  model: string | undefined;
}

const NEWLINE = 0x0a;

/**
 * Advances `digest` by the complete lines of journal bytes (from the start of the journal,
 * or from where an earlier call's complete lines ended). `model` is the run's model, when
 * known; reading from the start, the meta line says it. A line that is not JSON adds only
 * its bytes: `verify` is where a journal's faults are reported.
 */
export function digestLines(digest: RunDigest, bytes: Buffer, model: string | undefined): DigestedLines {
  let first: Buffer | undefined;
  let last: Buffer | undefined;
  let start = 0;
  for (let end = bytes.indexOf(NEWLINE); end >= 0; start = end + 1, end = bytes.indexOf(NEWLINE, start)) {
    const line = bytes.subarray(start, end);
    first ??= line;
    last = line;
    const record = parsedLine(line);
    if (record === undefined) {
      digest.bytes += line.length + 1;
      continue;
    }
    if (model === undefined && record.protocol === PROTOCOLS.meta) model = record.meta?.fingerprint?.model;
    digestStep(digest, record, line.length + 1, model ?? "");
  }
  return { first, last, complete: start, model };
}

/**
 * A digest that holds only the run's status, from its lines read last first: the lines back
 * to the last record that is not an annotation, stepped through in order. Its calls, title
 * and bytes are not counted: for a summary that leaves its digest out, and so reads only the
 * journal's tail.
 */
export function statusOnlyDigest(lastFirst: Iterable<Buffer>): RunDigest {
  const tail: JournalRecord[] = [];
  for (const line of lastFirst) {
    const record = parsedLine(line);
    if (record === undefined) continue;
    tail.push(record);
    const kind = kindOfProtocol(record.protocol);
    if (kind !== undefined && !ANNOTATION_KINDS.includes(kind)) break;
  }
  const digest = emptyDigest();
  for (const record of tail.reverse()) digestStep(digest, record, 0, "");
  return digest;
}

/** A line as a record to digest, or undefined when it is not a JSON object. */
function parsedLine(line: Buffer): JournalRecord | undefined {
  try {
    const record = JSON.parse(line.toString("utf8")) as JournalRecord | null;
    return record !== null && typeof record === "object" ? record : undefined;
  } catch {
    return undefined;
  }
}
