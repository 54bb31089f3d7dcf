// One tenant's view of a queue a service shares (docs/server.md#keys-and-tenants), beside
// tenantStore's view of the store: an entry is its session's tenant's (QueuedRun.tenant,
// copied from the meta when it is queued). Another tenant's entry is not listed, and every
// call by its id fails as for a run that is not queued, word for word. Entries set aside
// as bad have no tenant anyone can trust: they are the operator's, seen through the queue itself.
import { RunStateError } from "../runstate/errors.js";
import { DEFAULT_TENANT } from "../runstate/store/tenant.js";
import { notQuarantinedError } from "./quarantine.js";
import { notQueuedError, type QueuedRun, type RunQueue } from "./run-queue.js";

/**
 * `queue` as `tenant` sees it. Enqueueing an entry of another tenant is refused
 * (ERR_INVALID_RECORD); a claim takes this tenant's runs alone. Closing the view leaves
 * `queue` open: it is its opener's.
 */
export function tenantQueue(queue: RunQueue, tenant: string): RunQueue {
  const owns = (entry: QueuedRun | undefined): boolean => entry !== undefined && (entry.tenant ?? DEFAULT_TENANT) === tenant;
  const own = async (runId: string, what?: string): Promise<void> => {
    if (!owns(await queue.get(runId))) throw notQueuedError(runId, what);
  };
  return {
    enqueue: async (entry, options) => {
      if (!owns(entry)) {
        throw new RunStateError("ERR_INVALID_RECORD", `the queue entry of session ${entry.runId} is of another tenant than ${tenant}`, { runId: entry.runId });
      }
      await queue.enqueue(entry, options);
    },
    list: async () => (await queue.list()).filter(owns),
    get: async (runId) => {
      const entry = await queue.get(runId);
      return owns(entry) ? entry : undefined;
    },
    behind: async (runId) => (owns(await queue.get(runId)) ? (await queue.behind(runId)).filter((waiting) => owns(waiting.entry)) : []),
    withdraw: async (runId) => {
      await own(runId);
      await queue.withdraw(runId);
    },
    unpark: async (runId) => {
      await own(runId, "parked");
      await queue.unpark(runId);
    },
    claim: (accepts) => queue.claim((entry) => owns(entry) && accepts(entry)),
    watch: (runId) => queue.watch(runId),
    quarantined: async () => [],
    discard: async (name) => {
      throw notQuarantinedError(name);
    },
    onQuarantine: () => () => undefined,
    close: async () => undefined,
  };
}
