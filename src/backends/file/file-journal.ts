// An open journal file: the single writer of one run, holding its lock. Each batch of
// appends is one write and one fdatasync of their lines.
import type { JournalRecord } from "../../runstate/records/records.js";
import type { Journal } from "../../runstate/store/store.js";
import { JournalCore, type JournalWriter } from "../../runstate/store/journal-core.js";
import { writeFully, type FileSystem } from "./file-system.js";
import type { RunLock } from "./run-lock.js";

/**
 * The journal of `runId` open at `fd`, whose records so far are `records`. With
 * `groupCommit` off every append gets its own write and fsync, for comparison in the
 * benchmark. After a failed write the file's tail is unknown; a reopen's torn-tail
 * repair puts it back on a record boundary.
 */
export function fileJournal(fs: FileSystem, fd: number, lock: RunLock, runId: string, records: JournalRecord[], groupCommit: boolean): Journal {
  const writer: JournalWriter = {
    async write(batch) {
      await writeFully(fs, fd, Buffer.from(batch.map(({ line }) => line).join("")));
      await fs.fdatasync(fd);
    },
    async release() {
      try {
        await fs.close(fd);
      } finally {
        await lock.release();
      }
    },
  };
  return new JournalCore(runId, records, writer, { maxBatch: groupCommit ? Number.POSITIVE_INFINITY : 1 });
}
