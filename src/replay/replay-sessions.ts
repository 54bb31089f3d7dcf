// Many sessions replayed against one agent, `concurrency` at a time: each replay is its own
// loop in memory with its own cursor, so they share nothing but the provider. Reports come
// back in the order the ids were given, whatever order the replays finish in.
import type { Store } from "../runstate/store/store.js";
import type { ReplayReport } from "./replay-report.js";
import { replaySession, type ReplayAgent, type ReplayOptions } from "./replay-session.js";

/** replaySession's options, and how many sessions are replayed at once. */
export interface ReplaySessionsOptions extends ReplayOptions {
  /** Replays at once (default 1). */
  concurrency?: number;
  /** Told each report as its replay ends. */
  onReport?: (report: ReplayReport) => void;
}

/** Replays each session `runIds` names in `store` against `agent`. */
export async function replaySessions(
  store: Store,
  runIds: readonly string[],
  agent: ReplayAgent,
  options: ReplaySessionsOptions = {},
): Promise<ReplayReport[]> {
  const reports: ReplayReport[] = new Array(runIds.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let index = next++; index < runIds.length; index = next++) {
      const report = await replaySession({ store, runId: runIds[index] as string }, agent, options);
      reports[index] = report;
      options.onReport?.(report);
    }
  };
  const width = Math.max(1, Math.min(options.concurrency ?? 1, runIds.length));
  await Promise.all(Array.from({ length: width }, worker));
  return reports;
}
