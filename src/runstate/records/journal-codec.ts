// The journal's byte format: one JSON record per line, each ending in "\n". Shared by
// every backend that stores records as bytes, so a record moves between them unchanged.
import { isUtf8 } from "node:buffer";
import { RunStateError } from "../errors.js";
import { newerVersionProblem } from "../views/fold.js";
import { encodeV3Record, fromV3Record, heldByV3 } from "./record-v3.js";
import { checkRecord, newerKindProblem, PROTOCOLS, type JournalRecord } from "./records.js";

const NEWLINE = 0x0a;

/**
 * The deepest nesting a record may hold. Far beyond any real tool input, and far below
 * what the recursive code that later walks a record (hashing, rendering, the SDKs) survives:
 * a hostile journal is refused here as corrupt instead of overflowing the stack there.
 */
export const MAX_RECORD_DEPTH = 1000;

/**
 * The longest line an append may write (docs/backends.md): a record longer than this is
 * refused, not journaled. Far above a tool result held to its output limit, far below what
 * makes reading a journal back cost hundreds of megabytes.
 */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

/**
 * The longest line a reader takes, higher than MAX_LINE_BYTES so that journals written
 * before the limit keep working; a longer line is corrupt, and is not read whole to say so.
 */
export const MAX_READ_LINE_BYTES = 32 * 1024 * 1024;

/** "8 MiB": a limit as the messages name it. */
export function mebibytes(bytes: number): string {
  return `${bytes / (1024 * 1024)} MiB`;
}

/** Why a line of `bytes` is past the read limit. */
function overlongProblem(bytes: number): string {
  return `is ${bytes} bytes, past the limit of ${mebibytes(MAX_READ_LINE_BYTES)} a journal line may hold when read`;
}

/**
 * A line a reader found past the read limit before its end: corrupt, and none of the rest
 * of it is read. `where` is "line 3", or where the line is when its number is not known.
 */
export function overlongLineError(where: string, line?: number): RunStateError {
  return new RunStateError(
    "ERR_CORRUPT",
    `${where} is longer than ${mebibytes(MAX_READ_LINE_BYTES)}, the limit a journal line may hold when read`,
    line === undefined ? {} : { line },
  );
}

/** A record's line in a journal of record version 1 or 2. */
export function encodeRecord(record: JournalRecord): string {
  return `${JSON.stringify(record)}\n`;
}

/** A record's line in a journal of record version `version`: 3 is the Go implementation's neutral shape. */
export function encodeRecordIn(version: number, record: JournalRecord): string {
  return version === 3 ? encodeV3Record(record) : encodeRecord(record);
}

/** A record as a journal of record version `version` gives it back: what a writer should append to one. */
export function heldIn<R extends JournalRecord>(version: number, record: R): R {
  return version === 3 ? heldByV3(record) : record;
}

export type LineParse =
  | { ok: true; record: JournalRecord }
  | { ok: false; kind: "invalid_json" | "invalid_record"; problem: string }
  | { ok: false; kind: "newer_version"; problem: string; seq: number };

/**
 * Parses and validates one line, saying what is wrong with it when it is not a record.
 * Given bytes, it refuses invalid UTF-8 rather than decoding it lossily into a record
 * that would then be resumed and sent to the model.
 */
export function parseRecordLine(line: string | Uint8Array): LineParse {
  // A string's UTF-8 is at most three bytes a code unit: only a long one is measured.
  const bytes = typeof line !== "string" ? line.byteLength : line.length * 3 > MAX_READ_LINE_BYTES ? Buffer.byteLength(line) : line.length;
  if (bytes > MAX_READ_LINE_BYTES) return { ok: false, kind: "invalid_record", problem: overlongProblem(bytes) };
  if (typeof line !== "string" && !isUtf8(line)) return { ok: false, kind: "invalid_json", problem: "is not valid UTF-8" };
  let value: unknown;
  try {
    value = JSON.parse(typeof line === "string" ? line : Buffer.from(line.buffer, line.byteOffset, line.byteLength).toString("utf8"));
  } catch {
    return { ok: false, kind: "invalid_json", problem: "is not valid JSON" };
  }
  if (nestingDepthExceeds(value, MAX_RECORD_DEPTH)) {
    return { ok: false, kind: "invalid_record", problem: `is not a valid record: it nests deeper than ${MAX_RECORD_DEPTH} levels` };
  }
  // Asked before the schema: a newer version may add fields, and kinds, this one would call unknown.
  const newer = newerProblem(value);
  if (newer !== undefined) return { ok: false, kind: "newer_version", ...newer };
  const checked = checkRecord(fromV3Record(value));
  return checked.ok ? checked : { ok: false, kind: "invalid_record", problem: `is not a valid record: ${checked.problem}` };
}

/** Why a decoded line was written by a newer fisk-ai: a meta record of a newer version, or a record of a kind added since. */
function newerProblem(value: unknown): { problem: string; seq: number } | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { protocol, meta, seq } = value as { protocol?: unknown; meta?: unknown; seq?: unknown };
  if (protocol === PROTOCOLS.meta) {
    const problem = typeof meta === "object" && meta !== null ? newerVersionProblem(meta) : undefined;
    return problem === undefined ? undefined : { problem, seq: 1 };
  }
  const problem = newerKindProblem(protocol);
  if (problem === undefined || !Number.isInteger(seq)) return undefined;
  return { problem: `record seq ${String(seq)} is ${problem}`, seq: seq as number };
}

/** Walks with an explicit stack: the check must not itself overflow on what it guards against. */
function nestingDepthExceeds(value: unknown, limit: number): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (typeof item.value !== "object" || item.value === null) continue;
    const depth = item.depth + 1;
    if (depth > limit) return true;
    for (const child of Array.isArray(item.value) ? item.value : Object.values(item.value)) {
      if (typeof child === "object" && child !== null) stack.push({ value: child, depth });
    }
  }
  return false;
}

