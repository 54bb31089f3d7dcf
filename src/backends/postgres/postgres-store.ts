// The Postgres backend (docs/backends.md): a run's journal is rows of (run, seq, line),
// each line the record's exact bytes, so an export or a move is byte-identical; a run's
// summary is a row of `runs` (summary-row.ts) updated by the statement that appends, so
// `session ls` reads one row a run and no journal; a writer holds its run by an advisory lock on a connection of
// its own (run-holds.ts), and the (run, seq) primary key fences a writer that lost it.
import type pg from "pg";
import type { RunState } from "../../runstate/views/fold.js";
import { encodeRecordIn } from "../../runstate/records/journal-codec.js";
import type { JournalRecord, MetaPayload, MetaRecord } from "../../runstate/records/records.js";
import type { Journal, JournalBytes, RunSummary, Store } from "../../runstate/store/store.js";
import {
  assertRunId,
  checkedFromSeq,
  checkedMeta,
  checkImport,
  wholeJournal,
  corruptSummary,
  decodeRun,
  existsError,
  notFoundError,
  recordsOfLines,
  summarizeEnds,
  versionOf,
  withLiveHolder,
} from "../../runstate/store/store-contract.js";
import { checkedDigestOf, digestLines, emptyDigest, emptyDigestFold, type RunDigest } from "../../runstate/views/run-digest.js";
import { connected, ioError, makePools, onPool, sqlState, UNIQUE_VIOLATION, type Pools } from "./connection.js";
import { parsePostgresUrl, type PostgresStoreConfig, type PostgresTarget } from "./postgres-url.js";
import { PostgresWriter, rowLine, type RecordRows } from "./journal-writer.js";
import { PostgresQueue } from "./postgres-queue.js";
import { holderOf, holdersOf, takeHold, type RunHold } from "./run-holds.js";
import { ensureSchema, quoted } from "./schema.js";
import { digestColumn, metaColumn, summaryOfRow, summaryRows, type SummaryRow } from "./summary-row.js";

/** Rows a streamed read asks for at once: a round trip a few hundred records, a few megabytes held at most. */
const READ_BATCH = 256;
/** Rows an import inserts a statement. */
const IMPORT_BATCH = 1000;

const NEWLINE = Buffer.from("\n");

/** A store on the database `config.url` names, its schema made or migrated if it is older (ensureSchema). */
export async function connectPostgresStore(config: PostgresStoreConfig, report: (line: string) => void = () => undefined): Promise<PostgresStore> {
  const target = parsePostgresUrl(config.url);
  const pools = makePools(target, config, report);
  try {
    const client = await connected(pools.queries, target.where, "connecting");
    try {
      await ensureSchema(client, target.schema, target.where);
    } finally {
      client.release();
    }
  } catch (error) {
    await Promise.all([pools.holds.end(), pools.queries.end()]);
    throw error;
  }
  return new PostgresStore(pools, target);
}

export class PostgresStore implements Store, RecordRows {
  /** The schema of the store's tables. */
  readonly schema: string;
  /** The server and schema, without a password: for messages. */
  readonly where: string;
  readonly #pools: Pools;
  readonly #connectionString: string;
  readonly #s: string;
  #closing: Promise<void> | undefined;

  constructor(pools: Pools, target: PostgresTarget) {
    this.#pools = pools;
    this.schema = target.schema;
    this.where = target.where;
    this.#connectionString = target.connectionString;
    this.#s = quoted(target.schema);
  }

  /** The connection string (its password too, if it has one: never for a message), for a connection of the caller's own (LISTEN). */
  get connectionString(): string {
    return this.#connectionString;
  }

  /**
   * Has a connection ready for the next hold (the holds pool keeps one idle): a worker calls
   * it while it looks for work, so that taking a run over opens no connection to the server.
   */
  async warmHold(): Promise<void> {
    const holds = this.#pools.holds;
    // Never waits for a hold to end: with every connection holding a run, there is nothing to warm.
    if (holds.idleCount > 0 || holds.totalCount >= (holds.options.max ?? 0)) return;
    (await connected(holds, this.where, "connecting for the next hold")).release();
  }

