// The worker pool as an operator sees it: each queue entry with the process that drives it
// (if one does) and the follow-ups behind it, and the processes driving runs now.
import type { QueuedRun, RunQueue, WaitingFollowUp } from "../queue/run-queue.js";
import type { RunHolder } from "../runstate/store/run-holder.js";
import type { Store } from "../runstate/store/store.js";

/** A queue entry, the process driving its run now (absent while it waits or is parked), the follow-ups behind it. */
export interface QueueItem {
  entry: QueuedRun;
  holder?: RunHolder;
  behind: WaitingFollowUp[];
}

/** Every queue entry, oldest first, with its holder and follow-ups. */
export async function queueOverview(store: Store, queue: RunQueue): Promise<QueueItem[]> {
  const items: QueueItem[] = [];
  for (const entry of await queue.list()) {
    const summary = await store.summarize(entry.runId, { digest: false }).catch(() => undefined);
    const behind = await queue.behind(entry.runId);
    items.push({ entry, behind, ...(summary?.holder === undefined ? {} : { holder: summary.holder }) });
  }
  return items;
}

/** A process that drives runs of the pool now. */
export interface PoolProcess extends RunHolder {
  /** The runs it drives. */
  runs: string[];
}

/** The processes driving the queue's runs now, read from the holders of the items. */
export function poolProcesses(items: readonly QueueItem[]): PoolProcess[] {
  const byProcess = new Map<string, PoolProcess>();
  for (const { entry, holder } of items) {
    if (holder === undefined) continue;
    const key = `${holder.host}\u0000${holder.pid}\u0000${holder.started}`;
    const known = byProcess.get(key) ?? { ...holder, runs: [] };
    known.runs.push(entry.runId);
    byProcess.set(key, known);
  }
  return [...byProcess.values()];
}
