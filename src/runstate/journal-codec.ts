// The journal's byte format: one JSON record per line, each ending in "\n". Shared by
// every backend that stores records as bytes, so a record moves between them unchanged.
import { RunStateError } from "./errors.js";
import { newerVersionProblem } from "./fold.js";
import { checkRecord, PROTOCOLS, type JournalRecord } from "./records.js";

const NEWLINE = 0x0a;

export function encodeRecord(record: JournalRecord): string {
  return `${JSON.stringify(record)}\n`;
}

export type LineParse =
  | { ok: true; record: JournalRecord }
  | { ok: false; kind: "invalid_json" | "invalid_record" | "newer_version"; problem: string };

/** Parses and validates one line, saying what is wrong with it when it is not a record. */
export function parseRecordLine(text: string): LineParse {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, kind: "invalid_json", problem: "is not valid JSON" };
  }
  // Asked before the schema: a newer version may add fields this one would call unknown.
  const meta = (value as { protocol?: unknown; meta?: unknown } | null)?.protocol === PROTOCOLS.meta ? (value as { meta: unknown }).meta : undefined;
  const newer = typeof meta === "object" && meta !== null ? newerVersionProblem(meta) : undefined;
  if (newer !== undefined) return { ok: false, kind: "newer_version", problem: newer };
  const checked = checkRecord(value);
  return checked.ok ? checked : { ok: false, kind: "invalid_record", problem: `is not a valid record: ${checked.problem}` };
}

/** Parses and validates one line; its 1-based `lineNumber`, when known, goes into the error. */
export function decodeRecordLine(text: string, lineNumber?: number): JournalRecord {
  const parsed = parseRecordLine(text);
  if (parsed.ok) return parsed.record;
  if (parsed.kind === "newer_version") throw new RunStateError("ERR_VERSION", parsed.problem, { line: lineNumber, seq: 1 });
  const where = lineNumber === undefined ? "the last complete line" : `line ${lineNumber}`;
  throw new RunStateError("ERR_CORRUPT", `${where} ${parsed.problem}`, { line: lineNumber });
}

export interface DecodedJournal {
  records: JournalRecord[];
  /** Bytes up to and including the last newline: what survives a torn tail. */
  completeLength: number;
}

/** Bytes up to and including the last newline: what survives a torn tail. */
export function completeBytes(bytes: Uint8Array): number {
  return bytes.lastIndexOf(NEWLINE) + 1;
}

/**
 * Visits each complete line with its 1-based number and returns the bytes they span.
 * Line by line from the bytes: one string of the whole file would cap a journal at
 * V8's longest string (about 512 MiB), and a long run must stay resumable.
 */
export function forEachLine(bytes: Buffer, visit: (text: string, lineNumber: number) => void): number {
  const complete = completeBytes(bytes);
  for (let start = 0, lineNumber = 1; start < complete; lineNumber++) {
    const end = bytes.indexOf(NEWLINE, start);
    visit(bytes.toString("utf8", start, end), lineNumber);
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
  const records: JournalRecord[] = [];
  const completeLength = forEachLine(bytes, (text, lineNumber) => records.push(decodeRecordLine(text, lineNumber)));
  return { records, completeLength };
}
