// Benchmark of the file-backed session store: `npm run bench:store`.
// Each comparison runs its two sides interleaved, reversing their order every round
// so machine noise and drift hit both alike, and reports the median over rounds.
// Figures are warm-cache: nothing is dropped from the page cache, and every journal
// read was written moments before.
import { fork } from "node:child_process";
import * as fs from "node:fs";
import { constants as osConstants, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";
import { FileStore, type RunStatus } from "../src/index.js";
import type { RecordEntry } from "../src/journal.js";
import { fileStoreWithSeams } from "../src/backends/file/file-store.js";
import { nodeFileSystem, type FileSystem } from "../src/backends/file/file-system.js";
import type { LoadChildResult, LoadMode } from "./load-child.js";
import { formatCount, formatGb, formatMb, formatMs, formatRatio, freeBytes, GB, goalRatio, machineLine, MB, printTable } from "./report.js";
import { encodeEntries, metaFor, metaLine, RunGenerator, terminalLine, writeJournalFile, type RunShape } from "./run-records.js";
import { interleave, median, medianOf, percentile, timed } from "./stats.js";

const COMMAND = "npm run bench:store";

// Sized so the whole run takes a few minutes on a 2-core machine.
const APPEND = { rounds: 10, appends: 300 };
const GROUP = { rounds: 4, batches: 100, batchSize: 8 };
const LOAD = { rounds: 3, bytes: 100 * MB };
const LIST = { rounds: 3, journals: 2000, bytes: 1 * MB };
/** What the benchmark writes at most, plus room so it never fills the disk. */
const DISK_NEEDED = LIST.journals * LIST.bytes + LOAD.bytes + 2 * GB;

/** Records of 1-2 KB, for the append comparisons. */
const SMALL_RECORDS: RunShape = { outputBytes: [900, 1800], proseBytes: [400, 900], toolsPerTurn: [1, 2] };
/** Tool results of a few KB, for the large journals: about 2 KB a record on average. */
const RUN_RECORDS: RunShape = { outputBytes: [900, 3400], proseBytes: [200, 900], toolsPerTurn: [1, 3] };

// The same callback-based fs calls, promisified, as nodeFileSystem gives the store.
const fsOpen = promisify(fs.open);
const fsWrite = promisify(fs.write);
const fsFdatasync = promisify(fs.fdatasync);
const fsClose = promisify(fs.close);
const { O_WRONLY, O_APPEND, O_CREAT, O_EXCL } = fs.constants;

// ---- timing ----

interface LatencySummary {
  p50: number;
  p99: number;
  perSecond: number;
}

/** Runs `count` operations one after another, timing each and the whole. */
async function latencies(count: number, operation: (index: number) => Promise<unknown>): Promise<LatencySummary> {
  const samples: number[] = [];
  const { ms: totalMs } = await timed(async () => {
    for (let index = 0; index < count; index++) {
      const started = performance.now();
      await operation(index);
      samples.push(performance.now() - started);
    }
  });
  return { p50: percentile(samples, 50), p99: percentile(samples, 99), perSecond: (count * 1000) / totalMs };
}

// ---- 1. sequential durable appends: the store vs raw write + fdatasync ----

async function writeFully(fd: number, bytes: Buffer): Promise<void> {
  for (let written = 0; written < bytes.length; ) {
    written += (await fsWrite(fd, bytes, written, bytes.length - written, null)).bytesWritten;
  }
}

async function benchSequentialAppend(dir: string): Promise<void> {
  const store = new FileStore({ dir });
  const entries = new RunGenerator(SMALL_RECORDS, 1).entries(APPEND.appends);
  // Encoded up front: the raw side is the floor, the bytes written and the fdatasync alone.
  const lines = encodeEntries(entries, 2).map((line) => Buffer.from(line));
  let nextRun = 0;
  const rounds = await interleave(
    {
      store: async () => {
        const runId = `append-${nextRun++}`;
        const journal = await store.create(runId, metaFor(runId));
        try {
          return await latencies(entries.length, (index) => journal.append(index + 2, entries[index] as RecordEntry));
        } finally {
          await journal.close();
        }
      },
      raw: async () => {
        const runId = `raw-${nextRun++}`;
        const fd = await fsOpen(join(dir, `${runId}.json`), O_WRONLY | O_APPEND | O_CREAT | O_EXCL, 0o600);
        try {
          await writeFully(fd, Buffer.from(metaLine(runId)));
          await fsFdatasync(fd);
          return await latencies(lines.length, async (index) => {
            await writeFully(fd, lines[index] as Buffer);
            await fsFdatasync(fd);
          });
        } finally {
          await fsClose(fd);
        }
      },
    },
    APPEND.rounds,
    1,
  );
  const keys = ["p50", "p99", "perSecond"] as const;
  const storeFigures = medianOf(rounds.store, keys);
  const rawFigures = medianOf(rounds.raw, keys);
  const p50Ratio = storeFigures.p50 / rawFigures.p50;
  const slowdown = rawFigures.perSecond / storeFigures.perSecond;
  const meanBytes = lines.reduce((sum, line) => sum + line.length, 0) / lines.length;
  printTable(
    `1. Durable sequential append: ${APPEND.appends} awaited appends a round, records of ${formatCount(meanBytes)} B on average, ` +
      `${APPEND.rounds} rounds (+1 warm-up), median of rounds`,
    ["", "p50 ms", "p99 ms", "appends/s"],
    [
      ["FileStore journal.append", formatMs(storeFigures.p50), formatMs(storeFigures.p99), formatCount(storeFigures.perSecond)],
      ["raw fs.write + fs.fdatasync", formatMs(rawFigures.p50), formatMs(rawFigures.p99), formatCount(rawFigures.perSecond)],
      ["store/raw", formatRatio(p50Ratio), formatRatio(storeFigures.p99 / rawFigures.p99), formatRatio(storeFigures.perSecond / rawFigures.perSecond)],
    ],
    [
      "raw writes the same encodeRecord bytes, encoded before timing; both use callback fs.write/fs.fdatasync (libuv pool)",
      `goal: store within 1.15x of raw: p50 ${goalRatio(p50Ratio, p50Ratio <= 1.15)}, ` + `throughput slower by ${goalRatio(slowdown, slowdown <= 1.15)}`,
    ],
  );
}

// ---- 2. eight concurrent appends: group commit on vs off ----

/** Wraps a FileSystem so every fsync and fdatasync made through it is counted. */
function countingSyncs(inner: FileSystem): { fileSystem: FileSystem; syncs: () => number } {
  let syncs = 0;
  const fileSystem: FileSystem = {
    ...inner,
    fsync: (fd) => {
      syncs++;
      return inner.fsync(fd);
    },
    fdatasync: (fd) => {
      syncs++;
      return inner.fdatasync(fd);
    },
  };
  return { fileSystem, syncs: () => syncs };
}

async function benchGroupCommit(dir: string): Promise<void> {
  const counter = countingSyncs(nodeFileSystem);
  const { batches, batchSize } = GROUP;
  const entries = new RunGenerator(SMALL_RECORDS, 2).entries(batches * batchSize);
  let nextRun = 0;
  const side = (groupCommit: boolean) => async (): Promise<LatencySummary & { syncsPerBatch: number }> => {
    const runId = `group-${groupCommit ? "on" : "off"}-${nextRun++}`;
    const journal = await fileStoreWithSeams({ dir, groupCommit, fileSystem: counter.fileSystem }).create(runId, metaFor(runId));
    try {
      // Counted from here, so the syncs of create() are left out.
      const syncsBefore = counter.syncs();
      const summary = await latencies(batches, (batch) =>
        Promise.all(
          Array.from({ length: batchSize }, (_, slot) => {
            const index = batch * batchSize + slot;
            return journal.append(index + 2, entries[index] as RecordEntry);
          }),
        ),
      );
      return { ...summary, syncsPerBatch: (counter.syncs() - syncsBefore) / batches };
    } finally {
      await journal.close();
    }
  };
  const rounds = await interleave({ on: side(true), off: side(false) }, GROUP.rounds, 1);
  const keys = ["p50", "p99", "perSecond", "syncsPerBatch"] as const;
  const on = medianOf(rounds.on, keys);
  const off = medianOf(rounds.off, keys);
  const row = (name: string, figures: typeof on): string[] => [
    name,
    figures.syncsPerBatch.toFixed(2),
    formatMs(figures.p50),
    formatMs(figures.p99),
    formatCount(figures.perSecond * batchSize),
  ];
  printTable(
    `2. ${batchSize} concurrent appends, awaited together: ${batches} batches a round, ${GROUP.rounds} rounds (+1 warm-up), median of rounds`,
    ["", "syncs/batch", "p50 ms", "p99 ms", "appends/s"],
    [
      row("groupCommit: true", on),
      row("groupCommit: false", off),
      [
        "off/on",
        formatRatio(off.syncsPerBatch / on.syncsPerBatch),
        formatRatio(off.p50 / on.p50),
        formatRatio(off.p99 / on.p99),
        formatRatio(off.perSecond / on.perSecond),
      ],
    ],
    ["syncs are fsync + fdatasync calls counted through an injected FileSystem wrapping nodeFileSystem"],
  );
}

// ---- 3. load + fold of a 100 MB journal vs a bare parse, each in a fresh process ----

const LOAD_CHILD = new URL("./load-child.js", import.meta.url);

/** Forks one load side; its own process, so its maxRSS is that side's peak alone. */
function loadInChild(mode: LoadMode, dir: string, runId: string, expectedRecords: number): Promise<LoadChildResult> {
  return new Promise((resolve, reject) => {
    const child = fork(LOAD_CHILD, [mode, dir, runId], { stdio: "inherit" });
    let result: LoadChildResult | undefined;
    child.once("message", (message) => (result = message as LoadChildResult));
    child.once("error", reject);
    child.once("exit", (code, signal) => {
      if (result === undefined || code !== 0) reject(new Error(`load child ${mode} exited ${signal ?? code} without a result`));
      else if (result.records !== expectedRecords) reject(new Error(`load child ${mode} saw ${result.records} of ${expectedRecords} records`));
      else resolve(result);
    });
  });
}

async function benchLoad(dir: string): Promise<void> {
  const runId = "load-100mb";
  const body = new RunGenerator(RUN_RECORDS, 3).encodedTurns(2, LOAD.bytes);
  const path = join(dir, `${runId}.json`);
  writeJournalFile(path, [metaLine(runId), body.text]);
  const records = body.records + 1;
  const size = fs.statSync(path).size;
  // No warm-up round: every side starts cold in a new process anyway.
  const rounds = await interleave(
    {
      fold: () => loadInChild("fold", dir, runId, records),
      parse: () => loadInChild("parse", dir, runId, records),
    },
    LOAD.rounds,
    0,
  );
  const keys = ["ms", "peakRssKb", "startRssKb"] as const;
  const fold = medianOf(rounds.fold, keys);
  const parse = medianOf(rounds.parse, keys);
  const ratio = fold.ms / parse.ms;
  const row = (name: string, figures: typeof fold): string[] => [
    name,
    formatMs(figures.ms),
    formatMb(figures.peakRssKb * 1024),
    formatMb(figures.startRssKb * 1024),
  ];
  printTable(
    `3. Load of one ${formatMb(size)} MB journal (${formatCount(records)} records, ${formatCount(size / records)} B each), ` +
      `each side in a fresh process, ${LOAD.rounds} rounds, median`,
    ["", "time ms", "peak RSS MB", "RSS at start MB"],
    [
      row("FileStore.load (decode, validate, fold)", fold),
      row("readFile + split + JSON.parse", parse),
      ["store/raw", formatRatio(ratio), formatRatio(fold.peakRssKb / parse.peakRssKb), ""],
    ],
    [`goal: load within 1.5x of the bare parse: ${goalRatio(ratio, ratio <= 1.5)}`],
  );
}

// ---- 4. list() over 2,000 journals vs folding every one ----

async function benchList(dir: string): Promise<void> {
  const runIds = Array.from({ length: LIST.journals }, (_, index) => `list-${String(index).padStart(4, "0")}`);
  const { ms: generateMs, value: expected } = await timed(async () => {
    const body = new RunGenerator(RUN_RECORDS, 4).encodedTurns(2, LIST.bytes - Buffer.byteLength(metaLine(runIds[0] as string)));
    const bodyBytes = Buffer.from(body.text);
    // Every other run ends suspended (a terminal record), the rest open, so list() reports both.
    const suspendedSeq = body.records + 2;
    const suspended = Buffer.from(terminalLine(suspendedSeq, "suspended"));
    return new Map(
      runIds.map((runId, index): [string, { lastSeq: number; status: RunStatus }] => {
        const endsSuspended = index % 2 === 0;
        writeJournalFile(join(dir, `${runId}.json`), [metaLine(runId), bodyBytes, ...(endsSuspended ? [suspended] : [])]);
        return [runId, endsSuspended ? { lastSeq: suspendedSeq, status: "suspended" } : { lastSeq: suspendedSeq - 1, status: "open" }];
      }),
    );
  });
  const totalBytes = runIds.reduce((sum, runId) => sum + fs.statSync(join(dir, `${runId}.json`)).size, 0);
  const store = new FileStore({ dir });
  const rounds = await interleave(
    {
      list: async () => {
        const { ms, value: summaries } = await timed(() => store.list());
        const wrong = summaries.filter(({ runId, lastSeq, status }) => {
          const want = expected.get(runId);
          return lastSeq !== want?.lastSeq || status !== want.status;
        });
        if (summaries.length !== LIST.journals || wrong.length > 0) {
          throw new Error(`list() gave ${summaries.length} summaries, ${wrong.length} wrong: ${JSON.stringify(wrong[0])}`);
        }
        return ms;
      },
      load: async () =>
        (
          await timed(async () => {
            for (const runId of runIds) {
              const state = await store.load(runId);
              if (state.lastSeq !== expected.get(runId)?.lastSeq) throw new Error(`load(${runId}) ended at seq ${state.lastSeq}`);
            }
          })
        ).ms,
    },
    LIST.rounds,
    0,
  );
  const listMs = median(rounds.list);
  const loadMs = median(rounds.load);
  const speedup = loadMs / listMs;
  printTable(
    `4. ${formatCount(LIST.journals)} journals of ${formatMb(totalBytes / LIST.journals)} MB (${formatGb(totalBytes)} GB, ` +
      `written in ${(generateMs / 1000).toFixed(1)} s), ${LIST.rounds} rounds, median`,
    ["", "time ms", "per journal ms"],
    [
      ["store.list()", formatMs(listMs), formatMs(listMs / LIST.journals)],
      ["store.load() of each, in turn", formatMs(loadMs), formatMs(loadMs / LIST.journals)],
      ["load/list", formatRatio(speedup), ""],
    ],
    [`goal: list at least 20x faster than folding all: ${goalRatio(speedup, speedup >= 20)}`],
  );
}

// ---- main ----

const SECTIONS: Record<string, (dir: string) => Promise<void>> = {
  append: benchSequentialAppend,
  group: benchGroupCommit,
  load: benchLoad,
  list: benchList,
};

async function main(): Promise<void> {
  const started = performance.now();
  // `node .test-build/bench/store.bench.js load list` runs only the sections named, for profiling one.
  const only = process.argv.slice(2);
  const unknown = only.filter((name) => !(name in SECTIONS));
  if (unknown.length > 0) throw new Error(`unknown section ${unknown.join(", ")}: choose from ${Object.keys(SECTIONS).join(", ")}`);
  const root = fs.mkdtempSync(join(tmpdir(), "fisk-ai-bench-"));
  const removeRoot = (): void => fs.rmSync(root, { recursive: true, force: true });
  // A finally does not run on a signal; without this an interrupted run leaves gigabytes behind.
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      removeRoot();
      process.exit(128 + osConstants.signals[signal]);
    });
  }
  try {
    console.log(`$ ${only.length === 0 ? COMMAND : `node .test-build/bench/store.bench.js ${only.join(" ")}`}`);
    console.log(machineLine(root));
    if (freeBytes(root) < DISK_NEEDED) {
      throw new Error(`need ${formatGb(DISK_NEEDED)} GB free under ${root}, have ${formatGb(freeBytes(root))} GB`);
    }
    for (const [name, bench] of Object.entries(SECTIONS)) {
      if (only.length > 0 && !only.includes(name)) continue;
      const dir = join(root, name);
      fs.mkdirSync(dir, { mode: 0o700 });
      await bench(dir);
    }
  } finally {
    removeRoot();
  }
  console.log(`\ntotal ${((performance.now() - started) / 1000).toFixed(1)} s; temp data under ${root} removed`);
}

await main();
