// The Postgres backend of the queue (docs/workers.md): each queued run is a row of
// `queue`, each follow-up waiting behind it a row of `queue_behind`. A claim locks the
// oldest claimable row it has not passed over with FOR UPDATE SKIP LOCKED, so claimers at
// once try different rows, and holds the run by opening it in the store, whose advisory
// lock is the claim: a dead worker's run is free once its connection is gone, and its row
// still waits for the next worker. An enqueue behind a run and the finish of its claim
// lock the run's row, so a follow-up is never left behind a run that finished. Waiters
// hear changes by LISTEN/NOTIFY (notifications.ts); a run's records by a poll of its
// row, since a NOTIFY in the append would serialize every commit of the database on the
// server's notification queue lock. A row anyone with write access to the tables put
// there that is no entry of the run it is kept under is moved, in one statement, to
// `quarantine` (quarantine.ts), and every other run is served meanwhile.
import type pg from "pg";
import { RunStateError } from "../../runstate/errors.js";
import { assertRunId, isValidRunId } from "../../runstate/records/run-id.js";
import type { Journal } from "../../runstate/store/store.js";
import {
  alreadyQueuedError,
  decodeEntry,
  drivenError,
  encodeEntry,
  isPromotionOf,
  notQueuedError,
  promotedFollowUp,
  type Accepts,
  type Claim,
  type EnqueueOptions,
  type QueuedRun,
  type QueueWatch,
  type RunQueue,
  type WaitingFollowUp,
  waitsBehind,
} from "../../queue/run-queue.js";
import { QueueWatches } from "../../queue/queue-watch.js";
import {
  notQuarantinedError,
  QUARANTINE_KEPT_BYTES,
  QuarantineListeners,
  quarantineName,
  type QuarantinedEntry,
  type QuarantineListener,
} from "../../queue/quarantine.js";
import { inTransaction, onPool } from "./connection.js";
import { channelOf, Notifications } from "./notifications.js";
import { liveHolders } from "./run-holds.js";
import { quoted } from "./schema.js";

/** The bound on hearing of an interrupting follow-up when no notification comes. */
const INTERRUPT_POLL_MS = 1000;
/** How often a follower looks at its run's last seq: records are not notified (see the top of this module). */
const RECORD_POLL_MS = 200;
/** The payload of a change that may have made an entry claimable. */
const CLAIMABLE = "claimable";

/** Where a row is kept: a run's entry (`queue`, by its run id) or a follow-up waiting behind it (`queue_behind`, by its id). */
type KeptAt = { table: "queue"; runId: string } | { table: "queue_behind"; runId: string; id: string };

/** An entry as its row holds it. */
function entryBytes(entry: QueuedRun): Buffer {
  return Buffer.from(encodeEntry(entry));
}

/** The payload of a change to one run's entry. */
function runPayload(runId: string): string {
  return `run:${runId}`;
}

/** What the queue needs of its store (PostgresStore has it): its tables, its connections, and its holds, the claims. */
export interface QueueHome {
  readonly schema: string;
  /** The server and schema, for messages. */
  readonly where: string;
  readonly queries: pg.Pool;
  /** For the queue's own LISTEN connection. */
  readonly connectionString: string;
  openHeld(runId: string): Promise<{ journal: Journal; lost: AbortSignal }>;
  /** Has a connection ready for openHeld. */
  warmHold(): Promise<void>;
}

export class PostgresQueue implements RunQueue {
  readonly #store: QueueHome;
  readonly #s: string;
  readonly #channel: string;
  readonly #notifications: Notifications;
  readonly #watches = new QueueWatches();
  readonly #quarantine = new QuarantineListeners();

  constructor(store: QueueHome) {
    this.#store = store;
    this.#s = quoted(store.schema);
    this.#channel = channelOf(store.schema);
    this.#notifications = new Notifications(store.connectionString, this.#channel);
  }

