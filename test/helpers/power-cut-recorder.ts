// A FileSystem that passes every call to the real one and records, in order, each call that
// changes what a power cut could leave on disk: writes (with their bytes and where they
// landed), syncs, new names, links, renames, unlinks, directories made and removed,
// truncations. Each op names the directory it changes (a file's data: the file's own
// directory). power-cut-states.ts replays the list.
import { constants } from "node:fs";
import { basename, dirname } from "node:path";
import { nodeFileSystem, type FileSystem } from "../../src/backends/file/file-system.js";

export type FsOp =
  | { kind: "write"; dir: string; path: string; ino: number; position: number; bytes: Buffer }
  | { kind: "truncate"; dir: string; path: string; ino: number; length: number }
  | { kind: "fsync"; dir: string; path: string; ino: number }
  | { kind: "dirsync"; dir: string }
  | { kind: "create"; dir: string; name: string; ino: number }
  | { kind: "link"; dir: string; name: string; ino: number }
  | { kind: "unlink"; dir: string; name: string }
  | { kind: "rename"; dir: string; from: string; to: string }
  | { kind: "mkdir"; dir: string; name: string }
  | { kind: "rmdir"; dir: string; name: string };

export interface RecordingFileSystem extends FileSystem {
  readonly ops: FsOp[];
}

interface OpenFile {
  path: string;
  ino: number;
  isDir: boolean;
  append: boolean;
  /** Where a write at no position lands in a file not opened O_APPEND. */
  cursor: number;
}

/** Wraps `inner`; the ops of every path, under `root` or not, are recorded (a scenario writes only under its root). */
export function recordingFileSystem(inner: FileSystem = nodeFileSystem): RecordingFileSystem {
  const ops: FsOp[] = [];
  const open = new Map<number, OpenFile>();
  const fileOf = (fd: number): OpenFile => {
    const file = open.get(fd);
    if (file === undefined) throw new Error(`power-cut recorder: fd ${fd} was not opened through it`);
    return file;
  };
  const exists = (path: string) =>
    inner.lstat(path).then(
      () => true,
      () => false,
    );
  const sync = async (fd: number, real: (fd: number) => Promise<void>) => {
    await real(fd);
    const file = fileOf(fd);
    ops.push(file.isDir ? { kind: "dirsync", dir: file.path } : { kind: "fsync", dir: dirname(file.path), path: file.path, ino: file.ino });
  };
  return {
    ...inner,
    ops,
    async open(path, flags, mode) {
      const existed = (flags & constants.O_CREAT) !== 0 ? await exists(path) : true;
      const fd = await inner.open(path, flags, mode);
      const stat = await inner.fstat(fd);
      open.set(fd, { path, ino: stat.ino, isDir: stat.isDirectory(), append: (flags & constants.O_APPEND) !== 0, cursor: 0 });
      if (!existed) ops.push({ kind: "create", dir: dirname(path), name: basename(path), ino: stat.ino });
      else if ((flags & constants.O_TRUNC) !== 0) ops.push({ kind: "truncate", dir: dirname(path), path, ino: stat.ino, length: 0 });
      return fd;
    },
    async close(fd) {
      await inner.close(fd);
      open.delete(fd);
    },
    async write(fd, data, position) {
      const file = fileOf(fd);
      const at = position ?? (file.append ? (await inner.fstat(fd)).size : file.cursor);
      const written = await inner.write(fd, data, position);
      if (position === null && !file.append) file.cursor = at + written;
      ops.push({ kind: "write", dir: dirname(file.path), path: file.path, ino: file.ino, position: at, bytes: Buffer.from(data.subarray(0, written)) });
      return written;
    },
    fsync: (fd) => sync(fd, inner.fsync),
    fdatasync: (fd) => sync(fd, inner.fdatasync),
    async ftruncate(fd, length) {
      await inner.ftruncate(fd, length);
      const file = fileOf(fd);
      ops.push({ kind: "truncate", dir: dirname(file.path), path: file.path, ino: file.ino, length });
    },
    ...namingCalls(inner, ops, exists),
  };
}

/** The calls that only make, move or remove names. */
function namingCalls(
  inner: FileSystem,
  ops: FsOp[],
  exists: (path: string) => Promise<boolean>,
): Pick<FileSystem, "mkdir" | "rmdir" | "link" | "rename" | "unlink"> {
  return {
    async mkdir(path, mode) {
      const missing: string[] = [];
      for (let level = path; dirname(level) !== level && !(await exists(level)); level = dirname(level)) missing.unshift(level);
      await inner.mkdir(path, mode);
      for (const level of missing) ops.push({ kind: "mkdir", dir: dirname(level), name: basename(level) });
    },
    async rmdir(path) {
      await inner.rmdir(path);
      ops.push({ kind: "rmdir", dir: dirname(path), name: basename(path) });
    },
    async link(existing, created) {
      await inner.link(existing, created);
      ops.push({ kind: "link", dir: dirname(created), name: basename(created), ino: (await inner.lstat(created)).ino });
    },
    async rename(from, to) {
      if (dirname(from) !== dirname(to)) throw new Error(`power-cut recorder: a rename across directories (${from} to ${to}) is not modelled`);
      await inner.rename(from, to);
      ops.push({ kind: "rename", dir: dirname(from), from: basename(from), to: basename(to) });
    },
    async unlink(path) {
      await inner.unlink(path);
      ops.push({ kind: "unlink", dir: dirname(path), name: basename(path) });
    },
  };
}
