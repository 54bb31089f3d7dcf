// Approvals benchmark (issue 25): the time from a decision to the approved tool running on
// resume, beside a plain resume of the same kind of session (one stopped with the same tool
// call unanswered) to that tool running. Over the file store and over JetStream (a real
// nats-server on 127.0.0.1). Each round makes two fresh sessions by running the agent (the
// script provider plays the model), then times each side; rounds alternate their order.
//   npm run bench:approvals            APPROVAL_ROUNDS=<n> for another count (default 30)
import { performance } from "node:perf_hooks";
import type { Store } from "../src/runstate/store/store.js";
import { actAgent, approvedSide, lastToolStart, THIS_BUILD, writeActScript } from "./approval-path.js";
import { sideBySideStores } from "./side-by-side-stores.js";
import { formatMs, formatRatio, goalRatio, machineLine, printTable } from "./report.js";
import { interleave, median } from "./stats.js";

const COMMAND = "npm run bench:approvals";
const ROUNDS = Number(process.env.APPROVAL_ROUNDS ?? 30);
const GOAL = 1.5;

/** A session a crash left with the same call unanswered, resumed until that tool runs; nothing to decide. */
async function plainSide(store: Store, script: string, runId: string): Promise<{ decide: number; resume: number; cpu: number }> {
  const crash = new AbortController();
  // Aborted once the turn is journaled: the loop stops before the tool, as a kill there would.
  const events = { assistantTurn: () => crash.abort() };
  const agent = actAgent(THIS_BUILD, script, false);
  await THIS_BUILD.runAgent({ ...agent, store, events, abortSignal: crash.signal, prompt: "act", runId }).catch(() => undefined);
  const started = performance.now();
  const done = await THIS_BUILD.runAgent({ ...agent, store, resume: runId });
  if (done.reason !== "completed") throw new Error(`${runId} ended ${done.reason}`);
  return { decide: 0, resume: lastToolStart() - started, cpu: 0 };
}

async function main(): Promise<void> {
  const { scratch, stores, close } = await sideBySideStores("approvals", "BENCH_APPROVALS");
  const script = writeActScript(scratch);
  try {
    console.log(`${COMMAND}: ${machineLine(scratch)}; nats-server with JetStream file storage on 127.0.0.1`);
    const rows: string[][] = [];
    let session = 0;
    for (const [name, store] of Object.entries(stores)) {
      const sides = await interleave(
        { approved: () => approvedSide(THIS_BUILD, store, script, `approved-${session++}`), plain: () => plainSide(store, script, `plain-${session++}`) },
        ROUNDS,
        2,
      );
      const decide = median(sides.approved.map((side) => side.decide));
      const resume = median(sides.approved.map((side) => side.resume));
      const both = median(sides.approved.map((side) => side.decide + side.resume));
      const plain = median(sides.plain.map((side) => side.resume));
      rows.push([name, formatMs(resume), formatMs(plain), goalRatio(resume / plain, resume / plain <= GOAL), formatMs(decide), formatRatio(both / plain)]);
    }
    printTable(
      `From the decision to the tool running on resume, beside a plain resume to the same tool; median of ${ROUNDS} rounds (goal: within ${formatRatio(GOAL, 1)})`,
      ["store", "resume after approval ms", "plain resume ms", "ratio", "approve() ms", "(approve + resume)/plain"],
      rows,
      [
        "resume after approval: once approve() has resolved (the decision durable), runAgent's resume of the session until the approved tool's handler starts",
        "plain resume: runAgent's resume of a session stopped with the same call unanswered, until the tool's handler starts",
        "approve(): open the session (lock or lease), fold, journal the decision and then the terminal record (two durable appends), close",
      ],
    );
  } finally {
    await close();
  }
}

await main();
