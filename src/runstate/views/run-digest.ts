// What a listing says of a run beyond its first and last records: its title, where it
// was copied from, its bytes, and the tokens of its model calls by model. Built one
// record at a time as a journal is read or written, so a store keeps it beside the
// run's summary and advances it by the records appended since: `session ls`, `stats`
// and `du` then read summaries, never whole journals. Derived only from the records.
import { isRunStateError } from "../errors.js";
import { outlineStep, type FoldState } from "./fold.js";
import { parseRecordLine } from "../records/journal-codec.js";
import {
  ANNOTATION_KINDS,
  kindOfProtocol,
  PROTOCOLS,
  type ImportedPayload,
  type JournalRecord,
  type OriginPayload,
  type TerminalReason,
} from "../records/records.js";

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
  /** The latest import mark: who imported the session from what file, when; absent for a session never imported. */
  imported?: ImportedPayload;
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
  /**
   * The first line that does not decode or breaks a rule of the fold, as `line N: what`:
   * absent while every record read folds. A run with a problem is listed as corrupt.
   */
  problem?: string;
}

/**
 * The checking fold a digest's records go through as they are read or written (outlineStep):
 * its state, and the lines seen so far, which name the line a problem is on. Not kept with
 * the digest: a digest is advanced by what is appended only by whoever holds this too.
 */
export interface DigestFold {
  state: FoldState | undefined;
  lines: number;
}

/** The checking fold of a run with no record read yet. */
export function emptyDigestFold(): DigestFold {
  return { state: undefined, lines: 0 };
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

/** The tokens of one model call, as an assistant record (or a provider's usage) reports them. */
export function turnUsage(turn: { in_tokens: number; out_tokens: number; cache_read_tokens?: number; cache_create_tokens?: number }): TokenUsage {
  return {
    calls: 1,
    inTokens: turn.in_tokens,
    outTokens: turn.out_tokens,
    cacheReadTokens: turn.cache_read_tokens ?? 0,
    cacheWriteTokens: turn.cache_create_tokens ?? 0,
  };
}

/** The model call a record holds, or undefined: `runModel` is the model of the run's meta. */
export function callOf(record: JournalRecord, runModel: string): LedgerCall | undefined {
  if (record.protocol === PROTOCOLS.assistant) {
    return { seq: record.seq, kind: "agent", model: runModel, usage: turnUsage(record.assistant) };
  }
  // A compaction that only trims made no call.
  if (record.protocol === PROTOCOLS.compaction && record.compaction.summary !== "") {
    const { in_tokens: inTokens, out_tokens: outTokens, model } = record.compaction;
    return { seq: record.seq, kind: "compaction", model, usage: { calls: 1, inTokens, outTokens, cacheReadTokens: 0, cacheWriteTokens: 0 } };
  }
  return undefined;
}

/**
 * Advances `digest` in place by one record of `lineBytes` bytes, the next line of the run;
 * `runModel` is the model of the run's meta. The record goes through `fold` too: the first
 * that does not fold is the digest's problem, and the fold stops there (what it would say
 * after a broken rule means nothing), while bytes and tokens go on being counted.
 */
export function digestStep(digest: RunDigest, fold: DigestFold, record: JournalRecord, lineBytes: number, runModel: string): void {
  digest.bytes += lineBytes;
  fold.lines += 1;
  if (digest.problem === undefined) {
    try {
      fold.state = outlineStep(fold.state, record);
    } catch (error) {
      if (!isRunStateError(error)) throw error;
      digest.problem = `line ${fold.lines}: ${error.message}`;
      fold.state = undefined;
    }
  }
  countStep(digest, record, runModel);
}

/** What a record adds to a digest besides its bytes and the check: status, title, origin, calls. */
function countStep(digest: RunDigest, record: JournalRecord, runModel: string): void {
  const kind = kindOfProtocol(record.protocol);
  if (kind === undefined) return;
  if (record.protocol === PROTOCOLS.moved) digest.status = "moved";
  else if (!ANNOTATION_KINDS.includes(kind)) digest.status = record.protocol === PROTOCOLS.terminal ? record.terminal.reason : "open";
  if (record.protocol === PROTOCOLS.title) digest.title = record.title.title;
  if (record.protocol === PROTOCOLS.imported) digest.imported = record.imported;
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
  return checkedDigestOf(records, bytes).digest;
}

/** A digest with the checking fold that has read the same records: what a writer advances. */
export interface CheckedDigest {
  digest: RunDigest;
  fold: DigestFold;
}

/** digestOf, with the checking fold it leaves, for a writer that goes on appending. */
export function checkedDigestOf(records: readonly JournalRecord[], bytes: number): CheckedDigest {
  const digest = emptyDigest();
  const fold = emptyDigestFold();
  const first = records[0];
  const model = first?.protocol === PROTOCOLS.meta ? first.meta.fingerprint.model : "";
  for (const record of records) digestStep(digest, fold, record, 0, model);
  digest.bytes = bytes;
  return { digest, fold };
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
 * or from where an earlier call's complete lines ended, with the same `fold`). `model` is
 * the run's model, when known; reading from the start, the meta line says it. A line that
 * is not a record adds its bytes, and is the digest's problem unless an earlier line was.
 */
export function digestLines(digest: RunDigest, fold: DigestFold, bytes: Buffer, model: string | undefined): DigestedLines {
  let first: Buffer | undefined;
  let last: Buffer | undefined;
  let start = 0;
  for (let end = bytes.indexOf(NEWLINE); end >= 0; start = end + 1, end = bytes.indexOf(NEWLINE, start)) {
    const line = bytes.subarray(start, end);
    first ??= line;
    last = line;
    const parsed = parseRecordLine(line);
    if (!parsed.ok) {
      digest.bytes += line.length + 1;
      fold.lines += 1;
      digest.problem ??= `line ${fold.lines} ${parsed.problem}`;
      continue;
    }
    const record = parsed.record;
    if (model === undefined && record.protocol === PROTOCOLS.meta) model = record.meta.fingerprint.model;
    digestStep(digest, fold, record, line.length + 1, model ?? "");
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
  for (const record of tail.reverse()) countStep(digest, record, "");
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
