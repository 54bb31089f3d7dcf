// The storage seam (docs/backends.md): two small async interfaces. Every backend keeps
// the rules in store-contract.ts and passes the one conformance suite (fisk-ai/conformance).
import type { RunHolder } from "./run-holder.js";
import type { RunDigest } from "../views/run-digest.js";
import type { RunState } from "../views/fold.js";
import type { JournalRecord, MetaPayload, RecordEntry, TerminalReason } from "../records/records.js";

/** A journal's bytes: whole, or in pieces in order, cut anywhere. */
export type JournalBytes = Uint8Array | AsyncIterable<Uint8Array>;

/** An open, locked journal: the one writer of a run. */
export interface Journal {
  /** The run this journal writes. */
  readonly runId: string;
  /** The highest seq accepted so far (durable once the append that took it resolves). */
  readonly lastSeq: number;
  /**
   * Appends the record at `seq`, resolving once its bytes are durable. A seq at or
   * below `lastSeq` is a no-op (a crash-retry); one that skips ahead fails ERR_SEQ_GAP.
   */
  append(seq: number, entry: RecordEntry): Promise<void>;
  /** Every record of the run, in seq order, including those appended through this journal. */
  records(): Promise<JournalRecord[]>;
  /** Waits for appends in flight, then releases the lock. */
  close(): Promise<void>;
}

/** How `list()` sees one run: read from its first and last records only. */
export type RunStatus = TerminalReason | "open" | "moved" | "running" | "corrupt";

/** Every status a run can be listed with: the ones a prune may be told to remove. */
export const PRUNABLE_STATUSES = [
  "completed",
  "error",
  "budget",
  "max_iterations",
  "suspended",
  "awaiting_approval",
  "open",
  "moved",
  "running",
  "corrupt",
] as const satisfies readonly RunStatus[];

/** One run as `list()` and `summarize()` see it, without folding its journal. */
export interface RunSummary {
  /** The run's id. */
  runId: string;
  /**
   * `running` while a live writer holds the run; else the terminal reason, `open` when
   * the journal ends without one (the writer crashed), or `moved` (see MovedPayload).
   */
  status: RunStatus;
  /** Who holds the run open: set only while `status` is `running`. */
  holder?: RunHolder;
  /** The meta record's payload; undefined only for a `corrupt` run. */
  meta: MetaPayload | undefined;
  /** The seq of the journal's last complete record; 0 for a `corrupt` run. */
  lastSeq: number;
  /** When the journal was last written, RFC 3339. */
  updated: string;
  /** Why a `corrupt` run could not be summarized. */
  problem?: string;
  /**
   * Its title, origin, bytes and tokens, which every record contributes to; kept beside the
   * summary and advanced as records are appended. Undefined for a `corrupt` run, and from a
   * store that does not keep it (then read the journal: digestOf).
   */
  digest?: RunDigest;
}

/**
 * Where runs are kept: a backend (FileStore, MemoryStore, JetStream, or one of your own
 * that passes `fisk-ai/conformance`). Its methods fail with a RunStateError whose code
 * says why; an id that is not a valid runId is ERR_INVALID_ID.
 */
export interface Store {
  /**
   * Who can write the store, for what may be trusted without a shared key (docs/security.md):
   * `user`, one user's own files; `process`, this process alone; absent, anyone the backend lets in.
   */
  readonly writers?: "user" | "process";
  /** Writes `meta` as seq 1 and returns the locked journal; ERR_EXISTS if the run exists. */
  create(runId: string, meta: MetaPayload): Promise<Journal>;
  /** Locks an existing run for appending: ERR_NOT_FOUND, ERR_LOCKED. */
  open(runId: string): Promise<Journal>;
  /** Reads and folds a run without locking it. */
  load(runId: string): Promise<RunState>;
  /** Summarizes every run without locking any, from its first and last records. */
  list(): Promise<RunSummary[]>;
  /**
   * One run's summary, as list() gives it: ERR_NOT_FOUND. With `{ digest: false }` the
   * caller needs no digest, and a store may leave it out to read less (a file store then
   * reads the journal's ends only, not every record): its status and lastSeq are the same.
   */
  summarize(runId: string, options?: { digest?: boolean }): Promise<RunSummary>;
  /**
   * The run's records from seq `fromSeq` (default 1) on, in seq order, each decoded and
   * checked as `load` checks a line, read as the caller takes them, without locking: a
   * journal of any size is read in bounded memory. It ends at the last complete record
   * stored when the reading gets there; a record appended later is for a second call from
   * the seq after. Does not fold: a record that does not follow from those before it is
   * not refused here. ERR_NOT_FOUND, ERR_CORRUPT (a line that is not a record, a seq out
   * of order), ERR_VERSION.
   */
  readRecords(runId: string, fromSeq?: number): AsyncIterable<JournalRecord>;
  /** The journal's bytes as stored (JSON Lines), without locking. */
  readJournal(runId: string): Promise<Uint8Array>;
  /**
   * Optional: what readJournal gives, in pieces as they are read (cut anywhere, not at
   * lines), so that a reader of a large journal (verify, export) holds a piece, never the
   * journal. Without it, readers take readJournal's bytes as one piece (journalPieces).
   */
  readJournalPieces?(runId: string): AsyncIterable<Uint8Array>;
  /**
   * Writes a whole journal as a new run, durably and atomically: it is never visible
   * half-written. Refuses a journal that does not fold, is of a newer version, or is
   * another run's (ERR_CORRUPT, ERR_VERSION, ERR_INVALID_RECORD), and an existing id.
   * `journal` is its bytes, or its pieces in order (cut anywhere): a store that can writes
   * them as they come, so that an import holds a piece, never the journal.
   */
  importJournal(runId: string, journal: JournalBytes): Promise<void>;
  /**
   * Optional: hands `visit` the stored bytes of every run, faster than a list and a
   * readJournal each (`session search` reads every journal), in pieces of whole lines (a
   * record each, or many) so that memory holds a piece, never a whole journal. A run's
   * pieces come in the order they are stored; pieces of different runs may interleave.
   * `visit` returns true when it needs no more of a run, and the store may skip the rest.
   * A piece is valid only during the call: a backend may reuse its memory.
   */
  readJournals?(visit: (runId: string, lines: Buffer) => boolean | void): Promise<void>;
  /** Removes a run; ERR_LOCKED while a writer holds it. */
  delete(runId: string): Promise<void>;
  /** Lets go of what the store holds (a server connection); journals still open are the caller's to close first. */
  close(): Promise<void>;
}
