// Withdrawing a queued run: its entry leaves the queue, and the session it would have run
// ends with it, so no worker (an adopting one included) can take it up later by surprise.
import { notQueuedError, type RunQueue } from "../queue/run-queue.js";
import { RunStateError } from "../runstate/errors.js";
import { kindOfProtocol } from "../runstate/records/records.js";
import { assertRunId } from "../runstate/records/run-id.js";
import type { Store } from "../runstate/store/store.js";

/** What became of a withdrawn run's session. */
export type Withdrawn =
  /** It never ran (its journal held only what submit wrote): it is removed with its entry. */
  | "removed"
  /** It had ended a part before it was queued (suspended, parked): it stays as it ended. */
  | "kept";

/** The records submit journals before a worker takes the run. */
const SUBMITTED = new Set(["meta", "title"]);

/**
 * Withdraws `runId` from `queue`, with the follow-ups behind it, and ends its session:
 * removed when it never ran, kept as it ended otherwise. Refused (ERR_LOCKED) while a worker
 * drives it, and for a run whose worker died mid-part: that one is the pool's to take over.
 */
export async function withdrawRun(store: Store, queue: RunQueue, runId: string): Promise<Withdrawn> {
  assertRunId(runId);
  if ((await queue.get(runId)) === undefined) throw notQueuedError(runId);
  const kinds: string[] = [];
  for await (const record of store.readRecords(runId)) kinds.push(kindOfProtocol(record.protocol) ?? "unknown");
  const neverRan = kinds.every((kind) => SUBMITTED.has(kind));
  // A run a worker drives is the queue's to refuse, with its own message.
  const running = (await store.summarize(runId, { digest: false })).status === "running";
  if (!neverRan && !running && kinds.at(-1) !== "terminal") {
    throw new RunStateError(
      "ERR_LOCKED",
      `session ${runId} was started by a worker that stopped mid-run: the next worker takes it over; it can no longer be withdrawn`,
      { runId },
    );
  }
  await queue.withdraw(runId);
  if (!neverRan) return "kept";
  try {
    await store.delete(runId);
  } catch (error) {
    if (error instanceof RunStateError && error.code === "ERR_LOCKED") {
      throw new RunStateError("ERR_LOCKED", `session ${runId} was taken by an adopting worker as it was withdrawn: it runs there`, { runId });
    }
    throw error;
  }
  return "removed";
}
