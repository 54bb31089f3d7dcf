// `session rm` and `session verify`: commands over several ids, where one id's failure
// is reported on its own line and does not stop the others.
import { removeTree, resumingParent } from "../../../ledger/tree-removal.js";
import { verifyJournal } from "../../../runstate/views/journal-verify.js";
import type { RunSummary, Store } from "../../../runstate/store/store.js";
import { fold, type RunState } from "../../../runstate/views/fold.js";
import { uncountedDecisions } from "../../../trust/counted-decisions.js";
import { installationKeys, type InstallationKeys } from "../../../trust/installation-keys.js";
import { foreignReason } from "../../../trust/session-trust.js";
import { reportFailure } from "../../cli-errors.js";
import { counted } from "../../../transcript/counted.js";
import { EXIT } from "../../exit-codes.js";

interface Streams {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/**
 * Runs `each` for every id. The exit code is 0 when all went well, the failure's own code
 * when every id that failed failed alike (one unknown id: 6), and 1 when some of the ids
 * were dealt with and others failed for different reasons.
 */
async function forEachId(runIds: string[], streams: Streams, each: (runId: string) => Promise<number>): Promise<number> {
  const failures = new Set<number>();
  for (const runId of runIds) {
    let code: number;
    try {
      code = await each(runId);
    } catch (error) {
      code = reportFailure(error, streams.stderr);
    }
    if (code !== EXIT.completed) failures.add(code);
  }
  if (failures.size === 0) return EXIT.completed;
  return failures.size === 1 ? ([...failures][0] as number) : EXIT.error;
}

/**
 * Removes each session with its child sessions. A child alone is refused while its parent
 * can still resume into it, unless `force`; named with its parent, it goes with the parent.
 */
export async function removeSessions(store: Store, runIds: string[], streams: Streams, options: { force: boolean }): Promise<number> {
  const summaries = await store.list();
  // A session named with one of the sessions above it goes with that one.
  const parents = new Map(summaries.map((summary) => [summary.runId, summary.meta?.parent?.run_id]));
  const aboveNamed = (runId: string) => {
    const seen = new Set<string>();
    for (let up = parents.get(runId); up !== undefined && !seen.has(up); up = parents.get(up)) {
      if (runIds.includes(up)) return true;
      seen.add(up);
    }
    return false;
  };
  const removed = new Set<string>();
  return forEachId(runIds, streams, async (runId) => {
    if (removed.has(runId) || aboveNamed(runId)) return EXIT.completed;
    const summary = summaries.find((each) => each.runId === runId);
    const refusal = summary === undefined || options.force ? undefined : await refusedChild(store, summary);
    if (refusal !== undefined) {
      streams.stderr.write(`fisk-ai: ${refusal}\n`);
      return EXIT.childInUse;
    }
    const children = await removeTree(store, runId, summaries);
    for (const id of [runId, ...children]) removed.add(id);
    streams.stdout.write(`removed ${runId}${children.length === 0 ? "" : ` and its ${counted(children.length, "child session")}`}\n`);
    return EXIT.completed;
  });
}

/** Why a child may not be removed alone: its parent can still resume into it. */
async function refusedChild(store: Store, child: RunSummary): Promise<string | undefined> {
  const parent = await resumingParent(store, child);
  if (parent === undefined) return undefined;
  return `session ${child.runId} is a child of session ${parent.runId}, whose call ${parent.callId} can still resume into it: remove ${parent.runId} (which removes its children), or this child alone with --force`;
}

/** What of a sound session does not count here: a foreign meta, decisions that do not verify. */
function trustLines(state: RunState, keys: InstallationKeys): string[] {
  const foreign = foreignReason(state.meta, state.imported, keys);
  return [
    ...(foreign === undefined ? [] : [`foreign: ${foreign}`]),
    ...uncountedDecisions(state, keys.trusted).map(
      ({ seq, toolUseId, decision, reason }) =>
        `not counted: seq ${seq}: ${decision.decision} of call ${toolUseId} by ${decision.decided_by} does not count: ${reason}`,
    ),
  ];
}

export function verifySessions(store: Store, runIds: string[], streams: Streams): Promise<number> {
  return forEachId(runIds, streams, async (runId) => {
    const { records, problems } = verifyJournal(await store.readJournal(runId), runId);
    if (problems.length === 0) {
      streams.stdout.write(`${runId}: ok, ${records.length} records\n`);
      // Sound, and still not everything in it counts here: said apart, as it is no corruption.
      for (const line of trustLines(fold(records), installationKeys(store))) streams.stdout.write(`${runId}: ${line}\n`);
      return EXIT.completed;
    }
    for (const problem of problems) {
      streams.stdout.write(`${runId}: ${problem.kind}: ${problem.message}${problem.repairable ? " (repairable)" : ""}\n`);
    }
    return EXIT.corrupt;
  });
}