  /** Where the runs are, for messages. */
  get dir(): string {
    return this.where;
  }

  /** The pool for statements that hold nothing, for what keeps its state beside the runs (the queue, notes). */
  get queries(): pg.Pool {
    return this.#pools.queries;
  }

  /** The worker pool's queue beside the runs, in the same schema: the backend's bundle holds it. */
  runQueue(): PostgresQueue {
    return new PostgresQueue(this);
  }

  async create(runId: string, meta: MetaPayload): Promise<Journal> {
    assertRunId(runId);
    const { record, line } = checkedMeta(runId, meta);
    if (await this.#exists(runId)) throw existsError(runId);
    const hold = await this.#holdForNew(runId);
    try {
      const digest = checkedDigestOf([record], Buffer.byteLength(line));
      // The run's row and its meta in one statement: a run is never seen without its meta.
      await hold.client.query(
        `WITH run AS (INSERT INTO ${this.#s}.runs (run_id, bytes, last_seq, digest) VALUES ($1, $5, 1, $4)),
              meta AS (INSERT INTO ${this.#s}.metas (run_id, meta) VALUES ($1, $3))
          INSERT INTO ${this.#s}.records (run_id, seq, line) VALUES ($1, 1, $2)`,
        [runId, rowLine(line), metaColumn(meta), digestColumn(digest.digest), digest.digest.bytes],
      );
      return new PostgresWriter(this, hold, runId, meta, digest).journal([record]);
    } catch (error) {
      await hold.release();
      if (sqlState(error) === UNIQUE_VIOLATION) throw existsError(runId);
      throw ioError(this.where, `creating session ${runId}`, error);
    }
  }

  async open(runId: string): Promise<Journal> {
    return (await this.openHeld(runId)).journal;
  }

  /**
   * open, with the signal that aborts once the connection holding the run failed (the run may
   * be another's then). The hold is taken first and the records read on its connection, so a
   * worker's claim needs no other connection than the one it keeps ready (warmHold).
   */
  async openHeld(runId: string): Promise<{ journal: Journal; lost: AbortSignal }> {
    assertRunId(runId);
    const hold = await takeHold(this.#pools.holds, this.schema, this.where, runId);
    try {
      const bytes = await this.#journalBytes(hold.client, runId);
      if (bytes === undefined) throw notFoundError(runId);
      const { records, state } = decodeRun(runId, bytes, this.#where(runId));
      const writer = new PostgresWriter(this, hold, runId, state.meta, checkedDigestOf(records, bytes.length));
      return { journal: writer.journal(records), lost: hold.lost };
    } catch (error) {
      await hold.release();
      throw error;
    }
  }

  async appendRows(client: pg.ClientBase, runId: string, firstSeq: number, lines: readonly Buffer[], digest: RunDigest): Promise<void> {
    const seqs = lines.map((_, index) => firstSeq + index);
    await client.query(
      `WITH appended AS (
         INSERT INTO ${this.#s}.records (run_id, seq, line) SELECT $1, seq, line FROM unnest($2::integer[], $3::bytea[]) AS r(seq, line)
       )
       UPDATE ${this.#s}.runs SET bytes = $6, updated = now(), last_seq = $4, digest = $5 WHERE run_id = $1`,
      [runId, seqs, lines, firstSeq + lines.length - 1, digestColumn(digest), digest.bytes],
    );
  }

  async load(runId: string): Promise<RunState> {
    return decodeRun(runId, await this.readJournal(runId), this.#where(runId)).state;
  }

  async list(): Promise<RunSummary[]> {
    const [rows, holders] = await this.#query("listing sessions", async (queries) =>
      Promise.all([queries.query<SummaryRow>(summaryRows(this.#s)), holdersOf(queries, this.schema)]),
    );
    const summaries: RunSummary[] = [];
    for (const row of rows.rows) summaries.push(withLiveHolder(await this.#summaryOf(row), holders.get(row.run_id)));
    return summaries;
  }

  async summarize(runId: string): Promise<RunSummary> {
    assertRunId(runId);
    const [row, holder] = await this.#query(`summarizing session ${runId}`, (queries) =>
      Promise.all([queries.query<SummaryRow>(`${summaryRows(this.#s)} WHERE run_id = $1`, [runId]), holderOf(queries, this.schema, runId)]),
    );
    const found = row.rows[0];
    if (found === undefined) throw notFoundError(runId);
    return withLiveHolder(await this.#summaryOf(found), holder);
  }

  async *readRecords(runId: string, fromSeq?: number): AsyncGenerator<JournalRecord> {
    assertRunId(runId);
    const first = checkedFromSeq(fromSeq);
    if (!(await this.#exists(runId))) throw notFoundError(runId);
    yield* recordsOfLines(runId, this.#where(runId), first, this.#linesFrom(runId, first));
  }

  async *#linesFrom(runId: string, first: number): AsyncGenerator<Buffer> {
    for (let next = first; ; ) {
      const { rows } = await this.#query(`reading session ${runId}`, (queries) =>
        queries.query<{ seq: number; line: Buffer }>(`SELECT seq, line FROM ${this.#s}.records WHERE run_id = $1 AND seq >= $2 ORDER BY seq LIMIT $3`, [
          runId,
          next,
          READ_BATCH,
        ]),
      );
      for (const { seq, line } of rows) {
        // A seq missing is a hole in the journal: recordsOfLines names the line that follows it.
        if (seq !== next) return yield line;
        next++;
        yield line;
      }
      if (rows.length < READ_BATCH) return;
    }
  }

  async readJournal(runId: string): Promise<Buffer> {
    assertRunId(runId);
    const bytes = await this.#query(`reading session ${runId}`, (queries) => this.#journalBytes(queries, runId));
    if (bytes === undefined) throw notFoundError(runId);
    return bytes;
  }

  async readJournals(visit: (runId: string, lines: Buffer) => boolean | void): Promise<void> {
    let after = { runId: "", seq: 0 };
    for (;;) {
      const { rows } = await this.#query("reading every session", (queries) =>
        queries.query<{ run_id: string; seq: number; line: Buffer }>(
          `SELECT run_id, seq, line FROM ${this.#s}.records WHERE (run_id, seq) > ($1, $2) ORDER BY run_id, seq LIMIT $3`,
          [after.runId, after.seq, READ_BATCH * 4],
        ),
      );
      let index = 0;
      while (index < rows.length) {
        const runId = (rows[index] as { run_id: string }).run_id;
        const piece: Buffer[] = [];
        for (; index < rows.length && (rows[index] as { run_id: string }).run_id === runId; index++)
          piece.push((rows[index] as { line: Buffer }).line, NEWLINE);
        const done = visit(runId, Buffer.concat(piece)) === true;
        after = { runId, seq: done ? 2 ** 31 - 1 : (rows[index - 1] as { seq: number }).seq };
      }
      if (rows.length < READ_BATCH * 4) return;
    }
  }

  async importJournal(runId: string, journal: JournalBytes): Promise<void> {
    assertRunId(runId);
    const bytes = await wholeJournal(journal);
    const records = checkImport(runId, bytes);
    if (await this.#exists(runId)) throw existsError(runId);
    const hold = await this.#holdForNew(runId);
    const version = versionOf(records);
    const meta = (records[0] as MetaRecord).meta;
    const digest = checkedDigestOf(records, bytes.byteLength).digest;
    const { client } = hold;
    try {
      // One transaction: until it commits nothing lists, loads or opens the run.
      await client.query("BEGIN");
      await client.query(
        `WITH meta AS (INSERT INTO ${this.#s}.metas (run_id, meta) VALUES ($1, $2))
          INSERT INTO ${this.#s}.runs (run_id, bytes, last_seq, digest) VALUES ($1, $3, $4, $5)`,
        [runId, metaColumn(meta), digest.bytes, records.length, digestColumn(digest)],
      );
      for (let start = 0; start < records.length; start += IMPORT_BATCH) {
        const slice = records.slice(start, start + IMPORT_BATCH);
        await client.query(`INSERT INTO ${this.#s}.records (run_id, seq, line) SELECT $1, seq, line FROM unnest($2::integer[], $3::bytea[]) AS r(seq, line)`, [
          runId,
          slice.map((record) => record.seq),
          slice.map((record) => rowLine(encodeRecordIn(version, record))),
        ]);
      }
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      if (sqlState(error) === UNIQUE_VIOLATION) throw existsError(runId);
      throw ioError(this.where, `importing session ${runId}`, error);
    } finally {
      await hold.release();
    }
  }

  async delete(runId: string): Promise<void> {
    assertRunId(runId);
    if (!(await this.#exists(runId))) throw notFoundError(runId);
    const hold = await takeHold(this.#pools.holds, this.schema, this.where, runId);
    try {
      await hold.client.query(
        `WITH gone AS (DELETE FROM ${this.#s}.records WHERE run_id = $1), meta AS (DELETE FROM ${this.#s}.metas WHERE run_id = $1)
          DELETE FROM ${this.#s}.runs WHERE run_id = $1`,
        [runId],
      );
    } catch (error) {
      throw ioError(this.where, `removing session ${runId}`, error);
    } finally {
      await hold.release();
    }
  }

  close(): Promise<void> {
    this.#closing ??= Promise.all([this.#pools.holds.end(), this.#pools.queries.end()]).then(() => undefined);
    return this.#closing;
  }

  /** A hold on a run being made: another writer holding the id is making it too, so it exists. */
  async #holdForNew(runId: string): Promise<RunHold> {
    try {
      return await takeHold(this.#pools.holds, this.schema, this.where, runId);
    } catch (error) {
      if (error instanceof Error && "code" in error && error.code === "ERR_LOCKED") throw existsError(runId);
      throw error;
    }
  }

  /** A statement on the query pool; a failure is ERR_IO saying what was being done. */
  #query<T>(doing: string, statement: (queries: pg.Pool) => Promise<T>): Promise<T> {
    return onPool(this.#pools.queries, this.where, doing, statement);
  }

  /** Whether the run exists: its row, with its meta written (a create not yet committed has none). */
  #exists(runId: string): Promise<boolean> {
    return this.#query(`reading session ${runId}`, async (queries) => {
      const { rowCount } = await queries.query(`SELECT 1 FROM ${this.#s}.runs WHERE run_id = $1`, [runId]);
      return rowCount === 1;
    });
  }

  /** The run's journal as JSON Lines, or undefined when it has no records. */
  async #journalBytes(queries: pg.Pool | pg.ClientBase, runId: string): Promise<Buffer | undefined> {
    const { rows } = await queries.query<{ line: Buffer }>(`SELECT line FROM ${this.#s}.records WHERE run_id = $1 ORDER BY seq`, [runId]);
    if (rows.length === 0) return undefined;
    const pieces: Buffer[] = [];
    for (const { line } of rows) pieces.push(line, NEWLINE);
    return Buffer.concat(pieces);
  }

  /** A run's summary as its row keeps it, or read from its records where it keeps none (rows written by hand). */
  async #summaryOf(row: SummaryRow): Promise<RunSummary> {
    const kept = summaryOfRow(row);
    if (kept !== undefined) return kept;
    try {
      const bytes = (await this.#query(`reading session ${row.run_id}`, (queries) => this.#journalBytes(queries, row.run_id))) ?? Buffer.alloc(0);
      const digest = emptyDigest();
      const ends = digestLines(digest, emptyDigestFold(), bytes, undefined);
      return summarizeEnds(row.run_id, this.#where(row.run_id), ends, row.updated, digest);
    } catch (error) {
      return corruptSummary(row.run_id, row.updated, error);
    }
  }

  #where(runId: string): string {
    return `session ${runId} in ${this.where}`;
  }
}
