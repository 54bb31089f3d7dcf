// A journal file's complete lines read forward a chunk at a time, for readers that take
// records as they need them: what is held is one chunk and one line, never the file.
import { MAX_READ_LINE_BYTES, overlongLineError } from "../../runstate/records/journal-codec.js";
import type { FileSystem, SyncReads } from "./file-system.js";

const CHUNK = 1024 * 1024;
/** A reader's first read: a follower's look mostly finds a record or none, so reads grow to CHUNK only while they come back full. */
const FIRST_CHUNK = 16 * 1024;
const NEWLINE = 0x0a;

/** One complete line, without its newline, and the offset just past that newline. */
interface JournalLine {
  line: Buffer;
  end: number;
}

/**
 * The complete lines of the file at `fd` from byte `start`, where line `startLine` begins, in order.
 * Bytes after the last newline (a torn tail, or a line still being written) are left out;
 * a line past the read limit is ERR_CORRUPT once that much of it is read.
 * Each line is its own copy or a slice of a chunk no later read reuses.
 */
export async function* journalLines(fs: FileSystem, fd: number, start: number, startLine: number): AsyncGenerator<JournalLine> {
  let position = start;
  let line = startLine;
  let partial: Buffer[] = [];
  let partialLength = 0;
  for (let size = FIRST_CHUNK; ; size = Math.min(size * 4, CHUNK)) {
    const chunk = Buffer.allocUnsafe(size);
    const read = await fs.read(fd, chunk, 0, size, position);
    if (read === 0) return;
    let from = 0;
    for (let newline = chunk.indexOf(NEWLINE, 0); newline !== -1 && newline < read; newline = chunk.indexOf(NEWLINE, from)) {
      const piece = chunk.subarray(from, newline);
      const bytes = partial.length === 0 ? piece : Buffer.concat([...partial, piece]);
      [partial, partialLength] = [[], 0];
      from = newline + 1;
      line++;
      yield { line: bytes, end: position + from };
    }
    if (from < read) {
      partial.push(chunk.subarray(from, read));
      partialLength += read - from;
      if (partialLength > MAX_READ_LINE_BYTES) throw overlongLineError(`line ${line}`, line);
    }
    position += read;
  }
}

/**
 * The offset of the start of line `lineNumber` (1-based) of the file at `fd`, counting
 * newlines from `start`, where line `startLine` begins; undefined when the file holds
 * fewer complete lines. Nothing is decoded: only newlines are looked for.
 */
export async function lineOffset(fs: FileSystem, fd: number, start: number, startLine: number, lineNumber: number): Promise<number | undefined> {
  let position = start;
  let line = startLine;
  let chunk = Buffer.allocUnsafe(FIRST_CHUNK);
  while (line < lineNumber) {
    const read = await fs.read(fd, chunk, 0, chunk.length, position);
    if (read === 0) return undefined;
    let from = 0;
    for (;;) {
      const newline = chunk.indexOf(NEWLINE, from);
      if (newline === -1 || newline >= read) break;
      from = newline + 1;
      line++;
      if (line === lineNumber) return position + from;
    }
    position += read;
    if (read === chunk.length && chunk.length < CHUNK) chunk = Buffer.allocUnsafe(Math.min(chunk.length * 4, CHUNK));
  }
  return position;
}

/**
 * The bytes of `fd` from `from` (a line's start) to `size`, synchronously, in windows of
 * whole lines read into `scratch.buffer`: a window is what fits of the lines, or one line
 * longer than the buffer, which grows for it up to the read limit (and stays grown for the
 * caller's next file; past the limit the line is ERR_CORRUPT). Only the last window may
 * end inside a line (a torn tail). A window is valid until the next is asked for.
 */
export function* lineWindows(fs: SyncReads, fd: number, from: number, size: number, scratch: { buffer: Buffer }): Generator<Buffer> {
  // `carried`: the start of a line the last window cut, moved to the buffer's start.
  for (let offset = from, carried = 0; offset < size; ) {
    let { buffer } = scratch;
    if (carried === buffer.length) {
      if (carried > MAX_READ_LINE_BYTES) throw overlongLineError(`the line at byte ${offset - carried}`);
      const more = Math.min(Math.max(buffer.length, CHUNK), MAX_READ_LINE_BYTES + 1 - carried);
      buffer = scratch.buffer = Buffer.concat([buffer, Buffer.allocUnsafe(more)]);
    }
    const read = fs.read(fd, buffer, carried, Math.min(buffer.length - carried, size - offset), offset);
    if (read === 0) return;
    offset += read;
    const filled = carried + read;
    const whole = offset >= size ? filled : buffer.lastIndexOf(NEWLINE, filled - 1) + 1;
    carried = filled - whole;
    if (whole > 0) yield buffer.subarray(0, whole);
    buffer.copy(buffer, 0, whole, filled);
  }
}
