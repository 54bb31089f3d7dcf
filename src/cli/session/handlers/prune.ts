// `fisk-ai session prune`: removes the sessions matching every filter given (or, with no
// filter, agent.yaml's session.retention), never one that can still go on unless its
// status is named. Nothing is removed but by this command: fisk-ai never prunes by itself.
import { ageMs, AGE_FORM } from "../../../config/age.js";
import type { Retention } from "../../../config/agent-config.js";
import { planPrune, PROTECTED_STATUSES, type PruneFilters } from "../../../session/prune-plan.js";
import { PRUNABLE_STATUSES, type RunStatus, type RunSummary, type Store } from "../../../runstate/store/store.js";
import { reportFailure, UsageError } from "../../cli-errors.js";
import { EXIT } from "../../exit-codes.js";
import { bytesText, table } from "../../text/ledger.js";
import { nameText } from "../../../transcript/session-name.js";
import { counted } from "../../../transcript/counted.js";

/** prune's flags as commander gives them. */
export interface PruneFlags {
  olderThan?: string;
  status?: string;
  keepLast?: string;
  dryRun?: boolean;
  json?: boolean;
}

/** The filters the flags give, else the retention block's; a prune with neither is refused. */
export function pruneFilters(flags: PruneFlags, retention: Retention | undefined): PruneFilters {
  const given = flags.olderThan !== undefined || flags.status !== undefined || flags.keepLast !== undefined;
  if (!given && retention === undefined) {
    throw new UsageError(
      "session prune removes nothing without a filter: give --older-than AGE, --status LIST or --keep-last N, or set session.retention in agent.yaml",
    );
  }
  const olderThan = given ? flags.olderThan : retention?.older_than;
  const olderThanMs = olderThan === undefined ? undefined : ageMs(olderThan);
  if (olderThan !== undefined && olderThanMs === undefined) throw new UsageError(`--older-than ${JSON.stringify(olderThan)}: expected ${AGE_FORM}`);
  const statuses = given ? flags.status?.split(",").map((status) => status.trim()) : retention?.status;
  const unknown = statuses?.find((status) => !(PRUNABLE_STATUSES as readonly string[]).includes(status));
  if (unknown !== undefined) throw new UsageError(`--status: '${unknown}' is not a status; give a comma-separated list of ${PRUNABLE_STATUSES.join(", ")}`);
  const keepLast = given ? (flags.keepLast === undefined ? undefined : Number(flags.keepLast)) : retention?.keep_last;
  if (keepLast !== undefined && (!Number.isInteger(keepLast) || keepLast < 0))
    throw new UsageError(`--keep-last takes a number of sessions, 0 or more, not '${flags.keepLast}'`);
  return {
    ...(olderThanMs === undefined ? {} : { olderThanMs }),
    ...(statuses === undefined ? {} : { statuses: statuses as RunStatus[] }),
    ...(keepLast === undefined ? {} : { keepLast }),
  };
}

/**
 * Plans the prune over the store's summaries, then (unless a dry run) removes each
 * session; prints what goes and the bytes, which for a real prune are the bytes freed:
 * a session that could not be removed is reported and not counted.
 */
export async function pruneSessions(
  store: Store,
  filters: PruneFilters,
  options: { dryRun: boolean; json: boolean; now: number },
  streams: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
): Promise<number> {
  const plan = planPrune(await store.list(), filters, options.now);
  const removed: RunSummary[] = [];
  const failures = new Set<number>();
  for (const summary of plan.remove) {
    if (options.dryRun) {
      removed.push(summary);
      continue;
    }
    try {
      await store.delete(summary.runId);
      removed.push(summary);
    } catch (error) {
      failures.add(reportFailure(error, streams.stderr));
    }
  }
  const bytes = removed.reduce((sum, summary) => sum + (summary.digest?.bytes ?? 0), 0);
  if (options.json) {
    const rows = removed.map((summary) => ({
      id: summary.runId,
      status: summary.status,
      bytes: summary.digest?.bytes ?? 0,
      title: summary.digest?.title ?? null,
      updated: summary.updated,
    }));
    const kept = plan.protected.map((summary) => ({ id: summary.runId, status: summary.status }));
    streams.stdout.write(`${JSON.stringify({ dry_run: options.dryRun, removed: rows, bytes, protected: kept }, null, 2)}\n`);
  } else {
    const verb = options.dryRun ? "would remove" : "removed";
    if (removed.length > 0)
      streams.stdout.write(table(removed.map((summary) => [verb, summary.runId, summary.status, bytesText(summary.digest?.bytes ?? 0), nameText(summary)])));
    streams.stdout.write(`${verb} ${counted(removed.length, "session")}, ${bytes} bytes (${bytesText(bytes)})${options.dryRun ? "" : " freed"}\n`);
    if (plan.protected.length > 0) {
      // A tree is kept whole for the one session of it that can go on: its status is the one to name.
      const statuses = [...new Set(plan.protected.map((summary) => summary.status).filter((status) => PROTECTED_STATUSES.includes(status)))].join(",");
      streams.stdout.write(
        `kept ${plan.protected.length} matching sessions that can still go on or be repaired (${statuses}): name their status in --status to remove them\n`,
      );
    }
  }
  if (failures.size === 0) return EXIT.completed;
  return failures.size === 1 ? ([...failures][0] as number) : EXIT.error;
}
