// A rolling deploy of the worker pool, the same on either store: runs submitted to three
// workers, then again and again a random worker that drives a run is SIGTERMed (it must
// exit 0) and replaced. Every run must end with its answer, with one `suspended` journaled
// per hand-back its workers printed, each model turn and each tool call exactly once.
import assert from "node:assert/strict";
import type { JournalRecord } from "../../src/runstate/records/records.js";
import type { CliRun } from "./cli-harness.js";
import type { FakeServer } from "./fake-anthropic-server.js";
import { kinds, type StartedWorkers } from "./pool-workspace.js";
import { eventually } from "./eventually.js";

/** The pool under deploy: its store's side of it, and how to start a worker on it. */
export interface DeployedPool {
  /** Submits "Write two notes for RUNID" as session RUNID (the pool model names its notes RUNID-one, RUNID-two). */
  submit(runId: string): Promise<void>;
  /** A worker process, added to `workers`. */
  worker(): CliRun;
  /** The run ids the queue still has. */
  queued(): Promise<string[]>;
  journal(runId: string): Promise<JournalRecord[]>;
  /** The tools' side-effect lines. */
  executions(): string[];
  /** The strict fake model the workers call (pool-model.ts). */
  model: FakeServer;
  workers: StartedWorkers;
}

const lines = (text: string, line: RegExp) => text.split("\n").filter((each) => line.test(each)).length;

/** Runs the deploy over `runs` for up to `rounds` SIGTERMs and asserts what it must leave. */
export async function rollingDeploy(pool: DeployedPool, runs: readonly string[], rounds: number): Promise<void> {
  const { workers } = pool;
  for (const runId of runs) await pool.submit(runId);
  const callsBefore = pool.model.requests.length;
  const started = [pool.worker(), pool.worker(), pool.worker()];
  const stopped: CliRun[] = [];
  /** Workers driving a run now: more runs taken than let go of. */
  const busy = () =>
    started.filter((worker) => lines(workers.output(worker), /^took /) > lines(workers.output(worker), /^(finished|handed back|parked|dropped) /));
  for (let round = 0; round < rounds && (await pool.queued()).length > 0; round++) {
    const seen = pool.executions().length;
    await eventually(async () => (pool.executions().length > seen && busy().length > 0) || (await pool.queued()).length === 0, "a tool to run");
    const driving = busy();
    if (driving.length === 0) break;
    const leaving = driving[Math.floor(Math.random() * driving.length)] as CliRun;
    const index = started.indexOf(leaving);
    leaving.child.kill("SIGTERM");
    const exit = await leaving.done;
    assert.equal(exit.code, 0, `a worker SIGTERMed once exits 0: ${exit.stderr}`);
    stopped.push(leaving);
    started[index] = pool.worker();
    // A worker signalled before it has started dies of the signal: it held nothing yet.
    await workers.printedLine(started[index] as CliRun, /^worker \d+ taking runs/m);
  }
  await eventually(async () => (await pool.queued()).length === 0, "every run to end", { timeoutMs: 120_000 });
  const everyLine = [...stopped, ...started].map((worker) => workers.output(worker)).join("\n");
  for (const runId of runs) {
    const journal = await pool.journal(runId);
    const handedBack = lines(everyLine, new RegExp(`^handed back ${runId}: suspended, queued for the pool$`));
    assert.deepEqual(
      journal.flatMap((record) => ("terminal" in record ? [record.terminal.reason] : [])),
      [...Array<string>(handedBack).fill("suspended"), "completed"],
      `${runId}: one suspended per hand-back, then completed`,
    );
    assert.deepEqual(
      kinds(journal).filter((kind) => kind !== "terminal"),
      ["meta", "assistant", "tool_result", "assistant", "tool_result", "assistant"],
      `${runId}: each model turn journaled once`,
    );
    const texts = journal.flatMap((record) =>
      "assistant" in record ? record.assistant.message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])) : [],
    );
    assert.deepEqual(texts, ["two notes written"]);
  }
  assert.ok(/^handed back /m.test(everyLine), `at least one run was handed back mid-run:\n${everyLine}`);
  assert.deepEqual([...pool.executions()].sort(), runs.flatMap((runId) => [`${runId}-one`, `${runId}-two`]).sort(), "every tool call ran exactly once");
  assert.equal(pool.model.requests.length - callsBefore, runs.length * 3, "no model call made twice");
  for (const worker of started) worker.child.kill("SIGTERM");
  await Promise.all(started.map((worker) => worker.done));
}
