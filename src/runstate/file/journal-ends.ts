// Reads the first line and the last complete line of a journal file without reading
// what lies between, so listing thousands of long sessions stays fast.
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
    const chunk = Buffer.allocUnsafe(Math.min(Math.max(CHUNK, head.length), size - head.length));
    readFullySync(fs, fd, chunk, head.length);
    const newline = chunk.indexOf(NEWLINE);
    if (newline >= 0) return Buffer.concat([head, chunk.subarray(0, newline)]);
    head = Buffer.concat([head, chunk]);
  }
  return undefined;
}

/**
 * The last complete line that starts at or after `floor` (the end of the first line),
 * or undefined when the first line is the only complete one. Scans back from the end,
 * growing its window, so a torn tail or a long last record costs only its own bytes.
 */
function readLastLineAfter(fs: SyncReads, fd: number, size: number, floor: number): Buffer | undefined {
  let window = Buffer.allocUnsafe(0);
  let windowStart = size;
  for (;;) {
    const end = window.lastIndexOf(NEWLINE);
    if (end >= 0) {
      const start = end > 0 ? window.lastIndexOf(NEWLINE, end - 1) : -1;
      if (start >= 0) return window.subarray(start + 1, end);
      if (windowStart <= floor) return window.subarray(0, end);
    } else if (windowStart <= floor) {
      return undefined;
    }
    const from = Math.max(floor, windowStart - Math.max(CHUNK, window.length));
    const chunk = Buffer.allocUnsafe(windowStart - from);
    readFullySync(fs, fd, chunk, from);
    window = Buffer.concat([chunk, window]);
    windowStart = from;
  }
}
