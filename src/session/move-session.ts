// Moving a session to another store: copied there, and marked in the store it leaves so
// that it goes on in one place only. The order makes a kill at any step safe (never two
// copies that resume, never none): the mark goes first, and counts only once the other
// store holds the session, which its atomic import makes true in one step. A move cut
// short between the two leaves the original the one to resume, and running the move
// again finishes it. A move back finds the copy the session left behind there, marked
// moved: it is removed first, before anything else, so the original is the one to resume
// until the new copy is in.
import { RunStateError, isRunStateError, movedError } from "../runstate/errors.js";
import { fold } from "../runstate/views/fold.js";
import { lineEnd } from "../runstate/records/journal-codec.js";
import { PROTOCOLS } from "../runstate/records/records.js";
import type { Store } from "../runstate/store/store.js";
import { recordsOf } from "../runstate/store/records-of.js";

/** Where a move has got to: called after each durable step (tests kill the process there). */
export type MoveStep = "cleared" | "marked" | "copied";

/** What moveSession did: `moved`, or `finished` a move an earlier one began, or found it `done` already. */
export type MoveOutcome = "moved" | "finished" | "done";

/**
 * Moves the run `runId` from `from` to `to`, where `where` names `to` for the record (a
 * `nats://` URL or a file store's absolute directory). The run is held in `from` for the
 * whole move, so nothing takes it further meanwhile (ERR_LOCKED while a writer holds it).
 * ERR_EXISTS when `to` holds another session of that id; ERR_MOVED when it was moved to
 * another store already.
 */
export async function moveSession(from: Store, to: Store, runId: string, where: string, step: (step: MoveStep) => void = () => {}): Promise<MoveOutcome> {
  const journal = await from.open(runId);
  try {
    const records = await journal.records();
    const state = fold(records);
    if (state.moved !== undefined && state.moved.to !== where) throw movedError(runId, state.moved);
    const bytes = await from.readJournal(runId);
    // The session as it stood before the move's mark: what the other store gets, byte for byte.
    const markSeq = state.moved === undefined ? journal.lastSeq + 1 : (records.findLast((record) => record.protocol === PROTOCOLS.moved)?.seq as number);
    const copy = bytes.subarray(0, lineEnd(bytes, markSeq - 1));
    let there = await journalIn(to, runId);
    // Only before this store's mark: once marked, the copy there may have gone on and moved on.
    if (there !== undefined && state.moved === undefined && (await leftBehind(to, runId, there, copy))) {
      await to.delete(runId);
      there = undefined;
      step("cleared");
    }
    if (there !== undefined && !startsWith(there, copy)) {
      throw new RunStateError("ERR_EXISTS", `${where} already holds another session ${runId}: nothing was moved`, { runId });
    }
    if (state.moved === undefined) {
      await journal.append(markSeq, { protocol: PROTOCOLS.moved, moved: { to: where, moved_at: new Date().toISOString() } });
      step("marked");
    }
    if (there !== undefined) return state.moved === undefined ? "moved" : "done";
    await to.importJournal(runId, copy);
    step("copied");
    return state.moved === undefined ? "moved" : "finished";
  } finally {
    await journal.close();
  }
}

/** Whether `store` holds the run `runId`: what makes a move count (see MovedPayload). */
export async function holdsSession(store: Store, runId: string): Promise<boolean> {
  try {
    await store.summarize(runId);
    return true;
  } catch (error) {
    if (isRunStateError(error, "ERR_NOT_FOUND")) return false;
    throw error;
  }
}

/**
 * Whether the other store's copy is the one this session left there when it was moved away:
 * marked moved, and what it held before its mark is where the session's journal began.
 */
async function leftBehind(store: Store, runId: string, bytes: Uint8Array, copy: Uint8Array): Promise<boolean> {
  const records = await recordsOf(store, runId);
  if (fold(records).moved === undefined) return false;
  const markSeq = records.findLast((record) => record.protocol === PROTOCOLS.moved)?.seq as number;
  return startsWith(copy, bytes.subarray(0, lineEnd(bytes, markSeq - 1)));
}

async function journalIn(store: Store, runId: string): Promise<Uint8Array | undefined> {
  try {
    return await store.readJournal(runId);
  } catch (error) {
    if (isRunStateError(error, "ERR_NOT_FOUND")) return undefined;
    throw error;
  }
}

/** The other store's copy may have gone on since (it was resumed there): it starts with what was moved. */
function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  return bytes.length >= prefix.length && Buffer.from(bytes.buffer, bytes.byteOffset, prefix.length).equals(prefix);
}
