// Compaction benchmark (issue 24). A scripted chat of 300 follow-ups, each adding a tool
// result of about 4 KB, against the strict fake Anthropic server with a 20,000-token context
// window, auto compaction on: every request must stay under the window and the chat complete.
// Per compaction: the bytes it adds to the journal beside the bytes of the records it
// replaces (goal: at most the summary plus 1 KB), and the tokens before and after. Then the
// fold time of a journal with 100 compactions beside one of the same size with none, and
// beside one with 50 compactions of half the size (linear: about 2x).
//   npm run bench:compaction        COMPACTION_FOLLOW_UPS=<n> for another length
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fold, type JournalRecord } from "../src/index.js";
import type { RecordEntry } from "../src/journal.js";
import { assistantEntry, compactionEntry, journalOf, toolResultEntry, userEntry } from "../test/helpers/record-builders.js";
import { runCompactingChat } from "../test/helpers/compacting-chat.js";
import { formatCount, formatMs, formatRatio, machineLine, printTable } from "./report.js";
import { median } from "./stats.js";

const FOLLOW_UPS = Number(process.env.COMPACTION_FOLLOW_UPS ?? 300);
const WINDOW = 20_000;
const PAGE_BYTES = 4000;

/** A prompt, its tool call, the result and the answer: four records, four messages. */
function cycle(index: number, pageBytes: number): RecordEntry[] {
  const id = `toolu_${index}`;
  return [
    userEntry(`follow-up ${index}`),
    assistantEntry(2 * index, "", [id]),
    toolResultEntry(id, "x".repeat(pageBytes)),
    assistantEntry(2 * index + 1, `done ${index}`),
  ];
}

/** `cycles` cycles, with a compaction after every `every`-th (0: none) that summarizes all but that cycle. */
function syntheticJournal(cycles: number, every: number): JournalRecord[] {
  const entries: RecordEntry[] = [];
  let through = 0;
  let lastAnswerSeq = 0;
  for (let index = 1; index <= cycles; index++) {
    const previousAnswer = lastAnswerSeq;
    entries.push(...cycle(index, PAGE_BYTES));
    lastAnswerSeq = entries.length + 1;
    // After the cycle, so that its messages are the ones kept.
    if (every > 0 && index % every === 0) {
      entries.push(compactionEntry(through + 1, previousAnswer, { summary: `summary through cycle ${index - 1}: ${"s".repeat(600)}`, trigger: "auto" }));
      through = previousAnswer;
    }
  }
  return journalOf("fold-bench", ...entries);
}

const bytesOf = (records: readonly JournalRecord[]): number => records.reduce((sum, record) => sum + Buffer.byteLength(JSON.stringify(record)) + 1, 0);

/** The median fold time of each journal, after a warm-up, in rounds that take each in turn so none is measured cold or alone. */
function foldTimes(journals: readonly (readonly JournalRecord[])[]): number[] {
  for (let round = 0; round < 5; round++) for (const records of journals) fold(records);
  const samples = journals.map((): number[] => []);
  for (let round = 0; round < 15; round++) {
    journals.forEach((records, index) => {
      const started = performance.now();
      fold(records);
      samples[index]?.push(performance.now() - started);
    });
  }
  return samples.map(median);
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "fisk-ai-bench-compaction-"));
  try {
    console.log(machineLine(dir));
    const figures = await runCompactingChat({ followUps: FOLLOW_UPS, window: WINDOW, pageBytes: PAGE_BYTES, dir });
    const overhead = figures.compactions.map((entry) => entry.recordBytes - entry.summaryBytes);
    printTable(
      `A chat of ${formatCount(FOLLOW_UPS)} follow-ups with ${formatCount(PAGE_BYTES)}-byte tool results, ${formatCount(WINDOW)}-token window: ${figures.outcome.reason} (${figures.outcome.message ?? ""})`,
      ["", "count"],
      [
        ["requests (the agent's and the summarizing calls)", formatCount(figures.requests)],
        ["requests refused (over the window or otherwise)", formatCount(figures.refused)],
        ["largest request accepted, tokens", `${formatCount(figures.largestRequest)} (${formatRatio(figures.largestRequest / WINDOW)} of the window)`],
        ["compactions (= summarizing calls)", `${formatCount(figures.compactions.length)} (${formatCount(figures.summarizingRequests)})`],
        ["journal bytes", formatCount(figures.journalBytes)],
        ["  of which compaction records", formatCount(figures.journalBytes - figures.otherBytes)],
        ["compaction bytes beyond the summary, max", `${formatCount(Math.max(...overhead))} (goal: at most 1,024)`],
        ["compactions with tokens after >= before", formatCount(figures.compactions.filter((entry) => entry.tokensAfter >= entry.tokensBefore).length)],
      ],
      [],
    );
    printTable(
      "Each compaction: the bytes it adds beside the bytes of the records it replaces, and the tokens before and after",
      ["seq", "adds", "summary", "replaces", "adds/replaces", "tokens before", "after"],
      figures.compactions.map((entry) => [
        String(entry.seq),
        formatCount(entry.recordBytes),
        formatCount(entry.summaryBytes),
        formatCount(entry.replacedBytes),
        formatRatio(entry.recordBytes / entry.replacedBytes, 3),
        formatCount(entry.tokensBefore),
        formatCount(entry.tokensAfter),
      ]),
      ["adds: the compaction record's journal line; replaces: the lines of the records it summarizes for the first time"],
    );

    const hundred = syntheticJournal(500, 5);
    const fifty = syntheticJournal(250, 5);
    let plainCycles = 500;
    while (bytesOf(syntheticJournal(plainCycles, 0)) < bytesOf(hundred)) plainCycles++;
    const plain = syntheticJournal(plainCycles, 0);
    const count = (records: readonly JournalRecord[]) => records.filter((record) => record.protocol.endsWith(".compaction")).length;
    const rows = [
      ["100 compactions", hundred],
      ["none, same size", plain],
      ["50 compactions, half the size", fifty],
    ] as const;
    const times = foldTimes(rows.map(([, records]) => records));
    printTable(
      "fold() of a journal with compactions (median of 15 interleaved rounds, after 5 of warm-up)",
      ["journal", "records", "compactions", "bytes", "ms", "vs 100 compactions"],
      rows.map(([name, records], index) => [
        name,
        formatCount(records.length),
        formatCount(count(records)),
        formatCount(bytesOf(records)),
        formatMs(times[index] as number),
        formatRatio((times[0] as number) / (times[index] as number)),
      ]),
      ["linear would read about 1x against none at the same size and about 2x against 50 compactions at half the size"],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
