// 1 GB benchmark (issue 13): a journal of about 1 GB (some 500,000 records shaped as a
// real run writes them) resumed in a fresh process with Node's default heap: the run
// locked, read and folded to the state the loop continues from. Beside it, a fresh
// process that only reads the same bytes. Each prints its time and peak RSS.
//   npm run bench:resume            RESUME_GB=<n> for another size
import { fork } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LoadChildResult, LoadMode } from "./load-child.js";
import { formatCount, formatGb, formatMb, formatMs, formatRatio, freeBytes, GB, machineLine, printTable } from "./report.js";
import { writeLargeJournal } from "./run-records.js";

const BYTES = Number(process.env.RESUME_GB ?? 1) * GB;
const LOAD_CHILD = new URL("./load-child.js", import.meta.url);

/** One side in its own process with the default heap, so its maxRSS is that side's alone. */
function inChild(mode: LoadMode, dir: string, runId: string): Promise<LoadChildResult> {
  return new Promise((resolve, reject) => {
    const child = fork(LOAD_CHILD, [mode, dir, runId], { stdio: "inherit", execArgv: [] });
    let result: LoadChildResult | undefined;
    child.once("message", (message) => (result = message as LoadChildResult));
    child.once("error", reject);
    child.once("exit", (code, signal) =>
      result === undefined || code !== 0 ? reject(new Error(`${mode} exited ${signal ?? code} without a result`)) : resolve(result),
    );
  });
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "fisk-resume-"));
  try {
    if (freeBytes(dir) < BYTES + 2 * GB) throw new Error(`need ${formatGb(BYTES + 2 * GB)} GB free under ${dir}`);
    const runId = "resume-1gb";
    const records = writeLargeJournal(join(dir, `${runId}.json`), runId, BYTES, "suspended", 13);
    const size = statSync(join(dir, `${runId}.json`)).size;
    const read = await inChild("read", dir, runId);
    const resume = await inChild("resume", dir, runId);
    for (const [name, side] of [
      ["read", read],
      ["resume", resume],
    ] as const) {
      if (side.records !== records) throw new Error(`${name} saw ${side.records} of ${records} records`);
    }
    const row = (name: string, side: LoadChildResult): string[] => [name, formatMs(side.ms), formatMb(side.peakRssKb * 1024), formatMb(side.startRssKb * 1024)];
    printTable(
      `Resume of one ${formatMb(size)} MB journal (${formatCount(records)} records), each side a fresh process with the default heap`,
      ["", "time ms", "peak RSS MB", "RSS at start MB"],
      [
        row("resume: RunRecorder.open (lock, read, decode, validate, fold) + close", resume),
        row("read the same bytes (readFile, count lines)", read),
        ["resume/read", formatRatio(resume.ms / read.ms), formatRatio(resume.peakRssKb / read.peakRssKb), ""],
      ],
      [machineLine(dir)],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
