// A session's journal out of a store, into one, or copied under a new id (export, import,
// fork). All go through verification and the store's atomic import, so a half-written
// session is never visible; reading and writing files is the caller's.
import { RunStateError } from "../runstate/errors.js";
import { fold } from "../runstate/views/fold.js";
import { completeBytes, encodeRecordIn, lineEnd } from "../runstate/records/journal-codec.js";
import { verifyJournal, type JournalVerification } from "../runstate/views/journal-verify.js";
import { PROTOCOLS, type MetaRecord, type OriginKind } from "../runstate/records/records.js";
import { assertRunId, newRunId } from "../runstate/records/run-id.js";
import type { Store } from "../runstate/store/store.js";
import { thisUser } from "./this-user.js";
import { checkImportedChild } from "./import-checks.js";

/** Refuses a journal with any problem but a torn tail, naming the first one. */
function requireSound(label: string, verification: JournalVerification, allowTornTail: boolean): void {
  const problem = verification.problems.find((candidate) => !(allowTornTail && candidate.kind === "torn_tail"));
  if (problem !== undefined) {
    const code = problem.kind === "version" ? "ERR_VERSION" : "ERR_CORRUPT";
    throw new RunStateError(code, `${label}: ${problem.message}`, { line: problem.line });
  }
}

/** An exported session. */
export interface ExportedJournal {
  /** The session's complete records, as stored. */
  journal: Buffer;
  /** Whether a torn final write (never acknowledged) was left out. */
  tornTail: boolean;
}

/** The session's complete records, as stored; a torn final write is left out, and `tornTail` says so. */
export async function exportJournal(store: Store, runId: string): Promise<ExportedJournal> {
  const bytes = Buffer.from(await store.readJournal(runId));
  requireSound(`session ${runId}`, verifyJournal(bytes, runId), true);
  const journal = bytes.subarray(0, completeBytes(bytes));
  return { journal, tornTail: journal.length < bytes.length };
}

/** What importJournal takes besides the journal. */
export interface ImportOptions {
  /** The id of the copy; default the journal's own. */
  name?: string | undefined;
  /** The file it comes from, named in errors and in the import mark (default `-`, standard input). */
  from?: string | undefined;
  /** Who imports it, for the import mark (default this process's user@host). */
  by?: string | undefined;
}

/**
 * Imports an exported journal, under its own id or as a copy named `name`, and marks it
 * imported (who, from what file, when), so that a session whose meta does not verify here
 * is known as foreign (docs/security.md). Returns the id. ERR_EXISTS when the store holds that id already.
 */
export async function importJournal(store: Store, journal: Uint8Array, options: ImportOptions = {}): Promise<string> {
  const bytes = Buffer.from(journal.buffer, journal.byteOffset, journal.byteLength);
  const verification = verifyJournal(bytes);
  requireSound(options.from ?? "the journal", verification, false);
  const meta = verification.records[0] as MetaRecord;
  const runId = options.name ?? meta.meta.run_id;
  assertRunId(runId);
  await checkImportedChild(store, runId, meta.meta, verification.records, options.from ?? "the journal");
  // Under its own id the bytes go in as they are: it is the session itself, moved. Under a
  // new name it is a copy: the meta line changes, and an origin record says whose records
  // it holds, so the ledger counts them once, in that session.
  const copy = () => withOrigin(withNewMeta(bytes, { ...meta.meta, run_id: runId }), meta.meta, verification.records.length, "import");
  const kept = runId === meta.meta.run_id ? bytes : copy();
  const mark = encodeRecordIn(meta.meta.version, {
    seq: verification.records.length + (kept === bytes ? 1 : 2),
    protocol: PROTOCOLS.imported,
    imported: { by: options.by ?? thisUser(), file: options.from ?? "-", imported_at: new Date().toISOString() },
  });
  await store.importJournal(runId, Buffer.concat([kept, Buffer.from(mark)]));
  return runId;
}

/** A fork made. */
export interface Fork {
  /** The new session's id. */
  forkId: string;
  /** The last seq it copied. */
  at: number;
}

/**
 * Copies session `runId` through seq `at` (its last, by default) as a new session named
 * `name` (a new id, by default). ERR_NO_SEQ when `at` is not one of its seqs (`expected`
 * holds the range). A fork of a child session is a session of its own, no child of its
 * parent: no parent resumes into it, counts its tokens or removes it. Its origin record says
 * which child it was forked from; its meta keeps the child's version, since its journal may
 * hold what only a reader of child sessions reads (a park on a child of its own).
 */
export async function forkSession(store: Store, runId: string, options: { at?: number | undefined; name?: string | undefined } = {}): Promise<Fork> {
  const bytes = Buffer.from(await store.readJournal(runId));
  const verification = verifyJournal(bytes, runId);
  requireSound(`session ${runId}`, verification, true);
  const lastSeq = verification.records.length;
  const at = options.at ?? lastSeq;
  if (!Number.isInteger(at) || at < 1 || at > lastSeq) {
    throw new RunStateError("ERR_NO_SEQ", `session ${runId} has no seq ${at} to fork at: its seqs run from 1 to ${lastSeq}`, {
      runId,
      expected: `1 to ${lastSeq}`,
    });
  }
  const forkId = options.name ?? newRunId();
  assertRunId(forkId);
  const meta = (verification.records[0] as MetaRecord).meta;
  const kept = bytes.subarray(0, lineEnd(bytes, at));
  const { parent: _child, ...own } = meta;
  const fork = withOrigin(withNewMeta(kept, { ...own, run_id: forkId, created: new Date().toISOString() }), meta, at, "fork");
  // Cut where the run had not stopped, the fork would read `open`, a run whose process died.
  // At rest (no call unanswered) it is a session to resume, so it says so: suspended. Cut
  // with calls unanswered it stays open, so a resume treats them as a crash would: they may
  // have run in the original.
  const state = fold(verification.records.slice(0, at));
  const unanswered = state.pending?.toolUses.some((use) => !state.pending?.answered.has(use.id)) ?? false;
  const suspended = encodeRecordIn(meta.version, {
    seq: at + 2,
    protocol: PROTOCOLS.terminal,
    terminal: { reason: "suspended", message: `forked from ${runId} at seq ${at}` },
  });
  await store.importJournal(forkId, state.terminal !== undefined || unanswered ? fork : Buffer.concat([fork, Buffer.from(suspended)]));
  return { forkId, at };
}

/** The journal of a copy with an origin record after its `through` copied records, naming the session they came from. */
function withOrigin(bytes: Buffer, from: MetaRecord["meta"], through: number, kind: OriginKind): Buffer {
  const origin = encodeRecordIn(from.version, { seq: through + 1, protocol: PROTOCOLS.origin, origin: { run_id: from.run_id, through_seq: through, kind } });
  return Buffer.concat([bytes.subarray(0, completeBytes(bytes)), Buffer.from(origin)]);
}

/** The journal with its first line replaced by a new meta record. */
function withNewMeta(bytes: Buffer, meta: MetaRecord["meta"]): Buffer {
  const rest = bytes.subarray(bytes.indexOf(0x0a) + 1);
  return Buffer.concat([Buffer.from(encodeRecordIn(meta.version, { seq: 1, protocol: PROTOCOLS.meta, meta })), rest]);
}
