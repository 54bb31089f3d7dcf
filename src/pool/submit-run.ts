// Submitting: a run is journaled (its meta, and its title) and queued for the pool in one
// call that returns at once; a worker drives it. The journal is written before the entry,
// so a crash between them leaves an open session `worker --adopt` can take, never an
// entry without a run.
import { installationKeys } from "../trust/installation-keys.js";
import { newRunMeta, signedMeta } from "../agent/agent-loop.js";
import { agentSpec, type AgentOptions } from "../agent/agent-spec.js";
import { RunRecorder } from "../agent/run-recorder.js";
import type { QueuedRun, RunQueue } from "../queue/run-queue.js";
import { RunStateError } from "../runstate/errors.js";
import { PROTOCOLS, type MetaPayload } from "../runstate/records/records.js";
import type { RunSummary, Store } from "../runstate/store/store.js";

/** Where a run is submitted, and for which agent. */
export interface SubmitRunOptions {
  /** The store its session is journaled in. */
  store: Store;
  /** The queue of that store's backend (`const { store, queue } = await openBackend(url)`). */
  queue: RunQueue;
  /** The agent the run is for (loadAgent's `.spec`): a worker takes it only with an agent of the same fingerprint. */
  agent: AgentOptions;
}

/** What a submitted session starts with. */
export interface SubmitStart {
  /** What the agent should do. */
  prompt: string;
  /** The session id (default: a new KSUID). */
  runId?: string | undefined;
  /** A title, journaled after the meta record. */
  title?: string | undefined;
  /** The absolute directory the session was submitted from, recorded in its meta. */
  cwd?: string | undefined;
  /** The tenant a shared service submits it for, journaled and signed in its meta and kept in its queue entry (default: the default tenant). */
  tenant?: string | undefined;
}

/** Journals a new session on `start.prompt` and queues it; resolves to its id once both are durable. */
export async function submitRun({ store, queue, agent }: SubmitRunOptions, start: SubmitStart): Promise<string> {
  // Signed as a run's own meta is, so the worker that takes it (or takes it over) trusts its directory and config.
  const meta = signedMeta(newRunMeta(agentSpec(agent), start), installationKeys(store));
  const recorder = await RunRecorder.create(store, meta);
  try {
    if (start.title !== undefined) await recorder.append({ protocol: PROTOCOLS.title, title: { title: start.title } });
  } finally {
    await recorder.close();
  }
  await queue.enqueue(entryFor(meta, recorder.state().lastSeq, undefined));
  return meta.run_id;
}

/** What a follow-up does when its session is running or queued: wait behind it, be refused, or interrupt it at its next boundary. */
export const IF_RUNNING = ["queue", "reject", "interrupt"] as const;
/** One of IF_RUNNING: what a follow-up does when its session is running or queued. */
export type IfRunning = (typeof IF_RUNNING)[number];

/**
 * Queues a follow-up prompt to an existing session: a worker journals it and takes the
 * session further. `ifRunning` (default `queue`) is what happens when the session is
 * running or queued now: `queue` waits behind it, `reject` refuses (ERR_LOCKED),
 * `interrupt` has the worker driving it suspend it at its next boundary, then runs the
 * follow-up (ERR_LOCKED for a run held outside the pool, which no worker can interrupt).
 */
export async function submitFollowUp(
  { store, queue }: Omit<SubmitRunOptions, "agent">,
  runId: string,
  prompt: string,
  ifRunning: IfRunning = "queue",
): Promise<void> {
  const summary = await readableSummary(store, runId);
  const { holder } = summary;
  const pooled = (await queue.get(runId)) !== undefined;
  if (ifRunning === "reject" && (holder !== undefined || pooled)) {
    if (holder === undefined)
      throw new RunStateError("ERR_LOCKED", `session ${runId} is queued for the worker pool: the follow-up is refused, as --if-running reject asks`);
    throw new RunStateError(
      "ERR_LOCKED",
      `session ${runId} is running (pid ${holder.pid} on ${holder.host}): the follow-up is refused, as --if-running reject asks`,
      { runId, holder },
    );
  }
  if (ifRunning === "interrupt" && holder !== undefined && !pooled) {
    throw new RunStateError(
      "ERR_LOCKED",
      `session ${runId} is run outside the worker pool (pid ${holder.pid} on ${holder.host}), which no worker can interrupt: stop it there, or submit with --if-running queue to wait for it`,
      { runId, holder },
    );
  }
  await queue.enqueue(entryFor(summary.meta, summary.lastSeq, prompt), { interrupt: ifRunning === "interrupt" });
}

/**
 * Asks the worker pool to suspend a session at its next boundary, wherever it runs: a
 * request that waits behind the run in the queue and interrupts its claim, so the run ends
 * `suspended` (its journal as a SIGINT leaves it) and stays so until resumed or followed
 * up. ERR_NOT_FOUND when the pool has no run of it to suspend (at rest, or held outside the
 * pool), ERR_LOCKED when it is parked: a decision, not a suspend, is what it waits for.
 */
export async function requestSuspend({ store, queue }: Omit<SubmitRunOptions, "agent">, runId: string): Promise<void> {
  const summary = await readableSummary(store, runId);
  const entry = await queue.get(runId);
  if (entry === undefined) {
    const where = summary.holder === undefined ? "is not running" : `runs outside the worker pool (pid ${summary.holder.pid} on ${summary.holder.host})`;
    // No runId in the details: the CLI's advice for a session not found would mislead, as this one exists.
    throw new RunStateError("ERR_NOT_FOUND", `session ${runId} ${where}: the pool has no run of it to suspend (fisk-ai queue ls lists what it runs)`);
  }
  if (entry.state === "parked") {
    throw new RunStateError("ERR_LOCKED", `session ${runId} is parked, waiting for a decision: deny its calls to end the run instead`, { runId });
  }
  await queue.enqueue({ ...entryFor(summary.meta, summary.lastSeq, undefined), suspend: true }, { interrupt: true });
}

/** Queues an existing session as it is, to be driven on from its last record (an orphan taken by `worker --adopt`, a decided park). */
export async function queueSession({ store, queue }: Omit<SubmitRunOptions, "agent">, runId: string): Promise<void> {
  const summary = await readableSummary(store, runId);
  await queue.enqueue(entryFor(summary.meta, summary.lastSeq, undefined));
}

/** The session's summary, its meta read; ERR_CORRUPT naming why when the session cannot be read. */
async function readableSummary(store: Store, runId: string): Promise<RunSummary & { meta: MetaPayload }> {
  const summary = await store.summarize(runId);
  if (summary.meta === undefined) throw new RunStateError("ERR_CORRUPT", `session ${runId} cannot be read: ${summary.problem ?? "corrupt"}`, { runId });
  return summary as RunSummary & { meta: MetaPayload };
}

function entryFor(meta: MetaPayload, afterSeq: number, followUp: string | undefined): QueuedRun {
  return {
    runId: meta.run_id,
    queued: new Date().toISOString(),
    fingerprint: meta.fingerprint,
    version: meta.version,
    ...(meta.tenant === undefined ? {} : { tenant: meta.tenant }),
    ...(followUp === undefined ? {} : { followUp }),
    afterSeq,
    state: "queued",
  };
}
