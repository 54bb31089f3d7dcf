// `fisk-ai worker`: a process of the pool. Takes queued runs of the agents it was given,
// N at a time, printing one line per run it takes and lets go of. The first SIGTERM or
// SIGINT (a deploy) hands its runs back suspended and exits 0; a second aborts them as a
// crash would (exit 130), and the pool takes them up from their last record.
import { loadAgent, type LoadedAgent } from "../../config/load-agent.js";
import type { Settled } from "../../pool/drive-claimed.js";
import { Worker, WORKER_DEFAULTS, type WorkerEvents } from "../../pool/worker.js";
import { poolBackend } from "../../backends/pool-queue.js";
import { quarantineLine } from "../../queue/quarantine.js";
import type { QueuedRun, RunQueue } from "../../queue/run-queue.js";
import type { Store } from "../../runstate/store/store.js";
import { UsageError } from "../cli-errors.js";
import { EXIT } from "../exit-codes.js";
import type { CommandIO } from "../context/command-io.js";
import { configPathFrom, storeFromFlags, type StoreFlags } from "../context/stores.js";
import { counted } from "../../transcript/counted.js";

export interface WorkerFlags extends Omit<StoreFlags, "config"> {
  config?: string[];
  concurrency?: string;
  poll?: string;
  adopt?: boolean;
}

export async function workerCommand(positionals: string[], flags: WorkerFlags, io: CommandIO): Promise<number> {
  if (positionals.length > 0) throw new UsageError(`worker takes no arguments (got ${JSON.stringify(positionals[0])}): name its agents with --config FILE`);
  const concurrency = wholeNumber(flags.concurrency, "--concurrency", WORKER_DEFAULTS.concurrency);
  const pollMs = wholeNumber(flags.poll, "--poll", WORKER_DEFAULTS.pollMs);
  const pool = await openPool(flags, io);
  try {
    const { store, queue } = pool;
    const say = (line: string) => io.stdout.write(`${line}\n`);
    const worker = new Worker({
      store,
      queue,
      agents: pool.agents.map((agent) => agent.spec),
      concurrency,
      pollMs,
      adopt: flags.adopt === true,
      events: workerEvents(io),
    });
    let signals = 0;
    const onSignal = () => {
      signals++;
      if (signals === 1) {
        const count = worker.running.length;
        say(`stopping: handing back ${counted(count, "run")} at ${count === 1 ? "its" : "their"} next boundary (signal again to abort)`);
        worker.stop();
      } else worker.abort();
    };
    process.on("SIGTERM", onSignal).on("SIGINT", onSignal);
    say(`worker ${process.pid} taking runs (${concurrency} at a time) of ${pool.paths.map((path) => path ?? "the default configuration").join(", ")}`);
    try {
      await worker.run();
    } finally {
      process.off("SIGTERM", onSignal).off("SIGINT", onSignal);
    }
    return signals > 1 ? EXIT.interrupted : EXIT.completed;
  } finally {
    await pool.close();
  }
}

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
export async function openPool(flags: Omit<StoreFlags, "config"> & { config?: string[] }, io: CommandIO): Promise<OpenedPool> {
  const named = storeFromFlags({ stateDir: flags.stateDir, store: flags.store });
  const paths = flags.config ?? [configPathFrom(undefined)];
  const agents: LoadedAgent[] = [];
  const closeAgents = async () => {
    for (const agent of agents) await agent.close();
  };
  try {
    for (const path of paths) agents.push(await loadAgent(path, { env: io.env, ...(named === undefined ? {} : { overrides: { store: named } }) }));
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
    took: (entry) => say(`took ${entry.runId}${entry.followUp === undefined ? "" : " (a follow-up)"}`),
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

function wholeNumber(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new UsageError(`${flag} takes a whole number from 1, not ${JSON.stringify(value)}`);
  return number;
}
