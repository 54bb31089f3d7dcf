// The disk states a power cut can leave, from a snapshot of a directory tree and the ops a
// recording file system saw after it (power-cut-recorder.ts). The rules:
// - a file's bytes are durable once the file is fsynced; its writes since are lost, kept,
//   or the first of those lost is torn (kept up to its first byte, its middle or its last
//   byte). Unsynced writes are taken to reach the disk in the order they were made, so the
//   choices for a file are: the first j of its unsynced writes kept, j = 0..n, and the
//   (j+1)th torn at one of those three places;
// - a name made, linked, renamed, removed in a directory (a file created, a link, a
//   rename, an unlink, a mkdir, an rmdir) is durable once that directory is fsynced; until
//   then it may or may not have happened, in the order the directory saw them: the first
//   j of a directory's unsynced name ops happened, j = 0..m;
// - the choices of different files and directories are independent.
// A crash point's states are every combination of those choices, or, when there are more
// than `cap`, the state where nothing unsynced survived, the one where everything did, and
// `cap - 2` combinations drawn from a PRNG seeded by the crash point's index.
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { FsOp } from "./power-cut-recorder.js";
import { mulberry32 } from "./simulated-runs.js";

type Entry = { file: number } | "dir";
type DataOp = Extract<FsOp, { kind: "write" | "truncate" }>;
type NameOp = Extract<FsOp, { kind: "create" | "link" | "unlink" | "rename" | "mkdir" | "rmdir" }>;

/** A disk: each directory's names (by absolute path) and each file's bytes (by model inode). */
interface Disk {
  dirs: Map<string, Map<string, Entry>>;
  files: Map<number, Buffer>;
}

/** A state as files: each path under the root (relative) with its bytes, or null for a directory. */
export type Tree = Map<string, Buffer | null>;

export interface CrashState {
  /** After how many ops the power went. */
  crashPoint: number;
  tree: Tree;
  /** The state where nothing unsynced survived: everything in it was durable at the cut. */
  durable: Tree;
  /** Whether this crash point had more states than the cap, so that a sample of them was taken. */
  sampled: boolean;
}

/** What was under a root before a scenario: its tree, and the inode number of each file in it. */
export interface Snapshot {
  tree: Tree;
  inodes: Map<string, number>;
}

/** The tree under `root`, read from the real disk. */
export function readTree(root: string): Tree {
  return snapshotOf(root).tree;
}

export function snapshotOf(root: string): Snapshot {
  const snapshot: Snapshot = { tree: new Map(), inodes: new Map() };
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const stat = statSync(path);
      if (stat.isDirectory()) {
        snapshot.tree.set(relative(root, path), null);
        walk(path);
      } else {
        snapshot.tree.set(relative(root, path), readFileSync(path));
        snapshot.inodes.set(relative(root, path), stat.ino);
      }
    }
  };
  walk(root);
  return snapshot;
}

/** Replaces what is under `root` with `tree`. */
export function writeTree(root: string, tree: Tree): void {
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true, mode: 0o700 });
  for (const [path, bytes] of tree) {
    if (bytes === null) mkdirSync(join(root, path), { mode: 0o700 });
    else writeFileSync(join(root, path), bytes, { mode: 0o600 });
  }
}

export function treeHash(tree: Tree): string {
  const hash = createHash("sha1");
  for (const [path, bytes] of [...tree].sort(([a], [b]) => (a < b ? -1 : 1))) {
    hash.update(`${path}\0${bytes === null ? "d" : `f${bytes.length}`}\0`);
    if (bytes !== null) hash.update(bytes);
  }
  return hash.digest("hex");
}

/**
 * The states a power cut after each op can leave (crash points 0..ops.length), `root`
 * having held `snapshot` before the first op. Inodes are the recorder's real ones, renamed
 * to fresh model inodes at each create, since the kernel reuses the number of a file gone.
 */
export function* crashStates(root: string, snapshot: Snapshot, ops: readonly FsOp[], cap: number): Generator<CrashState> {
  const durable = diskOf(root, snapshot.tree);
  const inodes = new Map<number, number>();
  let nextInode = durable.files.size;
  const pendingData = new Map<number, DataOp[]>();
  const pendingNames = new Map<string, NameOp[]>();
  const push = <K, V>(map: Map<K, V[]>, key: K, value: V) => map.set(key, [...(map.get(key) ?? []), value]);
  const modelInode = (real: number) => {
    const inode = inodes.get(real);
    if (inode === undefined) throw new Error(`power-cut states: inode ${real} was never created or snapshotted`);
    return inode;
  };
  for (const [real, inode] of snapshotInodes(snapshot)) inodes.set(real, inode);
  yield* statesAt(0);
  for (let index = 0; index < ops.length; index++) {
    const op = ops[index] as FsOp;
    if (op.kind === "create") {
      inodes.set(op.ino, nextInode);
      durable.files.set(nextInode++, Buffer.alloc(0));
    }
    if (op.kind === "write" || op.kind === "truncate") push(pendingData, modelInode(op.ino), op);
    else if (op.kind === "fsync") {
      const inode = modelInode(op.ino);
      for (const data of pendingData.get(inode) ?? []) applyData(durable, inode, data, undefined);
      pendingData.delete(inode);
    } else if (op.kind === "dirsync") {
      for (const name of pendingNames.get(op.dir) ?? []) applyName(durable, name);
      pendingNames.delete(op.dir);
    } else push(pendingNames, op.dir, { ...op, ino: "ino" in op ? modelInode(op.ino) : 0 } as NameOp);
    yield* statesAt(index + 1);
  }

  function* statesAt(crashPoint: number): Generator<CrashState> {
    const choices: { count: number; apply(disk: Disk, choice: number): void }[] = [];
    for (const names of pendingNames.values()) {
      choices.push({ count: names.length + 1, apply: (disk, kept) => names.slice(0, kept).forEach((name) => applyName(disk, name)) });
    }
    for (const [inode, writes] of pendingData) {
      const variants = dataVariants(writes);
      choices.push({ count: variants.length, apply: (disk, choice) => applyVariant(disk, inode, writes, variants[choice] as Variant) });
    }
    const durableTree = treeOf(root, durable);
    const counts = choices.map((choice) => choice.count);
    const sampled = counts.reduce((product, count) => product * count, 1) > cap;
    for (const picks of combinations(counts, cap, crashPoint)) {
      const disk = cloneDisk(durable);
      picks.forEach((pick, at) => choices[at]?.apply(disk, pick));
      yield { crashPoint, tree: treeOf(root, disk), durable: durableTree, sampled };
    }
  }
}

