// What the pool's processes share (`worker`, and `serve` with its in-process workers): the
// --config agents loaded and their backend opened, and the line printed for each run.
import { loadAgent, type LoadedAgent } from "../../config/load-agent.js";
import type { Settled } from "../../pool/drive-claimed.js";
import type { WorkerEvents } from "../../pool/worker.js";
import { poolBackend } from "../../backends/pool-queue.js";
import { quarantineLine } from "../../queue/quarantine.js";
import type { QueuedRun, RunQueue } from "../../queue/run-queue.js";
import type { Store } from "../../runstate/store/store.js";
import type { CommandIO } from "./command-io.js";
import { configPathFrom, storeFromFlags, type StoreFlags } from "./stores.js";
import { counted } from "../../transcript/counted.js";

/** The agents of a pool process (`worker`, `serve`), the first one's store and queue, and their closing. */
export interface OpenedPool {
  /** The --config paths, in order (undefined: the default configuration). */
  paths: (string | undefined)[];
  agents: LoadedAgent[];
  store: Store;
  queue: RunQueue;
  /** Closes the queue, the store and the agents. */
  close(): Promise<void>;
}

/** Loads the --config agents and opens the first one's backend (or --store's) for the worker pool. */
export async function openPool(flags: Omit<StoreFlags, "config"> & { config?: string[] | undefined }, io: CommandIO): Promise<OpenedPool> {
  const named = storeFromFlags({ stateDir: flags.stateDir, store: flags.store });
  const paths = flags.config ?? [configPathFrom(undefined)];
  const agents: LoadedAgent[] = [];
  const closeAgents = async () => {
    for (const agent of agents) await agent.close();
  };
  try {
    for (const path of paths) agents.push(await loadAgent(path, { env: io.env, overrides: { store: named } }));
    const { store, queue } = await poolBackend((agents[0] as LoadedAgent).openBackend((line) => io.stderr.write(`fisk-ai: ${line}\n`)));
    const close = async () => {
      try {
        await queue.close();
        await store.close();
      } finally {
        await closeAgents();
      }
    };
    return { paths, agents, store, queue, close };
  } catch (error) {
    await closeAgents();
    throw error;
  }
}

/** The lines a pool process prints for each run it takes and lets go of. */
export function workerEvents(io: CommandIO): WorkerEvents {
  const say = (line: string) => io.stdout.write(`${line}\n`);
  return {
    took: (entry) => say(`took ${entry.runId}${entry.followUp !== undefined ? " (a follow-up)" : entry.suspend === true ? " (a request to suspend it)" : ""}`),
    settled: (entry, settled) => say(settledLine(entry, settled)),
    quarantined: (entry) => say(`quarantined ${entry.name}: ${quarantineLine(entry)}`),
    failed: (error) => io.stderr.write(`fisk-ai: looking for work failed: ${error instanceof Error ? error.message : String(error)}\n`),
  };
}

function settledLine({ runId }: QueuedRun, settled: Settled): string {
  switch (settled.how) {
    case "finished":
      return `finished ${runId}: ${settled.outcome?.reason ?? "nothing left to do"}${settled.message === undefined ? "" : ` (${settled.message.split("\n")[0]})`}`;
    case "parked":
      return `parked ${runId}: waits for ${counted(settled.outcome.waiting?.length ?? 0, "decision")} (fisk-ai session pending)`;
    case "handed back":
      return `handed back ${runId}: suspended, queued for the pool`;
    case "dropped":
      return `dropped ${runId}: ${settled.message.split("\n")[0]}`;
  }
}
