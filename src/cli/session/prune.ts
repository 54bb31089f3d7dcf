// `fisk-ai session prune`: remove the sessions matching every filter given.
import type { Flags, Options } from "../context/options.js";
import type { Retention } from "../../config/agent-config.js";
import type { RunStatus } from "../../runstate/store/store.js";
import type { PruneFilters } from "../../session/prune-plan.js";
import { UsageError } from "../cli-errors.js";
import { EXIT } from "../exit-codes.js";
import { retentionFrom, type SessionContext } from "../context/session-context.js";

export const options = {
  olderThan: { flag: "--older-than <AGE>", help: "last written more than AGE ago: 30m, 12h, 7d, 2w" },
  status: { flag: "--status <LIST>", help: "in one of these statuses, comma-separated" },
  keepLast: { flag: "--keep-last <N>", help: "not among the N most recently written sessions" },
  dryRun: { flag: "--dry-run", help: "print what would be removed and its bytes, and remove nothing" },
  json: { flag: "--json", help: "what was (or would be) removed, as JSON" },
} as const satisfies Options;

export async function run({ positionals, values, io, sessionStore }: SessionContext<typeof options>): Promise<number> {
  if (positionals.length > 0) throw new UsageError("session prune takes no arguments: say what to remove with --older-than, --status and --keep-last");
  const [{ pruneSessions }, { writePruneResult }, { reportFailure }, age, { PRUNABLE_STATUSES }] = await Promise.all([
    import("../../session/prune-sessions.js"),
    import("../text/session-prune.js"),
    import("../cli-errors.js"),
    import("../../config/age.js"),
    import("../../runstate/store/store.js"),
  ]);
  const filters = pruneFilters(values, await retentionFrom(values), { ...age, PRUNABLE_STATUSES });
  const result = await pruneSessions(await sessionStore(values), filters, { dryRun: values.dryRun === true });
  const failures = new Set(result.failed.map(({ error }) => reportFailure(error, io.stderr)));
  writePruneResult(result, { dryRun: values.dryRun === true, json: values.json === true }, io.stdout);
  if (failures.size === 0) return EXIT.completed;
  return failures.size === 1 ? ([...failures][0] as number) : EXIT.error;
}

/** The filters the flags give, else the retention block's; a prune with neither is refused. */
/** The age parser and the statuses come loaded by the handler, so that completion, which loads this module, loads neither. */
function pruneFilters(
  flags: Flags<typeof options>,
  retention: Retention | undefined,
  { ageMs, AGE_FORM, PRUNABLE_STATUSES }: typeof import("../../config/age.js") & { PRUNABLE_STATUSES: readonly string[] },
): PruneFilters {
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
  const unknown = statuses?.find((status) => !PRUNABLE_STATUSES.includes(status));
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
