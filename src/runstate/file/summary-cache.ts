// A cache of what list() read from each journal, so that listing thousands of sessions
// costs one stat a session instead of two reads and two record checks. It is derived,
// never a source of truth: an entry is used only while its journal has the size, mtime
// and inode it had when it was summarized; a missing, unreadable or foreign cache is an
// empty one; and deleting the file costs one slower listing, which writes it again.
import { constants } from "node:fs";
import type { RunSummary } from "../store.js";
import { errnoCode, readFullySync, writeFully, type FileStat, type FileSystem } from "./file-system.js";

/** Not a run id (the dot), and not `.json` or `.lock`: nothing else in the directory takes it for a run. */
export const SUMMARY_CACHE_NAME = ".summaries";
/** Changed whenever what an entry holds changes, so an older cache is simply not read. */
const FORMAT = 1;
const FILE_MODE = 0o600;
const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = constants;

/** What identifies the bytes a summary was read from: a journal only grows, and a new one is a new inode. */
type JournalKey = Pick<FileStat, "size" | "mtimeMs" | "ino">;
/** One entry on disk: [run id, size, mtimeMs, ino, the journal's summary without a holder]. */
type Entry = [string, number, number, number, RunSummary];

let temporaries = 0;

export class SummaryCache {
  readonly #read: Map<string, Entry>;
  readonly #kept: Entry[] = [];
  #changed = false;

  private constructor(entries: Map<string, Entry>) {
    this.#read = entries;
  }

  /** The cache at `path`, or an empty one when there is none or it cannot be used. */
  static read(fs: FileSystem, path: string): SummaryCache {
    let fd: number;
    try {
      fd = fs.sync.open(path, O_RDONLY | O_NOFOLLOW);
    } catch {
      return new SummaryCache(new Map());
    }
    try {
      const bytes = Buffer.allocUnsafe(fs.sync.fstat(fd).size);
      readFullySync(fs.sync, fd, bytes, 0);
      return new SummaryCache(entriesOf(JSON.parse(bytes.toString("utf8"))));
    } catch {
      return new SummaryCache(new Map());
    } finally {
      fs.sync.close(fd);
    }
  }

  /** Whether there is an entry for `runId` to check: without one, a stat of its journal is wasted. */
  has(runId: string): boolean {
    return this.#read.has(runId);
  }

  /** The cached summary of `runId`, when its journal is still the one it was read from. */
  get(runId: string, key: JournalKey): RunSummary | undefined {
    const entry = this.#read.get(runId);
    if (entry === undefined || entry[1] !== key.size || entry[2] !== key.mtimeMs || entry[3] !== key.ino) return undefined;
    this.#kept.push(entry);
    return entry[4];
  }

  /** A summary just read from the journal with that key. A corrupt one is not kept: the problem may pass. */
  set(runId: string, key: JournalKey, summary: RunSummary): void {
    this.#changed = true;
    if (summary.status !== "corrupt") this.#kept.push([runId, key.size, key.mtimeMs, key.ino, summary]);
  }

  /**
   * Writes the entries this listing used, when they differ from those read: whole, by
   * rename, so a reader sees the old cache or the new. Not synced, and any failure (a
   * read-only directory, a full disk) only leaves the old cache, which is checked anyway.
   */
  async write(fs: FileSystem, path: string): Promise<void> {
    if (!this.#changed && this.#kept.length === this.#read.size) return;
    const temporary = `${path}.${process.pid}.${++temporaries}.tmp`;
    let fd: number | undefined;
    try {
      fd = await fs.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, FILE_MODE);
      await writeFully(fs, fd, Buffer.from(JSON.stringify({ format: FORMAT, entries: this.#kept })));
      await fs.close(fd);
      fd = undefined;
      await fs.rename(temporary, path);
    } catch (error) {
      if (fd !== undefined) await fs.close(fd).catch(() => undefined);
      if (errnoCode(error) !== "EEXIST") await fs.unlink(temporary).catch(() => undefined);
    }
  }
}

function entriesOf(value: unknown): Map<string, Entry> {
  const entries = new Map<string, Entry>();
  if (typeof value !== "object" || value === null || !("format" in value) || value.format !== FORMAT || !("entries" in value)) return entries;
  if (!Array.isArray(value.entries)) return entries;
  for (const entry of value.entries as unknown[]) {
    if (isEntry(entry)) entries.set(entry[0], entry);
  }
  return entries;
}

/** The shape only: the file is ours, in a 0700 directory; a stray entry is still checked against its journal's key. */
function isEntry(value: unknown): value is Entry {
  return (
    Array.isArray(value) &&
    value.length === 5 &&
    typeof value[0] === "string" &&
    typeof value[1] === "number" &&
    typeof value[2] === "number" &&
    typeof value[3] === "number" &&
    typeof value[4] === "object" &&
    value[4] !== null &&
    (value[4] as { runId?: unknown }).runId === value[0]
  );
}
