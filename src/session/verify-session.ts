// Checking a stored session: every record of its journal, and what of a sound one does not
// count here (a foreign meta, decisions whose signatures do not verify).
import type { Store } from "../runstate/store/store.js";
import { journalPieces } from "../runstate/store/journal-pieces.js";
import { JournalVerifier, type JournalProblem } from "../runstate/views/journal-verify.js";
import { uncountedDecisions, type UncountedDecision } from "../trust/counted-decisions.js";
import { installationKeys } from "../trust/installation-keys.js";
import { foreignReason } from "../trust/session-trust.js";

/** What verifySession found. */
export interface SessionCheck {
  /** The records read. */
  records: number;
  /** What is wrong with the journal; none when it is sound. */
  problems: JournalProblem[];
  /** A sound session's: why it is foreign here (docs/security.md), else undefined. */
  foreign: string | undefined;
  /** A sound session's decisions that do not count here, and why. */
  uncounted: UncountedDecision[];
}

/**
 * Reads and checks every record of the session `runId` of `store` (ERR_NOT_FOUND when there
 * is none), a piece at a time: memory holds a piece, a line and a checking fold, never the journal.
 */
export async function verifySession(store: Store, runId: string, options: { env?: NodeJS.ProcessEnv } = {}): Promise<SessionCheck> {
  const verifier = new JournalVerifier(runId);
  for await (const piece of journalPieces(store, runId)) verifier.push(piece);
  const { records, problems, state } = verifier.finish();
  if (problems.length > 0 || state === undefined) return { records, problems, foreign: undefined, uncounted: [] };
  const keys = installationKeys(store, { env: options.env ?? process.env });
  return { records, problems, foreign: foreignReason(state.meta, state.imported, keys), uncounted: uncountedDecisions(state, keys.trusted) };
}
