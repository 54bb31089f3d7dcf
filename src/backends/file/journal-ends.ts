// Reads the first line and the last complete line of a journal file without reading
// what lies between, so listing thousands of long sessions stays fast.
import { MAX_READ_LINE_BYTES, overlongLineError } from "../../runstate/records/journal-codec.js";
import { readFullySync, type SyncReads } from "./file-system.js";

const CHUNK = 4096;
const NEWLINE = 0x0a;

export interface JournalEnds {
  /** The first line, without its newline; undefined when no line is complete yet. */
  first: Buffer | undefined;
  /** The last complete line; the same as `first` for a one-record journal. */
  last: Buffer | undefined;
}

export function readJournalEnds(fs: SyncReads, fd: number, size: number): JournalEnds {
  const first = readFirstLine(fs, fd, size);
  if (first === undefined) return { first: undefined, last: undefined };
  const last = readLastLineAfter(fs, fd, size, first.length + 1);
  return { first, last: last ?? first };
}

function readFirstLine(fs: SyncReads, fd: number, size: number): Buffer | undefined {
  let head = Buffer.allocUnsafe(0);
  while (head.length < size) {
    if (head.length > MAX_READ_LINE_BYTES) throw overlongLineError("line 1", 1);
    const chunk = Buffer.allocUnsafe(Math.min(Math.max(CHUNK, head.length), size - head.length, MAX_READ_LINE_BYTES + 1 - head.length));
    readFullySync(fs, fd, chunk, head.length);
    const newline = chunk.indexOf(NEWLINE);
    if (newline >= 0) return Buffer.concat([head, chunk.subarray(0, newline)]);
    head = Buffer.concat([head, chunk]);
  }
  return undefined;
}

/** The last complete line that starts at or after `floor` (the end of the first line), or undefined when the first line is the only complete one. */
function readLastLineAfter(fs: SyncReads, fd: number, size: number, floor: number): Buffer | undefined {
  return completeLinesBackward(fs, fd, size, floor).next().value ?? undefined;
}

/**
 * The complete lines that start at or after `floor`, last first. Scans back from the end,
 * growing its window, so a torn tail or a long record costs only its own bytes (up to the
 * read limit: past it, ERR_CORRUPT), and a caller that stops early reads no more of the
 * file than the lines it took.
 */
export function* completeLinesBackward(fs: SyncReads, fd: number, size: number, floor: number): Generator<Buffer, undefined> {
  let window = Buffer.allocUnsafe(0);
  let windowStart = size;
  /** Where in `window` the next line to hand out ends (its newline); undefined until the last newline is found. */
  let end: number | undefined;
  for (;;) {
    if (end === undefined) {
      const newline = window.lastIndexOf(NEWLINE);
      if (newline >= 0) end = newline;
    }
    if (end !== undefined) {
      const start = end > 0 ? window.lastIndexOf(NEWLINE, end - 1) : -1;
      if (start >= 0) {
        yield window.subarray(start + 1, end);
        window = window.subarray(0, start + 1);
        end = start;
        continue;
      }
      if (windowStart <= floor) {
        yield window.subarray(0, end);
        return undefined;
      }
    } else if (windowStart <= floor) {
      return undefined;
    }
    // What is held of the line looked for (or of a torn tail, before the last newline is found).
    const held = end ?? window.length;
    if (held > MAX_READ_LINE_BYTES) throw overlongLineError(`the line that ends at byte ${windowStart + held}`);
    const from = Math.max(floor, windowStart - Math.min(Math.max(CHUNK, window.length), MAX_READ_LINE_BYTES + 1 - held));
    const chunk = Buffer.allocUnsafe(windowStart - from);
    readFullySync(fs, fd, chunk, from);
    window = Buffer.concat([chunk, window]);
    if (end !== undefined) end += chunk.length;
    windowStart = from;
  }
}
