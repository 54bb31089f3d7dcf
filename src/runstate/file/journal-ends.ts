// Reads the first line and the last complete line of a journal file without reading
// what lies between, so listing thousands of long sessions stays fast.
import type { FileSystem } from "./file-system.js";

const CHUNK = 4096;
const NEWLINE = 0x0a;

export interface JournalEnds {
  /** The first line, without its newline; undefined when no line is complete yet. */
  first: string | undefined;
  /** The last complete line; the same as `first` for a one-record journal. */
  last: string | undefined;
}

export async function readJournalEnds(fs: FileSystem, fd: number, size: number): Promise<JournalEnds> {
  const first = await readFirstLine(fs, fd, size);
  if (first === undefined) return { first: undefined, last: undefined };
  const last = await readLastLineAfter(fs, fd, size, Buffer.byteLength(first) + 1);
  return { first, last: last ?? first };
}

async function readFirstLine(fs: FileSystem, fd: number, size: number): Promise<string | undefined> {
  let head = Buffer.alloc(0);
  while (head.length < size) {
    const chunk = Buffer.alloc(Math.min(Math.max(CHUNK, head.length), size - head.length));
    await readFully(fs, fd, chunk, head.length);
    const newline = chunk.indexOf(NEWLINE);
    if (newline >= 0) return Buffer.concat([head, chunk.subarray(0, newline)]).toString("utf8");
    head = Buffer.concat([head, chunk]);
  }
  return undefined;
}

/**
 * The last complete line that starts at or after `floor` (the end of the first line),
 * or undefined when the first line is the only complete one. Scans back from the end,
 * growing its window, so a torn tail or a long last record costs only its own bytes.
 */
async function readLastLineAfter(fs: FileSystem, fd: number, size: number, floor: number): Promise<string | undefined> {
  let window = Buffer.alloc(0);
  let windowStart = size;
  for (;;) {
    const end = window.lastIndexOf(NEWLINE);
    if (end >= 0) {
      const start = end > 0 ? window.lastIndexOf(NEWLINE, end - 1) : -1;
      if (start >= 0) return window.toString("utf8", start + 1, end);
      if (windowStart <= floor) return window.toString("utf8", 0, end);
    } else if (windowStart <= floor) {
      return undefined;
    }
    const from = Math.max(floor, windowStart - Math.max(CHUNK, window.length));
    const chunk = Buffer.alloc(windowStart - from);
    await readFully(fs, fd, chunk, from);
    window = Buffer.concat([chunk, window]);
    windowStart = from;
  }
}

export async function readFully(fs: FileSystem, fd: number, into: Buffer, position: number): Promise<void> {
  let done = 0;
  while (done < into.length) {
    const read = await fs.read(fd, into, done, into.length - done, position + done);
    if (read === 0) throw new Error(`unexpected end of file at byte ${position + done}`);
    done += read;
  }
}
