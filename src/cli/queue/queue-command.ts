// `fisk-ai queue ls|rm`: the runs waiting for the pool, and who drives those running.
import { poolBackend } from "../../backends/pool-queue.js";
import { quarantineLine } from "../../queue/quarantine.js";
import { isValidRunId } from "../../runstate/records/run-id.js";
import type { QueuedRun, RunQueue, WaitingFollowUp } from "../../queue/run-queue.js";
import type { RunSummary, Store } from "../../runstate/store/store.js";
import { UsageError } from "../cli-errors.js";
import type { CommandIO } from "../context/command-io.js";
import { openSessionBackend, sessionStoreConfig, type StoreFlags } from "../context/stores.js";

export type QueueCommandName = "ls" | "rm";

export async function queueCommand(name: QueueCommandName, positionals: string[], flags: StoreFlags & { json?: boolean }, io: CommandIO): Promise<number> {
  if (name === "rm" && positionals.length === 0) throw new UsageError("queue rm needs the id of a queued session: fisk-ai queue ls lists them");
  if (name === "ls" && positionals.length > 0) throw new UsageError("queue ls takes no arguments");
  const { store, queue } = await poolBackend(openSessionBackend(await sessionStoreConfig(flags), io.stderr));
  try {
    if (name === "rm") {
      const { withdrawRun } = await import("../../pool/withdraw-run.js");
      for (const name of positionals) {
        // A name set aside always holds a `.`, which no run id does.
        if (!isValidRunId(name)) {
          await queue.discard(name);
          io.stdout.write(`removed ${name}\n`);
          continue;
        }
        const ended = await withdrawRun(store, queue, name);
        io.stdout.write(
          ended === "removed" ? `withdrew ${name}; it never ran, so its session is removed\n` : `withdrew ${name}; its session stays as it ended\n`,
        );
      }
      return 0;
    }
    await listQueue(queue, store, flags.json === true, io);
    return 0;
  } finally {
    await queue.close();
    await store.close();
  }
}

/** `queue ls`: each entry, then the follow-ups waiting behind it, then what is set aside (on stderr with --json). */
async function listQueue(queue: RunQueue, store: Store, json: boolean, io: CommandIO): Promise<void> {
  const rows = await Promise.all(
    (await queue.list()).map(async (entry) => ({
      entry,
      summary: await store.summarize(entry.runId).catch(() => undefined),
      behind: await queue.behind(entry.runId),
    })),
  );
  if (json) io.stdout.write(`${JSON.stringify(rows.map(jsonRow), null, 2)}\n`);
  else if (rows.length === 0) io.stdout.write("no session is queued\n");
  else {
    for (const { entry, summary, behind } of rows) {
      io.stdout.write(`${entry.runId}  ${entry.queued}  ${waitText(entry, summary)}\n`);
      // Each follow-up under the run it waits for, indented, in the order they will go.
      for (const waiting of behind) io.stdout.write(`  ${waiting.entry.runId}  ${waiting.entry.queued}  follow-up: ${behindText(waiting)}\n`);
    }
  }
  for (const entry of await queue.quarantined()) {
    if (json) io.stderr.write(`fisk-ai: quarantined ${entry.name}: ${quarantineLine(entry)}\n`);
    else io.stdout.write(`${entry.name}  quarantined: ${quarantineLine(entry)}\n`);
  }
}

/** A row of `queue ls --json`: the entry, where it is, who runs it, and the follow-ups behind it. */
function jsonRow({ entry, summary, behind }: { entry: QueuedRun; summary: RunSummary | undefined; behind: WaitingFollowUp[] }): object {
  return {
    ...entry,
    status: waitText(entry, summary),
    ...(summary?.holder === undefined ? {} : { worker: summary.holder }),
    behind: behind.map((waiting) => ({ ...waiting.entry, interrupts: waiting.interrupts, status: behindText(waiting) })),
  };
}

/** Why a follow-up waits: behind its run, or to interrupt it. */
function behindText({ entry, interrupts }: WaitingFollowUp): string {
  return interrupts ? `interrupts ${entry.runId} (suspends it at its next boundary, then runs)` : `waits behind ${entry.runId} (runs once it is at rest)`;
}

/** Where a queued run is: run by which worker, parked, or waiting for one. */
function waitText(entry: QueuedRun, summary: RunSummary | undefined): string {
  if (summary?.holder !== undefined) return `running: worker pid ${summary.holder.pid} on ${summary.holder.host} (up since ${summary.holder.started})`;
  if (entry.state === "parked") return "parked: waits for a decision (fisk-ai session pending)";
  return `queued: waits for a worker with its agent (model ${entry.fingerprint.model}, system and tools as submitted: a worker whose agent.yaml differs will not take it)${entry.followUp === undefined ? "" : ", with a follow-up"}`;
}
