// `fisk-ai queue ls`: the runs waiting for the pool, and who drives those running.
import { isAbsolute, relative } from "node:path";
import type { QueuedRun, RunQueue, WaitingFollowUp } from "../../queue/run-queue.js";
import type { RunSummary, Store } from "../../runstate/store/store.js";
import { UsageError } from "../cli-errors.js";
import type { CommandIO } from "../context/command-io.js";
import type { Options } from "../context/options.js";
import type { QueueContext } from "../context/queue-context.js";
import { EXIT } from "../exit-codes.js";

export const options = {
  json: { flag: "--json", help: "one JSON array of the entries" },
} as const satisfies Options;

export async function run({ positionals, values, io, poolBackend }: QueueContext<typeof options>): Promise<number> {
  if (positionals.length > 0) throw new UsageError("queue ls takes no arguments");
  const { store, queue } = await poolBackend();
  const { quarantineLine } = await import("../../queue/quarantine.js");
  await listQueue(queue, store, values.json === true, io, quarantineLine);
  return EXIT.completed;
}

/** `queue ls`: each entry, then the follow-ups waiting behind it, then what is set aside (on stderr with --json). */
async function listQueue(
  queue: RunQueue,
  store: Store,
  json: boolean,
  io: CommandIO,
  quarantineLine: typeof import("../../queue/quarantine.js").quarantineLine,
): Promise<void> {
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
      for (const waiting of behind) {
        io.stdout.write(
          `  ${waiting.entry.runId}  ${waiting.entry.queued}  ${waiting.entry.suspend === true ? "suspend" : "follow-up"}: ${behindText(waiting)}\n`,
        );
      }
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

/** What waits behind a run and why: a follow-up, behind it or to interrupt it, or a request to suspend it. */
function behindText({ entry, interrupts }: WaitingFollowUp): string {
  if (entry.suspend === true) return `suspends ${entry.runId} at its next boundary`;
  return interrupts ? `interrupts ${entry.runId} (suspends it at its next boundary, then runs)` : `waits behind ${entry.runId} (runs once it is at rest)`;
}

/** Where a queued run is: run by which worker, parked, or waiting for one. */
function waitText(entry: QueuedRun, summary: RunSummary | undefined): string {
  if (summary?.holder !== undefined) return `running: worker pid ${summary.holder.pid} on ${summary.holder.host} (up since ${summary.holder.started})`;
  if (entry.state === "parked") return "parked: waits for a decision (fisk-ai session pending)";
  const followUp = entry.followUp === undefined ? "" : ", with a follow-up";
  return `queued: waits for a worker with ${agentFileOf(summary)} (model ${entry.fingerprint.model}, system and tools as submitted: a worker whose agent differs will not take it)${followUp}`;
}

/** The agent file the session was submitted with (its meta's), from here when it is below this directory. */
function agentFileOf(summary: RunSummary | undefined): string {
  const config = summary?.meta?.config;
  if (config === undefined) return "its agent";
  const shown = relative(process.cwd(), config);
  return shown.startsWith("..") || isAbsolute(shown) ? config : shown;
}
