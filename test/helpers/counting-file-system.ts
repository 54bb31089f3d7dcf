// A FileSystem that passes every call to the real one, counting what matters to the
// durability and listing claims, with an optional hook to delay or fail a call.
import { nodeFileSystem, type FileSystem } from "../../src/backends/file/file-system.js";

type Method = keyof FileSystem;

export interface CountingFileSystem extends FileSystem {
  calls: Record<string, number>;
  bytesRead: number;
  bytesWritten: number;
  /** Paths of the directories that were fsynced, in order. */
  syncedDirs: string[];
  /** Runs before each call of `method`; may wait or throw. */
  before: Partial<Record<Method, () => Promise<void> | void>>;
  reset(): void;
}

export function countingFileSystem(inner: FileSystem = nodeFileSystem): CountingFileSystem {
  const dirOfFd = new Map<number, string>();
  const counting: CountingFileSystem = {
    calls: {},
    bytesRead: 0,
    bytesWritten: 0,
    syncedDirs: [],
    before: {},
    reset() {
      counting.calls = {};
      counting.bytesRead = 0;
      counting.bytesWritten = 0;
      counting.syncedDirs = [];
    },
  } as unknown as CountingFileSystem;
  // The synchronous reads count under their own names ("sync.read") and in bytesRead.
  const sync = {} as Record<string, unknown>;
  for (const [name, real] of Object.entries(inner.sync) as [string, (...args: unknown[]) => unknown][]) {
    sync[name] = (...args: unknown[]) => {
      counting.calls[`sync.${name}`] = (counting.calls[`sync.${name}`] ?? 0) + 1;
      const result = real(...args);
      if (name === "read") counting.bytesRead += result as number;
      return result;
    };
  }
  (counting as unknown as { sync: unknown }).sync = sync;
  for (const method of Object.keys(inner).filter((name) => name !== "sync") as Method[]) {
    const real = inner[method] as (...args: unknown[]) => Promise<unknown>;
    (counting as unknown as Record<string, unknown>)[method] = async (...args: unknown[]) => {
      counting.calls[method] = (counting.calls[method] ?? 0) + 1;
      await counting.before[method]?.();
      const result = await real(...args);
      if (method === "read") counting.bytesRead += result as number;
      if (method === "write") counting.bytesWritten += result as number;
      if (method === "open") {
        const [path] = args as [string];
        if ((await inner.fstat(result as number)).isDirectory()) dirOfFd.set(result as number, path);
      }
      if (method === "fsync" && dirOfFd.has(args[0] as number)) counting.syncedDirs.push(dirOfFd.get(args[0] as number) as string);
      if (method === "close") dirOfFd.delete(args[0] as number);
      return result;
    };
  }
  return counting;
}

/** Every fsync-family call: what a durable append pays for. */
export function fsyncs(fs: CountingFileSystem): number {
  return (fs.calls.fsync ?? 0) + (fs.calls.fdatasync ?? 0);
}
