// What the benches that set two stores side by side time alike: a run of sequential
// appends, and many small runs written for a listing to read.
import { performance } from "node:perf_hooks";
import type { Store } from "../src/index.js";
import type { RecordEntry } from "../src/journal.js";
import { metaFor, RunGenerator, type RunShape } from "./run-records.js";
import { percentile } from "./stats.js";

/** Records of 1-2 KB, as a turn with a tool call or two makes. */
export const SMALL_RECORDS: RunShape = { outputBytes: [900, 1800], proseBytes: [400, 900], toolsPerTurn: [1, 2] };

export interface AppendRound {
  p50: number;
  p99: number;
  perSecond: number;
}

/** One run of `count` appends, one after another as the loop makes them, each timed. */
export async function appendRound(store: Store, runId: string, entries: readonly RecordEntry[]): Promise<AppendRound> {
  const journal = await store.create(runId, metaFor(runId));
  const samples: number[] = [];
  const started = performance.now();
  for (let index = 0; index < entries.length; index++) {
    const before = performance.now();
    await journal.append(index + 2, entries[index] as RecordEntry);
    samples.push(performance.now() - before);
  }
  const totalMs = performance.now() - started;
  await journal.close();
  return { p50: percentile(samples, 50), p99: percentile(samples, 99), perSecond: (entries.length * 1000) / totalMs };
}

/** Runs `from`..`to - 1` of a few records each, written a few at a time. */
export async function fillRuns(store: Store, from: number, to: number, records: number): Promise<void> {
  const generator = new RunGenerator(SMALL_RECORDS, 7);
  const entries = generator.entries(records - 1);
  for (let start = from; start < to; start += 16) {
    await Promise.all(
      Array.from({ length: Math.min(16, to - start) }, async (_, offset) => {
        const runId = `list-${start + offset}`;
        const journal = await store.create(runId, metaFor(runId));
        for (let index = 0; index < entries.length; index++) await journal.append(index + 2, entries[index] as RecordEntry);
        await journal.close();
      }),
    );
  }
}
