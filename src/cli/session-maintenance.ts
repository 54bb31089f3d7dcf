// `session rm` and `session verify`: commands over several ids, where one id's failure
// is reported on its own line and does not stop the others.
import { verifyJournal } from "../runstate/views/journal-verify.js";
import type { Store } from "../runstate/store/store.js";
import { reportFailure } from "./cli-errors.js";
import { EXIT } from "./exit-codes.js";

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

export function removeSessions(store: Store, runIds: string[], streams: Streams): Promise<number> {
  return forEachId(runIds, streams, async (runId) => {
    await store.delete(runId);
    streams.stdout.write(`removed ${runId}\n`);
    return EXIT.completed;
  });
}

export function verifySessions(store: Store, runIds: string[], streams: Streams): Promise<number> {
  return forEachId(runIds, streams, async (runId) => {
    const { records, problems } = verifyJournal(await store.readJournal(runId), runId);
    if (problems.length === 0) {
      streams.stdout.write(`${runId}: ok, ${records.length} records\n`);
      return EXIT.completed;
    }
    for (const problem of problems) {
      streams.stdout.write(`${runId}: ${problem.kind}: ${problem.message}${problem.repairable ? " (repairable)" : ""}\n`);
    }
    return EXIT.corrupt;
  });
}