/** A file's unsynced writes: the first `kept` reached the disk, and `torn` bytes of the next. */
type Variant = { kept: number; torn?: number };

function dataVariants(ops: readonly DataOp[]): Variant[] {
  const variants: Variant[] = [];
  ops.forEach((op, kept) => {
    variants.push({ kept });
    if (op.kind !== "write") return;
    const length = op.bytes.length;
    for (const torn of new Set([1, Math.floor(length / 2), length - 1])) if (torn > 0 && torn < length) variants.push({ kept, torn });
  });
  variants.push({ kept: ops.length });
  return variants;
}

function applyVariant(disk: Disk, inode: number, ops: readonly DataOp[], variant: Variant): void {
  ops.slice(0, variant.kept).forEach((op) => applyData(disk, inode, op, undefined));
  if (variant.torn !== undefined) applyData(disk, inode, ops[variant.kept] as DataOp, variant.torn);
}

function applyData(disk: Disk, inode: number, op: DataOp, torn: number | undefined): void {
  const bytes = disk.files.get(inode) ?? Buffer.alloc(0);
  if (op.kind === "truncate") {
    disk.files.set(inode, op.length <= bytes.length ? bytes.subarray(0, op.length) : Buffer.concat([bytes, Buffer.alloc(op.length - bytes.length)]));
    return;
  }
  const data = torn === undefined ? op.bytes : op.bytes.subarray(0, torn);
  const size = Math.max(bytes.length, op.position + data.length);
  const next = Buffer.alloc(size);
  bytes.copy(next);
  data.copy(next, op.position);
  disk.files.set(inode, next);
}

/** A name op whose inode (create, link) is the model's. */
function applyName(disk: Disk, op: NameOp): void {
  const names = disk.dirs.get(op.dir) ?? new Map<string, Entry>();
  disk.dirs.set(op.dir, names);
  if (op.kind === "create" || op.kind === "link") names.set(op.name, { file: op.ino });
  else if (op.kind === "unlink" || op.kind === "rmdir") names.delete(op.name);
  else if (op.kind === "mkdir") {
    names.set(op.name, "dir");
    if (!disk.dirs.has(join(op.dir, op.name))) disk.dirs.set(join(op.dir, op.name), new Map());
  } else {
    const entry = names.get(op.from);
    if (entry === undefined) throw new Error(`power-cut states: rename of ${op.from}, which ${op.dir} does not hold`);
    names.delete(op.from);
    names.set(op.to, entry);
  }
}

/** Every combination of `counts` choices, or, past `cap`, the all-first, the all-last and a seeded sample. */
function* combinations(counts: readonly number[], cap: number, seed: number): Generator<number[]> {
  const total = counts.reduce((product, count) => product * count, 1);
  if (total <= cap) {
    for (let index = 0; index < total; index++) {
      let rest = index;
      yield counts.map((count) => {
        const pick = rest % count;
        rest = Math.floor(rest / count);
        return pick;
      });
    }
    return;
  }
  yield counts.map(() => 0);
  yield counts.map((count) => count - 1);
  const random = mulberry32(seed + 1);
  for (let drawn = 2; drawn < cap; drawn++) yield counts.map((count) => Math.floor(random() * count));
}

function diskOf(root: string, snapshot: Tree): Disk {
  const disk: Disk = { dirs: new Map([[root, new Map()]]), files: new Map() };
  let inode = 0;
  for (const [path, bytes] of snapshot) {
    const absolute = join(root, path);
    const parent = join(absolute, "..");
    const names = disk.dirs.get(parent) as Map<string, Entry>;
    const name = absolute.slice(parent.length + 1);
    if (bytes === null) {
      names.set(name, "dir");
      disk.dirs.set(absolute, new Map());
    } else {
      names.set(name, { file: inode });
      disk.files.set(inode++, bytes);
    }
  }
  return disk;
}

/** The real inode numbers of the snapshot's files, as diskOf numbered them. */
function snapshotInodes(snapshot: Snapshot): Map<number, number> {
  const inodes = new Map<number, number>();
  let inode = 0;
  for (const [path, bytes] of snapshot.tree) if (bytes !== null) inodes.set(snapshot.inodes.get(path) as number, inode++);
  return inodes;
}

function cloneDisk(disk: Disk): Disk {
  return { dirs: new Map([...disk.dirs].map(([dir, names]) => [dir, new Map(names)])), files: new Map(disk.files) };
}

function treeOf(root: string, disk: Disk): Tree {
  const tree: Tree = new Map();
  const walk = (dir: string) => {
    for (const [name, entry] of [...(disk.dirs.get(dir) ?? [])].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const path = join(dir, name);
      if (entry === "dir") {
        tree.set(relative(root, path), null);
        walk(path);
      } else tree.set(relative(root, path), disk.files.get(entry.file) ?? Buffer.alloc(0));
    }
  };
  walk(root);
  return tree;
}
