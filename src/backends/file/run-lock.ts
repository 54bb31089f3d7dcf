// The per-run writer lock: a kernel advisory flock on `<id>.lock`, taken without
// blocking and held for the life of an open journal. The kernel drops it when the
// process dies, so a crash leaves no stale lock. The file's contents only say who
// holds it, for the ERR_LOCKED message and `session ls`; the flock alone decides. The
// file exists while a process holds the run, and after one that died holding it.
import { constants, existsSync, readFileSync } from "node:fs";
import { hostname } from "node:os";
import { RunStateError } from "../../runstate/errors.js";
import { thisProcess, type RunHolder } from "../../runstate/store/run-holder.js";
import { lockedError } from "../../runstate/store/store-contract.js";
import { errnoCode, type FileSystem } from "./file-system.js";

// Node opens every file O_CLOEXEC, so a tool process spawned by the run never inherits
// the lock and cannot keep holding it after the run dies.
const LOCK_FLAGS = constants.O_RDWR | constants.O_CREAT | constants.O_NOFOLLOW;
const FILE_MODE = 0o600;

export interface RunLock {
  release(): Promise<void>;
}

/**
 * A holder writes its note just after it takes the flock, so a process refused in that
 * instant finds the note empty, or still the note of a holder that died before it. It
 * looks again, this many times this far apart, before it names no one.
 */
const NOTE_POLLS = 100;
const NOTE_POLL_MS = 10;

export async function acquireRunLock(fs: FileSystem, path: string, runId: string): Promise<RunLock> {
  // A run deleted between our open and our flock leaves us holding an unlinked
  // inode; the inode check sends us round again onto the file now at the path.
  for (let attempt = 0, polls = 0; attempt < 5; attempt++) {
    const fd = await openLockFile(fs, path);
    try {
      await fs.lockExclusive(fd);
    } catch (error) {
      const code = errnoCode(error);
      if (code !== "EAGAIN" && code !== "EWOULDBLOCK") {
        await fs.close(fd);
        throw error;
      }
      const note = await readHolder(fs, fd);
      await fs.close(fd);
      const holder = note !== undefined && isAlive(note) ? note : undefined;
      if (holder === undefined && polls++ < NOTE_POLLS) {
        // Round again: the holder may have written its note, or gone and freed the run.
        attempt--;
        await new Promise((resolve) => setTimeout(resolve, NOTE_POLL_MS));
        continue;
      }
      throw lockedError(runId, holder);
    }
    if (await stillAtPath(fs, fd, path)) {
      const holder = Buffer.from(JSON.stringify(thisProcess()));
      await fs.ftruncate(fd, 0);
      await fs.write(fd, holder, 0);
      return {
        release: async () => {
          // Removed while still held, so the directory alone says which runs are held (list()
          // stats no lock file of a run closed cleanly); a process that opened it meanwhile
          // finds, by the inode check, that it is gone. The unlock is the close.
          try {
            await fs.unlink(path);
          } catch {
            // Already removed (a delete), or not ours to remove: at least name no holder.
            await fs.ftruncate(fd, 0).catch(() => undefined);
          } finally {
            await fs.close(fd);
          }
        },
      };
    }
    await fs.close(fd);
  }
  throw new RunStateError("ERR_LOCKED", `session ${runId} is being created and removed by another process: try again`);
}

async function openLockFile(fs: FileSystem, path: string): Promise<number> {
  try {
    const fd = await fs.open(path, LOCK_FLAGS, FILE_MODE);
    await fs.fchmod(fd, FILE_MODE);
    return fd;
  } catch (error) {
    throw refuseSymlink(error, path);
  }
}

async function stillAtPath(fs: FileSystem, fd: number, path: string): Promise<boolean> {
  const held = await fs.fstat(fd);
  try {
    return (await fs.lstat(path)).ino === held.ino;
  } catch (error) {
    if (errnoCode(error) === "ENOENT") return false;
    throw error;
  }
}

const HOLDER_NOTE_MAX = 1024;

async function readHolder(fs: FileSystem, fd: number): Promise<RunHolder | undefined> {
  const buffer = Buffer.alloc(HOLDER_NOTE_MAX);
  return parseHolder(buffer.subarray(0, await fs.read(fd, buffer, 0, buffer.length, 0)));
}

function parseHolder(note: Uint8Array): RunHolder | undefined {
  try {
    const value = JSON.parse(Buffer.from(note).toString("utf8")) as Partial<RunHolder>;
    if (typeof value.pid === "number" && typeof value.host === "string" && typeof value.started === "string") {
      return { pid: value.pid, host: value.host, started: value.started };
    }
  } catch {
    // Empty or half-written: the holder is between its flock and its note.
  }
  return undefined;
}

/**
 * Who seems to hold a run, read without locking (listing must never lock): the note a
 * holder leaves, if that process is still alive. A process killed outright leaves its
 * note behind, so on this host the pid is checked; a holder on another host (a shared
 * directory) cannot be checked from here and is taken at its word.
 */
export function peekLiveHolder(fs: FileSystem, path: string): RunHolder | undefined {
  let fd: number;
  try {
    fd = fs.sync.open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  let holder: RunHolder | undefined;
  try {
    // One read: the note is written in one write, far shorter than this, and an empty
    // file (a holder between its flock and its note) reads nothing and parses as none.
    // Three calls a locked run, where a listing of thousands of crashed runs spends its time.
    const note = Buffer.allocUnsafe(HOLDER_NOTE_MAX);
    holder = parseHolder(note.subarray(0, fs.sync.read(fd, note, 0, note.length, 0)));
  } finally {
    fs.sync.close(fd);
  }
  return holder !== undefined && isAlive(holder) ? holder : undefined;
}

/** How far the kernel's idea of a start time may be from the one the holder noted. */
const START_TIME_SLACK_MS = 5000;
/** USER_HZ: the unit of /proc's start times on every Linux that Node runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

/** Whether this host has /proc: then a pid without an entry there has no process. */
let hasProc: boolean | undefined;

function isAlive(holder: RunHolder): boolean {
  if (holder.host !== hostname()) return true;
  // Asked of /proc first where there is one: kill(pid, 0) answers a dead pid with an
  // exception, which costs more than the rest of listing that session.
  hasProc ??= existsSync("/proc/self");
  if (hasProc && !existsSync(`/proc/${holder.pid}`)) return false;
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    // EPERM: the process exists, it just is not ours to signal.
    if (errnoCode(error) !== "EPERM") return false;
  }
  // A pid is reused once its process is gone: the start time tells whose it is now.
  const started = processStartMs(holder.pid);
  return started === undefined || Math.abs(started - Date.parse(holder.started)) <= START_TIME_SLACK_MS;
}

/** When a process of this host started, from /proc; undefined where there is no /proc. */
function processStartMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the parenthesized command name start at field 3; the start time is field 22.
    const startTicks = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]);
    const bootSeconds = Number(/^btime (\d+)$/m.exec(readFileSync("/proc/stat", "utf8"))?.[1]);
    const started = (bootSeconds + startTicks / CLOCK_TICKS_PER_SECOND) * 1000;
    return Number.isFinite(started) ? started : undefined;
  } catch {
    return undefined;
  }
}

/** ELOOP from O_NOFOLLOW means a symlink sits where a run's file should be. */
export function refuseSymlink(error: unknown, path: string): unknown {
  if (errnoCode(error) === "ELOOP") {
    return new RunStateError("ERR_SYMLINK", `refusing to follow the symlink at ${path}: remove it, fisk-ai only uses its own files`);
  }
  return error;
}
