// Following a submitted run from anywhere that reaches its store: its records as the
// worker journals them, until the run leaves the queue (at rest) or parks, then its
// outcome as the run itself would have reported it. It looks each time the queue's watch
// of the run wakes it, and at least every pollMs.
import type { RunOutcome } from "../agent/events.js";
import { installationKeys } from "../trust/installation-keys.js";
import { waitingCalls } from "../agent/waiting-calls.js";
import { RunStateError } from "../runstate/errors.js";
import type { JournalRecord } from "../runstate/records/records.js";
import type { Store } from "../runstate/store/store.js";
import type { RunQueue } from "../queue/run-queue.js";
import { followRecords } from "../session/follow-records.js";

/** How awaitSubmitted follows a run. */
export interface AwaitOptions {
  /** Each record from `fromSeq` on, as it is journaled. */
  onRecord?(record: JournalRecord): void;
  /** The first record handed to onRecord (default: the record after the last one now stored). */
  fromSeq?: number;
  /** How long it waits to hear of a change (RunQueue.watch) before it asks the store and queue anyway, in milliseconds (default 100). */
  pollMs?: number;
  /** Aborting it stops the waiting (rejects with the abort). */
  signal?: AbortSignal;
}

/** How often it looks whether the worker let go of the run, once the run left the queue. */
const RELEASE_POLL_MS = 10;

/**
 * Resolves once no process holds the run: a worker settles the queue entry before it lets
 * go of the journal, so a caller told "at rest" a moment early would find it locked.
 */
async function released(store: Store, runId: string, signal: AbortSignal | undefined): Promise<void> {
  while ((await store.summarize(runId, { digest: false })).holder !== undefined) {
    await new Promise((resolve) => setTimeout(resolve, RELEASE_POLL_MS));
    signal?.throwIfAborted();
  }
}

/**
 * Resolves once the submitted run `runId` is at rest (its entry gone) or parked for a
 * decision and its worker let go of it, with its outcome; ERR_NOT_FOUND when it left the queue without a terminal
 * record (withdrawn before a worker took it).
 */
export async function awaitSubmitted(store: Store, queue: RunQueue, runId: string, options: AwaitOptions = {}): Promise<RunOutcome> {
  const fromSeq = options.fromSeq ?? (await store.summarize(runId)).lastSeq + 1;
  for await (const record of followRecords(store, queue, runId, fromSeq, options)) options.onRecord?.(record);
  await released(store, runId, options.signal);
  const state = await store.load(runId);
  const terminal = state.terminal;
  if (terminal === undefined) throw new RunStateError("ERR_NOT_FOUND", `session ${runId} left the queue before it ended (withdrawn with queue rm?)`, { runId });
  const last = state.messages.at(-1);
  const answer =
    terminal.reason === "completed" && last?.role === "assistant" ? last.content.map((block) => (block.type === "text" ? block.text : "")).join("") : undefined;
  return {
    runId,
    reason: terminal.reason,
    checkpointed: true,
    counters: state.counters,
    ...(answer === undefined ? {} : { answer }),
    ...(terminal.message === undefined ? {} : { message: terminal.message }),
    ...(terminal.reason === "awaiting_approval" ? { waiting: waitingCalls(state, installationKeys(store).trusted) } : {}),
  };
}
