// The run lock's cost (issue 59): flock(2) through koffi, as fisk-ai takes it, against
// fs-ext's flock, the addon it replaced, side by side in one process, interleaved round by
// round. Each operation is the run lock's own: open the lock file, flock it exclusive and
// non-blocking, close it (the close is the release). "open + close" alone is the floor.
// Goal: koffi within 1.2x of fs-ext.        npm run bench:lock    (LOCK_ROUNDS=<n>, LOCK_OPS=<n>)
// fs-ext is not a dependency any more: it is installed (built with node-gyp, so this needs
// g++, make and python3) into a throwaway directory, or taken from LOCK_FS_EXT=<its package dir>.
// Also: the first lock of a fresh process, which loads the library (each in its own process).
import { spawnSync } from "node:child_process";
import { closeSync, constants, mkdtempSync, openSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";
import { nodeFileSystem } from "../src/backends/file/file-system.js";
import { formatMs, formatRatio, goalRatio, machineLine, printTable } from "./report.js";
import { interleave, median } from "./stats.js";

const ROUNDS = Number(process.env.LOCK_ROUNDS ?? 20);
const OPS = Number(process.env.LOCK_OPS ?? 2000);
const GOAL = 1.2;
const FIRST_ROUNDS = 20;
const FLAGS = constants.O_RDWR | constants.O_CREAT;

type Lock = (fd: number) => Promise<void>;

/** fs-ext from LOCK_FS_EXT, or installed into `dir`; undefined (with the reason printed) where it cannot build. */
function fsExtDir(dir: string): string | undefined {
  if (process.env.LOCK_FS_EXT !== undefined) return process.env.LOCK_FS_EXT;
  const installed = spawnSync("npm", ["install", "--no-save", "--no-audit", "--no-fund", "--prefix", dir, "fs-ext@2.1.1"], { encoding: "utf8" });
  if (installed.status !== 0) {
    console.log(`fs-ext could not be installed (it builds with node-gyp): ${installed.stderr.trim().split("\n").at(-1)}`);
    return undefined;
  }
  return join(dir, "node_modules", "fs-ext");
}

function cycles(path: string, lock: Lock | undefined): () => Promise<number> {
  return async () => {
    const started = performance.now();
    for (let op = 0; op < OPS; op++) {
      const fd = await nodeFileSystem.open(path, FLAGS, 0o600);
      if (lock !== undefined) await lock(fd);
      await nodeFileSystem.close(fd);
    }
    return ((performance.now() - started) * 1000) / OPS;
  };
}

/** A fresh process's first lock, library load included: its wall and CPU time, in ms. */
function firstLock(path: string, load: string, call: string): () => Promise<{ wallMs: number; cpuMs: number }> {
  const script = `const t = performance.now(); const c = process.cpuUsage(); ${load}; const fd = (await import("node:fs")).openSync(process.argv[1], "r+"); ${call};
    const u = process.cpuUsage(c); process.stdout.write(JSON.stringify({ wallMs: performance.now() - t, cpuMs: (u.user + u.system) / 1000 }));`;
  return async () => {
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script, path], { encoding: "utf8" });
    if (child.status !== 0) throw new Error(child.stderr);
    return JSON.parse(child.stdout) as { wallMs: number; cpuMs: number };
  };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "fisk-lock-bench-"));
  try {
    const path = join(dir, "run.lock");
    closeSync(openSync(path, "w"));
    const sides: Record<string, () => Promise<number>> = {
      "open + close": cycles(path, undefined),
      "koffi flock (fisk-ai)": cycles(path, nodeFileSystem.lockExclusive),
    };
    const fsExt = fsExtDir(join(dir, "fs-ext"));
    if (fsExt !== undefined) {
      const flock = promisify(
        (createRequire(import.meta.url)(fsExt) as { flock: (fd: number, flags: string, done: (error: Error | null) => void) => void }).flock,
      );
      sides["fs-ext flock"] = cycles(path, (fd) => flock(fd, "exnb"));
    }
    const results = await interleave(sides, ROUNDS, 3);
    const perOp = (label: string): number => median(results[label] ?? []);
    const floor = perOp("open + close");
    const rows = Object.keys(sides).map((label) => [label, formatMs(perOp(label)), formatMs(perOp(label) - floor)]);
    const notes = [machineLine(dir)];
    if (fsExt !== undefined) {
      const ratio = perOp("koffi flock (fisk-ai)") / perOp("fs-ext flock");
      notes.unshift(
        `koffi / fs-ext, the whole cycle: ${goalRatio(ratio, ratio <= GOAL)} (goal ${GOAL}x); the lock call alone: ${formatRatio((perOp("koffi flock (fisk-ai)") - floor) / (perOp("fs-ext flock") - floor))}`,
      );
    }
    printTable(`The run lock: median of ${ROUNDS} rounds of ${OPS} cycles each, interleaved`, ["", "µs / cycle", "µs over open + close"], rows, notes);

    const kernelFlock = new URL("../src/backends/file/kernel-flock.js", import.meta.url).href;
    const first: Record<string, () => Promise<{ wallMs: number; cpuMs: number }>> = {
      "koffi flock (fisk-ai)": firstLock(path, `const { flockExclusive } = await import(${JSON.stringify(kernelFlock)})`, "await flockExclusive(fd)"),
    };
    if (fsExt !== undefined) {
      first["fs-ext flock"] = firstLock(
        path,
        `const fsExt = (await import("node:module")).createRequire(import.meta.url)(${JSON.stringify(fsExt)})`,
        `await new Promise((ok, no) => fsExt.flock(fd, "exnb", (e) => (e ? no(e) : ok())))`,
      );
    }
    const firstResults = await interleave(first, FIRST_ROUNDS, 1);
    printTable(
      `The first lock of a fresh process (the library's load included): median of ${FIRST_ROUNDS}, interleaved`,
      ["", "wall ms", "cpu ms"],
      Object.entries(firstResults).map(([label, samples]) => [
        label,
        formatMs(median(samples.map((sample) => sample.wallMs))),
        formatMs(median(samples.map((sample) => sample.cpuMs))),
      ]),
      [],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
