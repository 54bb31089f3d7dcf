// A worker's claim beside a full quarantine: `npm run bench:quarantine -- [--rounds N] [--queued N] [--set-aside N]`.
// Two file queues, each over its own store with the same runs queued; one also holds
// N entries set aside in its quarantine (issue 54's goal: a claim there within 1.2x of
// one beside none). A claim is the worker's: it lists the queue, holds the oldest run,
// and is handed back; sides alternate (AB BA ...), one claim each a round.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { metaPayload } from "../src/conformance/record-builders.js";
import { FileQueue, fileQueueDir } from "../src/backends/file/file-queue.js";
import { FileStore } from "../src/backends/file/file-store.js";
import { formatMs, goalRatio, machineLine, printTable } from "./report.js";
import { interleave, median, timed } from "./stats.js";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "400" },
    queued: { type: "string", default: "20" },
    "set-aside": { type: "string", default: "1000" },
  },
});
const rounds = Number(values.rounds);
const queuedCount = Number(values.queued);
const setAsideCount = Number(values["set-aside"]);
const GOAL = 1.2;
const root = mkdtempSync(join(tmpdir(), "fisk-ai-bench-quarantine-"));
console.log(`npm run bench:quarantine -- --rounds ${rounds} --queued ${queuedCount} --set-aside ${setAsideCount}`);
console.log(machineLine(root));

/** A store with `queuedCount` runs queued, and `setAside` bad entries already in its quarantine. */
async function side(name: string, setAside: number): Promise<FileQueue> {
  const dir = join(root, name);
  const store = new FileStore({ dir });
  const queue = new FileQueue({ dir: fileQueueDir(dir), store });
  for (let index = 0; index < queuedCount; index++) {
    const runId = `run${index}`;
    const meta = metaPayload(runId);
    await (await store.create(runId, meta)).close();
    const queued = new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString();
    await queue.enqueue({ runId, queued, fingerprint: meta.fingerprint, version: meta.version, afterSeq: 1, state: "queued" });
  }
  const quarantine = join(fileQueueDir(dir), "quarantine");
  mkdirSync(quarantine, { recursive: true });
  for (let index = 0; index < setAside; index++) writeFileSync(join(quarantine, `bad${index}.json`), "{not json");
  return queue;
}

const none = await side("none", 0);
const full = await side("full", setAsideCount);
const claimOnce = (queue: FileQueue) =>
  timed(async () => {
    const claim = await queue.claim(() => true);
    if (claim === undefined) throw new Error("nothing to claim: the bench's runs are gone");
    await claim.handBack();
  });
const results = await interleave({ none: () => claimOnce(none), full: () => claimOnce(full) }, rounds, Math.ceil(rounds / 10));
const noneMs = median(results.none.map((result) => result.ms));
const fullMs = median(results.full.map((result) => result.ms));
const ratio = fullMs / noneMs;
printTable(
  "A worker's claim (list, hold the oldest, hand back), file queue",
  ["quarantine", "median claim ms"],
  [
    ["none set aside", formatMs(noneMs)],
    [`${setAsideCount} set aside`, formatMs(fullMs)],
  ],
  [`ratio ${goalRatio(ratio, ratio <= GOAL)} (goal: within ${GOAL}x), ${rounds} claims a side, ${queuedCount} runs queued`],
);
rmSync(root, { recursive: true, force: true });