  async enqueue(entry: QueuedRun, options: EnqueueOptions = {}): Promise<void> {
    const bytes = entryBytes(entry);
    await this.#transaction(`queueing session ${entry.runId}`, async (client) => {
      for (;;) {
        const inserted = await client.query(
          `INSERT INTO ${this.#s}.queue (run_id, queued, state, entry) VALUES ($1, $2, $3, $4) ON CONFLICT (run_id) DO NOTHING`,
          [entry.runId, entry.queued, entry.state, bytes],
        );
        if (inserted.rowCount === 1) return this.#notify(client, CLAIMABLE, runPayload(entry.runId));
        // Locked against the finish of a claim ahead, which promotes what waits behind under the same lock.
        const ahead = await client.query(`SELECT 1 FROM ${this.#s}.queue WHERE run_id = $1 FOR UPDATE`, [entry.runId]);
        if (ahead.rowCount === 0) continue;
        if (!waitsBehind(entry)) throw alreadyQueuedError(entry.runId);
        await client.query(`INSERT INTO ${this.#s}.queue_behind (run_id, interrupts, entry) VALUES ($1, $2, $3)`, [
          entry.runId,
          options.interrupt === true,
          bytes,
        ]);
        return this.#notify(client, runPayload(entry.runId));
      }
    });
  }

  async list(): Promise<QueuedRun[]> {
    const { rows } = await this.#query("listing the queue", (queries) =>
      queries.query<{ run_id: string; entry: Buffer }>(`SELECT run_id, entry FROM ${this.#s}.queue ORDER BY queued, run_id`),
    );
    const entries: QueuedRun[] = [];
    for (const { run_id, entry } of rows) {
      const decoded = await this.#entryOf({ table: "queue", runId: run_id }, entry);
      if (decoded !== undefined) entries.push(decoded);
    }
    return entries;
  }

  async get(runId: string): Promise<QueuedRun | undefined> {
    assertRunId(runId);
    const { rows } = await this.#query(`reading the queue entry of session ${runId}`, (queries) =>
      queries.query<{ entry: Buffer }>(`SELECT entry FROM ${this.#s}.queue WHERE run_id = $1`, [runId]),
    );
    return rows[0] === undefined ? undefined : this.#entryOf({ table: "queue", runId }, rows[0].entry);
  }

  async behind(runId: string): Promise<WaitingFollowUp[]> {
    assertRunId(runId);
    const { rows } = await this.#query(`reading what waits behind session ${runId}`, (queries) =>
      queries.query<{ id: string; entry: Buffer; interrupts: boolean }>(
        `SELECT id, entry, interrupts FROM ${this.#s}.queue_behind WHERE run_id = $1 ORDER BY id`,
        [runId],
      ),
    );
    const waiting: WaitingFollowUp[] = [];
    for (const { id, entry, interrupts } of rows) {
      const decoded = await this.#entryOf({ table: "queue_behind", runId, id }, entry);
      if (decoded !== undefined) waiting.push({ entry: decoded, interrupts });
    }
    return waiting;
  }

  async withdraw(runId: string): Promise<void> {
    if ((await this.get(runId)) === undefined) throw notQueuedError(runId);
    // Held while the rows go, so no worker can be starting the run meanwhile.
    const held = await this.#hold(runId);
    if (held === "held") throw drivenError(runId);
    try {
      await this.#query(`withdrawing session ${runId}`, (queries) =>
        queries.query(`WITH behind AS (DELETE FROM ${this.#s}.queue_behind WHERE run_id = $1) DELETE FROM ${this.#s}.queue WHERE run_id = $1`, [runId]),
      );
    } finally {
      await held?.journal.close();
    }
  }

  async unpark(runId: string): Promise<void> {
    const entry = await this.get(runId);
    if (entry?.state !== "parked") throw notQueuedError(runId, "parked");
    const updated = await this.#transaction(`queueing session ${runId} again`, async (client) => {
      const { rowCount } = await client.query(`UPDATE ${this.#s}.queue SET state = 'queued', entry = $2 WHERE run_id = $1 AND state = 'parked'`, [
        runId,
        entryBytes({ ...entry, state: "queued" }),
      ]);
      if (rowCount === 1) await this.#notify(client, CLAIMABLE, runPayload(runId));
      return rowCount === 1;
    });
    if (!updated) throw notQueuedError(runId, "parked");
  }

  async claim(accepts: Accepts): Promise<Claim | undefined> {
    // Beside the look, so that a run found (one a dead worker held, say) is held without waiting for a new connection:
    // a worker's claims keep that connection ready while it looks for work.
    const warming = this.#store.warmHold().catch(() => undefined);
    const passed: string[] = [];
    for (;;) {
      let taken: { journal: Journal } | undefined;
      const outcome = await this.#transaction("claiming a queued session", async (client) => {
        // The oldest row no other claimer is looking at, of a run nobody holds.
        const { rows } = await client.query<{ run_id: string; entry: Buffer }>(
          `SELECT q.run_id, q.entry FROM ${this.#s}.queue q
            WHERE q.state = 'queued' AND q.run_id <> ALL($1::text[])
              AND NOT EXISTS (SELECT 1 FROM (${liveHolders(this.#store.schema)}) live WHERE live.run_id = q.run_id)
            ORDER BY q.queued, q.run_id LIMIT 1 FOR UPDATE OF q SKIP LOCKED`,
          [passed],
        );
        const row = rows[0];
        if (row === undefined) return "none" as const;
        passed.push(row.run_id);
        const entry = await this.#entryOf({ table: "queue", runId: row.run_id }, row.entry, client);
        if (entry === undefined || !accepts(entry)) return "passed" as const;
        await warming;
        const held = await this.#hold(row.run_id);
        if (held === "held" || held === undefined) return "passed" as const;
        taken = held;
        return { entry, held };
      }).catch(async (error: unknown) => {
        // Held, but the claim's transaction did not commit: let the run go for another claim.
        await taken?.journal.close();
        throw error;
      });
      if (outcome === "none") return warming.then(() => undefined);
      if (outcome !== "passed") return this.#claimOf(outcome.entry, outcome.held);
    }
  }

  watch(runId?: string): QueueWatch {
    if (runId !== undefined) assertRunId(runId);
    return this.#watches.open((changed) => {
      const stopListening = this.#notifications.listen((payload) => {
        if (payload === undefined || payload === (runId === undefined ? CLAIMABLE : runPayload(runId))) changed();
      });
      if (runId === undefined) return stopListening;
      const stopPolling = this.#pollLastSeq(runId, changed);
      return () => {
        stopListening();
        stopPolling();
      };
    });
  }

  async quarantined(): Promise<QuarantinedEntry[]> {
    const { rows } = await this.#query("listing the queue entries set aside", (queries) =>
      queries.query<QuarantinedEntry>(`SELECT name, reason FROM ${this.#s}.quarantine ORDER BY name`),
    );
    return rows.map(({ name, reason }) => ({ name, reason }));
  }

  async discard(name: string): Promise<void> {
    const { rowCount } = await this.#query(`removing the queue entry set aside as ${JSON.stringify(name)}`, (queries) =>
      queries.query(`DELETE FROM ${this.#s}.quarantine WHERE name = $1`, [name]),
    );
    if (rowCount !== 1) throw notQuarantinedError(name);
  }

  onQuarantine(listener: QuarantineListener): () => void {
    return this.#quarantine.add(listener);
  }

  async close(): Promise<void> {
    // The pools are the store's, closed with it; a claim still open is the caller's to settle.
    this.#watches.closeAll();
    await this.#notifications.close();
  }

  #claimOf(entry: QueuedRun, held: { journal: Journal; lost: AbortSignal }): Claim {
    const interrupts = this.#interrupts(entry);
    const journal: Journal = {
      get runId() {
        return held.journal.runId;
      },
      get lastSeq() {
        return held.journal.lastSeq;
      },
      append: (seq, record) => held.journal.append(seq, record),
      records: () => held.journal.records(),
      // Closed unsettled (a worker that dies): the row stays queued, and the run is free with the lock.
      close: async () => {
        interrupts.stop();
        await held.journal.close();
      },
    };
    const settle = (change: () => Promise<void>) => async () => {
      interrupts.stop();
      try {
        // A lost hold settles nothing: the run may be another worker's by now.
        if (!held.lost.aborted) await change();
      } finally {
        await held.journal.close();
      }
    };
    return {
      entry,
      journal,
      lost: held.lost,
      interrupted: interrupts.signal,
      finish: settle(() => this.#finish(entry, held.journal.lastSeq)),
      park: settle(() =>
        this.#transaction(`parking session ${entry.runId}`, async (client) => {
          await client.query(`UPDATE ${this.#s}.queue SET state = 'parked', entry = $2 WHERE run_id = $1`, [
            entry.runId,
            entryBytes({ ...entry, state: "parked" }),
          ]);
          await this.#notify(client, runPayload(entry.runId));
        }),
      ),
      handBack: settle(() => this.#transaction(`handing session ${entry.runId} back`, (client) => this.#notify(client, CLAIMABLE))),
    };
  }

  /** The run is at rest: the oldest follow-up behind it becomes its entry, queued after its last record, or else its row goes. */
  #finish(done: QueuedRun, lastSeq: number): Promise<void> {
    return this.#transaction(`finishing session ${done.runId}`, async (client) => {
      await client.query(`SELECT 1 FROM ${this.#s}.queue WHERE run_id = $1 FOR UPDATE`, [done.runId]);
      const { rows } = await client.query<{ id: string; entry: Buffer }>(`SELECT id, entry FROM ${this.#s}.queue_behind WHERE run_id = $1 ORDER BY id`, [
        done.runId,
      ]);
      for (const { id, entry } of rows) {
        const waiting = await this.#entryOf({ table: "queue_behind", runId: done.runId, id }, entry, client);
        if (waiting === undefined) continue;
        await client.query(`DELETE FROM ${this.#s}.queue_behind WHERE id = $1`, [id]);
        // One whose promotion a crash cut short is the entry that just finished: not run twice.
        if (isPromotionOf(done, waiting)) continue;
        const next = promotedFollowUp(waiting, lastSeq);
        await client.query(
          `INSERT INTO ${this.#s}.queue (run_id, queued, state, entry) VALUES ($1, $2, $3, $4)
            ON CONFLICT (run_id) DO UPDATE SET queued = excluded.queued, state = excluded.state, entry = excluded.entry`,
          [done.runId, next.queued, next.state, entryBytes(next)],
        );
        return this.#notify(client, CLAIMABLE, runPayload(done.runId));
      }
      await client.query(`DELETE FROM ${this.#s}.queue WHERE run_id = $1`, [done.runId]);
      await this.#notify(client, runPayload(done.runId));
    });
  }

  /** The claim's interrupt: aborted once a follow-up that interrupts waits behind the run, heard by notification or by the poll. */
  #interrupts(entry: QueuedRun): { signal: AbortSignal; stop(): void } {
    const interrupt = new AbortController();
    const look = async () => {
      const waiting = await this.behind(entry.runId).catch(() => []);
      if (waiting.some(({ entry: behind, interrupts }) => interrupts && !isPromotionOf(entry, behind))) {
        interrupt.abort(new Error("a follow-up interrupts the run"));
        stop();
      }
    };
    const stopListening = this.#notifications.listen((payload) => {
      if (payload === undefined || payload === runPayload(entry.runId)) void look();
    });
    const polling = setInterval(() => void look(), INTERRUPT_POLL_MS);
    polling.unref();
    const stop = () => {
      clearInterval(polling);
      stopListening();
    };
    void look();
    return { signal: interrupt.signal, stop };
  }

  /** Calls `changed` whenever the run's last seq moves; returns how to stop. */
  #pollLastSeq(runId: string, changed: () => void): () => void {
    let last: number | undefined;
    const look = async () => {
      const { rows } = await this.#store.queries.query<{ last_seq: number }>(`SELECT last_seq FROM ${this.#s}.runs WHERE run_id = $1`, [runId]);
      const now = rows[0]?.last_seq ?? 0;
      if (last !== undefined && now !== last) changed();
      last = now;
    };
    void look().catch(() => undefined);
    const polling = setInterval(() => void look().catch(() => undefined), RECORD_POLL_MS);
    polling.unref();
    return () => clearInterval(polling);
  }

  /** The run's journal held by us, with its lost signal; "held" when another holds it; undefined when the session is gone. */
  async #hold(runId: string): Promise<{ journal: Journal; lost: AbortSignal } | "held" | undefined> {
    try {
      return await this.#store.openHeld(runId);
    } catch (error) {
      if (error instanceof RunStateError && error.code === "ERR_LOCKED") return "held";
      if (error instanceof RunStateError && error.code === "ERR_NOT_FOUND") return undefined;
      throw error;
    }
  }

  /**
   * The entry a row holds, checked against the run it is kept under; undefined once a bad
   * one is set aside (in `client`'s transaction when given: a claim's holds the row locked).
   */
  async #entryOf(at: KeptAt, bytes: Buffer, client?: pg.ClientBase): Promise<QueuedRun | undefined> {
    let reason: string;
    try {
      const keptUnder = at.runId;
      if (isValidRunId(at.runId)) return decodeEntry(bytes, at.runId);
      reason = `kept under ${JSON.stringify(keptUnder.slice(0, 40))}, which is no session id`;
    } catch (error) {
      if (!(error instanceof RunStateError && error.code === "ERR_CORRUPT")) throw error;
      reason = error.message;
    }
    const doing = `setting aside a bad row of ${at.table}`;
    const setAside = (on: pg.ClientBase) => this.#setAside(on, at, bytes, reason);
    const name = client === undefined ? await this.#transaction(doing, setAside) : await setAside(client);
    if (name !== undefined) this.#quarantine.tell({ name, reason });
    return undefined;
  }

  /**
   * Moves a bad row (its first QUARANTINE_KEPT_BYTES) to `quarantine` in one statement,
   * named after where it was kept; its name, or undefined when another moved it first or the
   * row changed since it was read (then it is read again at the next look).
   */
  async #setAside(client: pg.ClientBase, at: KeptAt, bytes: Buffer, reason: string): Promise<string | undefined> {
    const [key, value] = at.table === "queue" ? ["run_id", at.runId] : ["id", at.id];
    const prefix = `${quarantineName(`${at.table}.${at.runId.slice(0, 40)}`)}.`;
    const { rows } = await client.query<{ name: string }>(
      `WITH moved AS (DELETE FROM ${this.#s}.${at.table} WHERE ${key} = $1 AND entry = $2 RETURNING entry),
            kept AS (SELECT nextval(pg_get_serial_sequence($3, 'id')) AS id, entry FROM moved)
       INSERT INTO ${this.#s}.quarantine (id, name, reason, entry)
       SELECT id, $4 || id, $5, substring(entry FROM 1 FOR $6) FROM kept RETURNING name`,
      [value, bytes, `${this.#s}.quarantine`, prefix, reason, QUARANTINE_KEPT_BYTES],
    );
    return rows[0]?.name;
  }

  /** Notifies each payload, delivered when the transaction commits. */
  async #notify(client: pg.ClientBase, ...payloads: string[]): Promise<void> {
    for (const payload of payloads) await client.query("SELECT pg_notify($1, $2)", [this.#channel, payload]);
  }

  #transaction<T>(doing: string, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.#store.queries, this.#store.where, doing, work);
  }

  #query<T>(doing: string, statement: (queries: pg.Pool) => Promise<T>): Promise<T> {
    return onPool(this.#store.queries, this.#store.where, doing, statement);
  }
}
