// The few file-system calls the file backend makes, behind one interface so tests
// can count fsyncs and bytes read and inject faults without touching the real code path.
import * as fs from "node:fs";
import { constants } from "node:fs";
import { dirname } from "node:path";
import { packageFile } from "../../package/package-files.js";
import { promisify } from "node:util";
import { RunStateError } from "../../runstate/errors.js";

export interface FileStat {
  size: number;
  mode: number;
  ino: number;
  mtime: Date;
  mtimeMs: number;
  isFile(): boolean;
  isDirectory(): boolean;
}

/**
 * The reads of list(): synchronous, because a listing of thousands of journals is
 * thousands of tiny reads, and a hop through the thread pool for each costs more
 * than the read. list() runs them in slices and yields between slices.
 */
export interface SyncReads {
  open(path: string, flags: number): number;
  fstat(fd: number): FileStat;
  read(fd: number, into: Uint8Array, offset: number, length: number, position: number): number;
  close(fd: number): void;
  lstat(path: string): FileStat;
}

export interface FileSystem {
  open(path: string, flags: number, mode?: number): Promise<number>;
  close(fd: number): Promise<void>;
  /** Writes at the given position, or at the end for a file opened O_APPEND (position null). */
  write(fd: number, data: Uint8Array, position: number | null): Promise<number>;
  read(fd: number, into: Uint8Array, offset: number, length: number, position: number): Promise<number>;
  fsync(fd: number): Promise<void>;
  fdatasync(fd: number): Promise<void>;
  fstat(fd: number): Promise<FileStat>;
  ftruncate(fd: number, length: number): Promise<void>;
  fchmod(fd: number, mode: number): Promise<void>;
  lstat(path: string): Promise<FileStat>;
  mkdir(path: string, mode: number): Promise<void>;
  rmdir(path: string): Promise<void>;
  chmod(path: string, mode: number): Promise<void>;
  readdir(path: string): Promise<string[]>;
  link(existing: string, created: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  /** Takes an exclusive advisory lock without blocking; fails EAGAIN/EWOULDBLOCK when held. */
  lockExclusive(fd: number): Promise<void>;
  readonly sync: SyncReads;
}

// The flock addon loads with the first lock taken: a listing takes none.
let flock: ((fd: number, flags: "exnb") => Promise<void>) | undefined;

export const nodeFileSystem: FileSystem = {
  open: promisify(fs.open) as (path: string, flags: number, mode?: number) => Promise<number>,
  close: promisify(fs.close),
  write: (fd, data, position) =>
    new Promise((resolve, reject) => fs.write(fd, data, 0, data.length, position, (error, written) => (error ? reject(error) : resolve(written)))),
  read: (fd, into, offset, length, position) =>
    new Promise((resolve, reject) => fs.read(fd, into, offset, length, position, (error, bytesRead) => (error ? reject(error) : resolve(bytesRead)))),
  fsync: promisify(fs.fsync),
  fdatasync: promisify(fs.fdatasync),
  fstat: promisify(fs.fstat),
  ftruncate: promisify(fs.ftruncate),
  fchmod: promisify(fs.fchmod),
  lstat: promisify(fs.lstat),
  mkdir: async (path, mode) => {
    await fs.promises.mkdir(path, { recursive: true, mode });
  },
  rmdir: (path) => fs.promises.rmdir(path),
  chmod: promisify(fs.chmod),
  readdir: (path) => fs.promises.readdir(path),
  link: promisify(fs.link),
  rename: promisify(fs.rename),
  unlink: promisify(fs.unlink),
  lockExclusive: async (fd) => {
    flock ??= promisify((await loadFsExt()).flock);
    await flock(fd, "exnb");
  },
  sync: {
    open: (path, flags) => fs.openSync(path, flags),
    fstat: (fd) => fs.fstatSync(fd),
    read: (fd, into, offset, length, position) => fs.readSync(fd, into, offset, length, position),
    close: (fd) => fs.closeSync(fd),
    lstat: (path) => fs.lstatSync(path),
  },
};

/** The flock addon, or one line naming the command that builds it when it was never built. */
async function loadFsExt(): Promise<typeof import("fs-ext")> {
  try {
    return (await import("fs-ext")).default;
  } catch (error) {
    const packageDir = dirname(packageFile("package.json"));
    throw new RunStateError(
      "ERR_IO",
      `the file lock addon (fs-ext) is missing or not built for Node.js ${process.versions.node}: run 'npm rebuild fs-ext' in ${packageDir} (it needs python3, make and g++)`,
      { cause: error },
    );
  }
}

export function errnoCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined;
}

export function readFullySync(fs: SyncReads, fd: number, into: Uint8Array, position: number): void {
  for (let done = 0; done < into.length; ) {
    const read = fs.read(fd, into, done, into.length - done, position + done);
    if (read === 0) throw new Error(`unexpected end of file at byte ${position + done}`);
    done += read;
  }
}

/** Writes all of `data`: a write may take fewer bytes than it was given (a full disk, a size limit). */
export async function writeFully(fs: FileSystem, fd: number, data: Uint8Array): Promise<void> {
  for (let written = 0; written < data.length; ) {
    written += await fs.write(fd, data.subarray(written), null);
  }
}

/** Syncs a directory, so the names made, linked or removed in it survive a power cut. */
export async function syncDirectory(fs: FileSystem, dir: string): Promise<void> {
  const fd = await fs.open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    await fs.fsync(fd);
  } finally {
    await fs.close(fd);
  }
}

/**
 * Makes `dir` and any missing level above it, and syncs each level it made into its
 * parent, deepest first (a level's name is durable before its parent's is synced): a
 * power cut must not take away a new directory, and what was written in it, after its
 * maker returned.
 */
export async function makeDirectoryDurably(fs: FileSystem, dir: string, mode: number): Promise<void> {
  const missing: string[] = [];
  for (let level = dir; dirname(level) !== level; level = dirname(level)) {
    try {
      await fs.lstat(level);
      break;
    } catch (error) {
      if (errnoCode(error) !== "ENOENT") throw error;
      missing.push(level);
    }
  }
  await fs.mkdir(dir, mode);
  for (const level of missing) await syncDirectory(fs, dirname(level));
}

/** The whole of a small file (a queue entry), not following a symlink. */
export async function readWholeFile(fs: FileSystem, path: string): Promise<Buffer> {
  const fd = await fs.open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const bytes = Buffer.allocUnsafe((await fs.fstat(fd)).size);
    let done = 0;
    for (let read = -1; done < bytes.length && read !== 0; done += read) read = await fs.read(fd, bytes, done, bytes.length - done, done);
    return bytes.subarray(0, done);
  } finally {
    await fs.close(fd);
  }
}
