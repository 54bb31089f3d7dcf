// A session's journal out of a store, into one, or copied under a new id (export, import,
// fork). All go through verification and the store's atomic import, so a half-written
// session is never visible; reading and writing files is the caller's.
import { RunStateError } from "../runstate/errors.js";
import { fold, type FoldState } from "../runstate/views/fold.js";
import { createHash } from "node:crypto";
import { encodeRecordIn, lineEnd } from "../runstate/records/journal-codec.js";
import { JournalVerifier, verifyJournal, type JournalProblem, type StreamedVerification } from "../runstate/views/journal-verify.js";
import { PROTOCOLS, type JournalRecord, type MetaPayload, type MetaRecord, type OriginKind } from "../runstate/records/records.js";
import { journalPieces } from "../runstate/store/journal-pieces.js";
import { assertRunId, newRunId } from "../runstate/records/run-id.js";
import type { Store } from "../runstate/store/store.js";
import { thisUser } from "./this-user.js";
import { checkImportedChild, recordTokens } from "./import-checks.js";

/** Refuses a journal with any problem but a torn tail, naming the first one. */
function requireSound(label: string, problems: readonly JournalProblem[], allowTornTail: boolean): void {
  const problem = problems.find((candidate) => !(allowTornTail && candidate.kind === "torn_tail"));
  if (problem !== undefined) {
    const code = problem.kind === "version" ? "ERR_VERSION" : "ERR_CORRUPT";
    throw new RunStateError(code, `${label}: ${problem.message}`, { line: problem.line });
  }
}

/** A journal's bytes to import: whole, or a function that reads them in pieces, each time from the start (a file). */
export type JournalSource = Uint8Array | (() => AsyncIterable<Uint8Array>);

/** A journal checked as it is read: what the verifier found, the bytes read, and the SHA-256 of its complete lines. */
async function verifiedPieces(
  pieces: AsyncIterable<Uint8Array>,
  runId: string | undefined,
  onRecord?: (record: JournalRecord) => void,
): Promise<StreamedVerification & { length: number; sha256: string }> {
  const verifier = new JournalVerifier(runId, onRecord, { hash: true });
  let length = 0;
  for await (const piece of pieces) {
    length += piece.byteLength;
    verifier.push(piece);
  }
  const { sha256, ...verification } = verifier.finish();
  return { ...verification, length, sha256: sha256 as string };
}

/**
 * The first `length` bytes of `pieces`, read again after they were verified: the same bytes,
 * or ERR_CORRUPT once the last is read (so an import of them is not committed). A journal may
 * grow between the readings; what was verified does not change unless someone rewrote it.
 */
async function* sameAsVerified(pieces: AsyncIterable<Uint8Array>, length: number, sha256: string, label: string): AsyncIterable<Uint8Array> {
  const hash = createHash("sha256");
  let read = 0;
  for await (const piece of pieces) {
    const kept = piece.subarray(0, Math.min(piece.byteLength, length - read));
    read += kept.byteLength;
    hash.update(kept);
    yield kept;
    if (read === length) break;
  }
  if (read < length || hash.digest("hex") !== sha256) {
    throw new RunStateError("ERR_CORRUPT", `${label} changed while it was read: it is not what was verified`);
  }
}

/** An exported session. */
export interface ExportedJournal {
  /**
   * The session's complete records, as stored and verified, read from the store as they are
   * taken (a piece at a time, never the whole journal); each call reads them again. ERR_CORRUPT
   * at the end when they are no longer what was verified.
   */
  pieces: () => AsyncIterable<Uint8Array>;
  /** Their bytes. */
  length: number;
  /** Whether a torn final write (never acknowledged) was left out. */
  tornTail: boolean;
}

/**
 * Verifies the session's journal, reading it a piece at a time, and gives its complete
 * records to read; a torn final write is left out, and `tornTail` says so.
 */
export async function exportJournal(store: Store, runId: string): Promise<ExportedJournal> {
  const label = `session ${runId}`;
  const verified = await verifiedPieces(journalPieces(store, runId), runId);
  requireSound(label, verified.problems, true);
  const length = verified.completeLength;
  return { pieces: () => sameAsVerified(journalPieces(store, runId), length, verified.sha256, label), length, tornTail: length < verified.length };
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
 * The journal is read twice, a piece at a time: once to verify it, once into the store, which
 * commits it only if the second reading is what the first verified.
 */
export async function importJournal(store: Store, journal: JournalSource, options: ImportOptions = {}): Promise<string> {
  const label = options.from ?? "the journal";
  const read = typeof journal === "function" ? journal : () => piecesOf(journal);
  let tokens = 0;
  const verified = await verifiedPieces(read(), undefined, (record) => (tokens += recordTokens(record)));
  requireSound(label, verified.problems, false);
  const meta = (verified.state as FoldState).meta;
  const runId = options.name ?? meta.run_id;
  assertRunId(runId);
  await checkImportedChild(store, runId, meta, tokens, label);
  const body = sameAsVerified(read(), verified.length, verified.sha256, label);
  // Under its own id the bytes go in as they are: it is the session itself, moved. Under a
  // new name it is a copy: the meta line changes, and an origin record says whose records
  // it holds, so the ledger counts them once, in that session.
  const renamed = runId !== meta.run_id;
  const mark = encodeRecordIn(meta.version, {
    seq: verified.records + (renamed ? 2 : 1),
    protocol: PROTOCOLS.imported,
    imported: { by: options.by ?? thisUser(), file: options.from ?? "-", imported_at: new Date().toISOString() },
  });
  const kept = renamed ? copyOf(body, { ...meta, run_id: runId }, meta, verified.records, "import") : body;
  await store.importJournal(runId, followedBy(kept, mark));
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
  requireSound(`session ${runId}`, verification.problems, true);
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
  const fork = copyOf(piecesOf(kept), { ...own, run_id: forkId, created: new Date().toISOString() }, meta, at, "fork");
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
  await store.importJournal(forkId, state.terminal !== undefined || unanswered ? fork : followedBy(fork, suspended));
  return { forkId, at };
}

/**
 * The journal of a copy: `journal`'s complete lines with the first replaced by a new meta
 * record, then an origin record after its `through` copied records, naming the session they came from.
 */
async function* copyOf(journal: AsyncIterable<Uint8Array>, meta: MetaPayload, from: MetaPayload, through: number, kind: OriginKind): AsyncIterable<Uint8Array> {
  yield Buffer.from(encodeRecordIn(meta.version, { seq: 1, protocol: PROTOCOLS.meta, meta }));
  let inFirstLine = true;
  for await (const piece of journal) {
    if (!inFirstLine) {
      yield piece;
      continue;
    }
    const newline = piece.indexOf(0x0a);
    if (newline === -1) continue;
    inFirstLine = false;
    yield piece.subarray(newline + 1);
  }
  yield Buffer.from(
    encodeRecordIn(from.version, { seq: through + 1, protocol: PROTOCOLS.origin, origin: { run_id: from.run_id, through_seq: through, kind } }),
  );
}

/** `journal`'s pieces, then `line`. */
async function* followedBy(journal: AsyncIterable<Uint8Array>, line: string): AsyncIterable<Uint8Array> {
  yield* journal;
  yield Buffer.from(line);
}

/** Bytes as pieces: one. */
async function* piecesOf(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}
