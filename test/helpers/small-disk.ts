// A small file system for a test that needs a full disk: a tmpfs of a few megabytes mounted
// on a temporary directory, which the test fills with a file of its own and frees again.
// Mounting needs root (CI runs the tests as root); elsewhere the test is skipped, saying so.
import { execFileSync } from "node:child_process";
import { chownSync, closeSync, mkdirSync, mkdtempSync, openSync, rmSync, statfsSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface SmallDisk {
  /** A directory on the small disk, owned by the owner it was mounted for (mode 0700). */
  readonly dir: string;
  /** Writes a file of the disk's root until the disk is full: the next write of anyone's fails with ENOSPC. */
  fill(): void;
  /** Removes the file fill wrote. */
  free(): void;
  /** Unmounts it (once no one has a file of it open) and removes its mount point. */
  unmount(): void;
}

function mount(bytes: number, owner: { uid: number; gid: number } | undefined): string {
  const point = mkdtempSync(join(tmpdir(), "fisk-ai-small-disk-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${bytes},mode=0755`, "tmpfs", point], { stdio: "pipe" });
  } catch (error) {
    rmSync(point, { recursive: true, force: true });
    throw error;
  }
  const dir = join(point, "space");
  mkdirSync(dir, { mode: 0o700 });
  if (owner !== undefined) chownSync(dir, owner.uid, owner.gid);
  return point;
}

function unmount(point: string): void {
  // Lazily: a server may hold a dropped table's file open a while; the disk goes when it lets go.
  execFileSync("umount", ["--lazy", point], { stdio: "pipe" });
  rmSync(point, { recursive: true, force: true });
}

/** Why this machine cannot give a test a small disk, or undefined where it can (a probe is mounted and unmounted). */
export function smallDiskMissing(): string | undefined {
  if (process.getuid?.() !== 0) return "needs root to mount a small tmpfs (CI runs the tests as root)";
  try {
    unmount(mount(1 << 20, undefined));
    return undefined;
  } catch (error) {
    return `cannot mount a small tmpfs here: ${(error as Error).message.split("\n")[0]}`;
  }
}

/** Mounts a tmpfs of `bytes`, its directory `dir` owned by `owner` (default: this process). */
export function mountSmallDisk(bytes: number, owner?: { uid: number; gid: number }): SmallDisk {
  const point = mount(bytes, owner);
  const filler = join(point, "filler");
  return {
    dir: join(point, "space"),
    fill: () => {
      const fd = openSync(filler, "a");
      const block = Buffer.alloc(statfsSync(point).bsize, 0x5a);
      try {
        for (;;) writeSync(fd, block);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
      } finally {
        closeSync(fd);
      }
    },
    free: () => rmSync(filler, { force: true }),
    unmount: () => unmount(point),
  };
}
