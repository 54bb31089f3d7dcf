// Where a run's files are: `<id>.json`, the journal, beside `<id>.lock`, in the store's directory.
import { join } from "node:path";
import { assertRunId, isValidRunId } from "../../runstate/records/run-id.js";

const JOURNAL_SUFFIX = ".json";
const LOCK_SUFFIX = ".lock";

export class RunPaths {
  /**
   * What join(dir, name) puts before a run's file name, worked out once: a listing builds
   * two paths a session, and join normalizes the whole path each time.
   */
  readonly #prefix: string;

  constructor(dir: string) {
    this.#prefix = join(dir, "x").slice(0, -1);
  }

  journal(runId: string): string {
    assertRunId(runId);
    return this.#prefix + runId + JOURNAL_SUFFIX;
  }

  lock(runId: string): string {
    assertRunId(runId);
    return this.#prefix + runId + LOCK_SUFFIX;
  }
}

/** The runs with a journal among a directory's entries. */
export function journalIds(names: readonly string[]): string[] {
  return idsWithSuffix(names, JOURNAL_SUFFIX);
}

/** The runs with a lock file among a directory's entries. */
export function lockIds(names: readonly string[]): string[] {
  return idsWithSuffix(names, LOCK_SUFFIX);
}

function idsWithSuffix(names: readonly string[], suffix: string): string[] {
  return names
    .filter((name) => name.endsWith(suffix))
    .map((name) => name.slice(0, -suffix.length))
    .filter(isValidRunId);
}
