// One side of a load comparison, in a fresh process forked by store.bench.ts or
// resume.bench.ts, so the peak RSS it reports belongs to that side alone.
// Usage: node load-child.js fold|parse|resume|read <dir> <runId>; the result comes back over IPC.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { FileStore } from "../src/index.js";
import { RunRecorder } from "../src/agent/run-recorder.js";

export const LOAD_MODES = ["fold", "parse", "resume", "read"] as const;
export type LoadMode = (typeof LOAD_MODES)[number];

export interface LoadChildResult {
  ms: number;
  /** How many records the side saw, so the parent can check both read the whole journal. */
  records: number;
  /** maxRSS once the modules are loaded, before the work: the process's own floor. */
  startRssKb: number;
  peakRssKb: number;
}

async function loadRecordCount(mode: LoadMode, dir: string, runId: string): Promise<number> {
  if (mode === "fold") return (await new FileStore({ dir }).load(runId)).lastSeq;
  if (mode === "resume") {
    // What a resume does before its first model call: lock the run, read and fold it.
    const recorder = await RunRecorder.open(new FileStore({ dir }), runId);
    try {
      return recorder.state().lastSeq;
    } finally {
      await recorder.close();
    }
  }
  if (mode === "read") {
    const bytes = await readFile(join(dir, `${runId}.json`));
    let lines = 0;
    for (let at = bytes.indexOf(0x0a); at >= 0; at = bytes.indexOf(0x0a, at + 1)) lines++;
    return lines;
  }
  const text = (await readFile(join(dir, `${runId}.json`))).toString("utf8");
  const values: unknown[] = text
    .split("\n")
    .filter((line) => line !== "")
    .map((line): unknown => JSON.parse(line));
  return values.length;
}

async function main(): Promise<void> {
  const [mode, dir, runId] = process.argv.slice(2);
  if (!LOAD_MODES.includes(mode as LoadMode) || dir === undefined || runId === undefined || process.send === undefined) {
    throw new Error("usage: load-child.js fold|parse|resume|read <dir> <runId>, forked with an IPC channel");
  }
  const startRssKb = process.resourceUsage().maxRSS;
  const started = performance.now();
  const records = await loadRecordCount(mode as LoadMode, dir, runId);
  const result: LoadChildResult = {
    ms: performance.now() - started,
    records,
    startRssKb,
    peakRssKb: process.resourceUsage().maxRSS,
  };
  process.send(result, () => process.disconnect());
}

await main();
