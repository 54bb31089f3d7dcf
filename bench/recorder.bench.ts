// Recorder benchmark (issue 13): 20,000 records appended through the loop's RunRecorder,
// reading its state after each append as the loop does. Prints the per-append cost over
// the first and the last 1,000 appends: flat when the state advances by one fold step per
// record. Beside it, what refolding the whole journal costs at the same two points (what
// each append cost when the recorder refolded after every append).
//   npm run bench:recorder            RECORDER_RECORDS=<n> for another length
import { performance } from "node:perf_hooks";
import { fold, MemoryStore, type JournalRecord } from "../src/index.js";
import type { RecordEntry } from "../src/journal.js";
import { RunRecorder } from "../src/agent/run-recorder.js";
import { formatCount, formatRatio, printTable } from "./report.js";
import { metaFor, RunGenerator, type RunShape } from "./run-records.js";
import { median } from "./stats.js";

const RECORDS = Number(process.env.RECORDER_RECORDS ?? 20_000);
const WINDOW = 1_000;
const SHAPE: RunShape = { outputBytes: [900, 1800], proseBytes: [400, 900], toolsPerTurn: [1, 2] };

const us = (ms: number): string => `${(ms * 1000).toFixed(1)} µs`;

/** Appends every entry, timing each append plus the state read after it, in µs windows. */
async function appendAll(recorder: RunRecorder, entries: readonly RecordEntry[]): Promise<number[]> {
  const costs: number[] = [];
  for (const entry of entries) {
    const started = performance.now();
    await recorder.append(entry);
    recorder.state();
    costs.push(performance.now() - started);
  }
  return costs;
}

/** The median time of folding the first `count` records, as a refold after each append paid. */
function refoldCost(records: readonly JournalRecord[], count: number): number {
  const prefix = records.slice(0, count);
  const samples: number[] = [];
  for (let i = 0; i < 15; i++) {
    const started = performance.now();
    fold(prefix);
    samples.push(performance.now() - started);
  }
  return median(samples);
}

async function main(): Promise<void> {
  const entries = new RunGenerator(SHAPE, 13).entries(RECORDS - 1);
  const meta = metaFor("recorder-bench");
  const records = [
    { seq: 1, protocol: "io.choria.fisk-ai.v1.session.meta", meta },
    ...entries.map((entry, i) => ({ seq: i + 2, ...entry })),
  ] as JournalRecord[];

  const rows: string[][] = [];
  for (const [name, store] of [
    ["in memory (fold only)", undefined],
    ["MemoryStore journal", new MemoryStore()],
  ] as const) {
    const recorder = await RunRecorder.create(store, meta);
    const costs = await appendAll(recorder, entries);
    await recorder.close();
    const start = median(costs.slice(0, WINDOW));
    const end = median(costs.slice(-WINDOW));
    rows.push([name, us(start), us(end), formatRatio(end / start)]);
  }
  const refoldStart = refoldCost(records, WINDOW);
  const refoldEnd = refoldCost(records, RECORDS);
  rows.push(["refold per append (before)", us(refoldStart), us(refoldEnd), formatRatio(refoldEnd / refoldStart)]);

  printTable(
    `RunRecorder: ${formatCount(RECORDS)} records appended, per-append cost (median of ${formatCount(WINDOW)} appends)`,
    ["", `first ${formatCount(WINDOW)}`, `last ${formatCount(WINDOW)}`, "end/start"],
    rows,
    [
      "each append includes the state read after it, as the loop reads it",
      "refold: fold() of the journal so far at that point, what every append paid before foldStep",
    ],
  );
}

await main();