/** Parses and validates one line; its 1-based `lineNumber`, when known, goes into the error. */
export function decodeRecordLine(line: string | Uint8Array, lineNumber?: number): JournalRecord {
  const parsed = parseRecordLine(line);
  if (parsed.ok) return parsed.record;
  if (parsed.kind === "newer_version") throw new RunStateError("ERR_VERSION", parsed.problem, { line: lineNumber, seq: parsed.seq });
  const where = lineNumber === undefined ? "the last complete line" : `line ${lineNumber}`;
  throw new RunStateError("ERR_CORRUPT", `${where} ${parsed.problem}`, { line: lineNumber });
}

/** A decoded journal: its records, and how many of its bytes they came from. */
export interface DecodedJournal {
  /** The records of the complete lines, in journal order. */
  records: JournalRecord[];
  /** Bytes up to and including the last newline: what survives a torn tail. */
  completeLength: number;
}

/** Bytes up to and including the last newline: what survives a torn tail. */
export function completeBytes(bytes: Uint8Array): number {
  return bytes.lastIndexOf(NEWLINE) + 1;
}

/** The offset just past the newline that ends line `line` (1-based): the bytes of the first `line` records. */
export function lineEnd(bytes: Uint8Array, line: number): number {
  let end = -1;
  for (let index = 0; index < line; index++) end = bytes.indexOf(NEWLINE, end + 1);
  return end + 1;
}

/**
 * Visits each complete line with its 1-based number and returns the bytes they span.
 * Line by line from the bytes: one string of the whole file would cap a journal at
 * V8's longest string (about 512 MiB), and a long run must stay resumable.
 */
export function forEachLine(bytes: Buffer, visit: (line: Buffer, lineNumber: number) => void): number {
  const complete = completeBytes(bytes);
  for (let start = 0, lineNumber = 1; start < complete; lineNumber++) {
    const end = bytes.indexOf(NEWLINE, start);
    visit(bytes.subarray(start, end), lineNumber);
    start = end + 1;
  }
  return complete;
}

/**
 * Decodes a whole journal. Bytes after the last newline are a torn final write and
 * are left out (an append resolves only after its newline is durable, so nobody was
 * told they were written); anything wrong before that is ERR_CORRUPT with its line.
 */
export function decodeJournal(bytes: Buffer): DecodedJournal {
  const decoder = new JournalDecoder();
  decoder.push(bytes);
  return decoder.decoded();
}

/**
 * Splits a journal's bytes into its complete lines as they arrive, chunk by chunk, handing
 * each to `visit` with its 1-based number: a reader that streams a large journal through it
 * holds one chunk and one line, never all its bytes. A line past the read limit is
 * ERR_CORRUPT, naming it, once that much of it has come, without taking the rest.
 */
export class JournalLines {
  readonly #visit: (line: Buffer, lineNumber: number) => void;
  #lines = 0;
  #completeLength = 0;
  /** The bytes after the last newline so far, as they came: the start of a line, or a torn tail. */
  #partial: Buffer[] = [];
  #partialLength = 0;

  constructor(visit: (line: Buffer, lineNumber: number) => void) {
    this.#visit = visit;
  }

  /** The complete lines so far. */
  get lines(): number {
    return this.#lines;
  }

  /** Bytes up to and including the last newline so far: what survives a torn tail. */
  get completeLength(): number {
    return this.#completeLength;
  }

  /** Bytes after the last newline so far: a torn tail, when no more come. */
  get tailLength(): number {
    return this.#partialLength;
  }

  /** Visits the complete lines `chunk` finishes; the chunk may be reused once this returns. */
  push(chunk: Uint8Array): void {
    let rest = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (this.#partialLength > 0) {
      // Only the line begun in an earlier chunk is put together: the chunk itself is read in place.
      const newline = rest.indexOf(NEWLINE);
      if (newline === -1) {
        this.#keep(rest);
        return;
      }
      this.#visit(Buffer.concat([...this.#partial, rest.subarray(0, newline)]), ++this.#lines);
      this.#completeLength += this.#partialLength + newline + 1;
      this.#partial = [];
      this.#partialLength = 0;
      rest = rest.subarray(newline + 1);
    }
    const complete = forEachLine(rest, (line) => this.#visit(line, ++this.#lines));
    this.#completeLength += complete;
    if (complete < rest.length) this.#keep(rest.subarray(complete));
  }

  /** A copy: the caller may reuse the chunk. A line already past the read limit is corrupt without reading the rest of it. */
  #keep(bytes: Buffer): void {
    this.#partialLength += bytes.length;
    if (this.#partialLength > MAX_READ_LINE_BYTES) {
      const line = this.#lines + 1;
      throw overlongLineError(`line ${line}`, line);
    }
    this.#partial.push(Buffer.from(bytes));
  }
}

/**
 * Decodes a journal as its bytes arrive, chunk by chunk, as decodeJournal does the whole:
 * a reader that streams a large journal through it holds its records, never all its bytes.
 */
export class JournalDecoder {
  readonly #records: JournalRecord[] = [];
  readonly #lines = new JournalLines((line, lineNumber) => this.#records.push(decodeRecordLine(line, lineNumber)));

  /** Decodes the complete lines `chunk` finishes; it may be reused once this returns. */
  push(chunk: Buffer): void {
    this.#lines.push(chunk);
  }

  /**
   * The records of the complete lines pushed so far. A torn tail after the last newline is
   * not among them. The array is the decoder's own: push no more once it is taken.
   */
  decoded(): DecodedJournal {
    return { records: this.#records, completeLength: this.#lines.completeLength };
  }
}
