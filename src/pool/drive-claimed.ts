// Drives one claimed run through runAgent, as `run --resume` does (the pending batch
// completed with journaled results reused, each tool's on_crash, no journaled model call
// made again), then settles its queue entry while the run is still held. This is the one
// place a worker runs an agent.
import { ResumeRefusedError } from "../agent/agent-errors.js";
import type { AgentEvents, RunOutcome } from "../agent/events.js";
import { runAgent } from "../agent/run-agent.js";
import type { AgentOptions } from "../agent/agent-spec.js";
import { heldRunStore } from "../queue/held-run-store.js";
import type { Claim, QueuedRun } from "../queue/run-queue.js";
import { PROTOCOLS, type JournalRecord } from "../runstate/records/records.js";
import type { Store } from "../runstate/store/store.js";
import { installationKeys } from "../trust/installation-keys.js";
import { foreignReason } from "../trust/session-trust.js";

/** How a worker let go of a run. */
export type Settled =
  /** At rest: completed, or stopped at an error or a limit; its entry is gone. */
  | {
      /** What became of the run. */
      how: "finished";
      /** How it ended; undefined when it was at rest already (a worker died after its terminal record). */
      outcome?: RunOutcome;
      /** Why no worker can take it further, when a resume was refused. */
      message?: string;
    }
  /** Parked for a decision: its entry waits for session approve/deny/answer. */
  | {
      /** What became of the run. */
      how: "parked";
      /** The outcome, with the calls that wait. */
      outcome: RunOutcome;
    }
  /** Suspended at a boundary and given back to the queue (a deploy). */
  | {
      /** What became of the run. */
      how: "handed back";
    }
  /** The worker stopped at once (aborted, or its hold on the run was lost): the run waits for another worker from its last record. */
  | {
      /** What became of the run. */
      how: "dropped";
      /** Why: the abort, or the store's refusal. */
      message: string;
    };

export interface DriveHooks {
  store: Store;
  /** The agent: loadAgent's AgentSpec, or options built by hand. */
  agent: AgentOptions;
  events?: AgentEvents | undefined;
  /** Aborted: suspend at the next boundary and hand the run back. */
  handBack: AbortSignal;
  /** Aborted: stop at once, as a crash would. */
  abort: AbortSignal;
}

export async function driveClaimed(claim: Claim, hooks: DriveHooks): Promise<Settled> {
  const { runId } = claim.entry;
  if (claim.entry.suspend === true) {
    // The run ahead of the request was suspended by it: settling the request lets what waits behind go on.
    await claim.finish();
    return { how: "finished", message: "suspended on request" };
  }
  const records = await claim.journal.records();
  const followUp = followUpToJournal(claim.entry, records);
  // Tools run where the session was submitted, as `run --resume` runs them where it started;
  // a foreign session's journal chooses no directory (docs/security.md): they run in the worker's.
  const meta = records[0] !== undefined && "meta" in records[0] ? records[0].meta : undefined;
  const imported = records.findLast((record) => record.protocol === PROTOCOLS.imported);
  const keys = installationKeys(hooks.store);
  const foreign = meta === undefined || foreignReason(meta, imported?.protocol === PROTOCOLS.imported ? imported.imported : undefined, keys) !== undefined;
  const cwd = foreign ? undefined : meta?.cwd;
  let outcome: RunOutcome;
  try {
    outcome = await runAgent({
      ...hooks.agent,
      store: heldRunStore(hooks.store, claim.journal),
      resume: runId,
      followUp,
      toolCwd: cwd,
      // A deploy's stop, a follow-up that interrupts and a request to suspend all suspend the run at its next boundary.
      suspendSignal: AbortSignal.any([hooks.handBack, claim.interrupted]),
      // A hold the claim lost stops the run at once, as a crash would: it may be another worker's now.
      abortSignal: claim.lost === undefined ? hooks.abort : AbortSignal.any([hooks.abort, claim.lost]),
      decidedBy: "worker",
      events: hooks.events,
    });
  } catch (error) {
    if (error instanceof ResumeRefusedError) {
      // No worker could take it further: it leaves the queue, saying why.
      await claim.finish();
      return error.refusal === "completed" ? { how: "finished" } : { how: "finished", message: error.message };
    }
    // Aborted, or the store refused an append (the hold was lost): nothing more is written.
    await claim.handBack().catch(() => undefined);
    return { how: "dropped", message: error instanceof Error ? error.message : String(error) };
  }
  if (outcome.reason === "awaiting_approval") {
    await claim.park();
    return { how: "parked", outcome };
  }
  if (outcome.reason === "suspended" && hooks.handBack.aborted) {
    await claim.handBack();
    return { how: "handed back" };
  }
  // Finishing queues the follow-up that waits behind the run, the one that interrupted it first.
  await claim.finish();
  return outcome.reason === "suspended" && claim.interrupted.aborted
    ? { how: "finished", outcome, message: "interrupted by a follow-up, which is queued next" }
    : { how: "finished", outcome };
}

/** The entry's follow-up, unless a worker that died journaled it already (a `user` record after the seq it was queued at). */
function followUpToJournal({ followUp, afterSeq }: QueuedRun, records: readonly JournalRecord[]): string | undefined {
  if (followUp === undefined) return undefined;
  return records.some((record) => record.seq > afterSeq && record.protocol === PROTOCOLS.user) ? undefined : followUp;
}
