// Who holds a run: a session-level advisory lock on a connection the journal keeps from
// open to close. The server drops the lock the moment that connection ends (the process
// died, the server cut it off, the network went), so a dead writer's run is free at once,
// with no lease to wait out and no heartbeat to send; a live writer cannot lose it while
// its connection stands. `holders` says who took each lock, for listings and ERR_LOCKED;
// a row whose lock is gone is stale, and read as no holder.
import { createHash } from "node:crypto";
import type pg from "pg";
import { thisProcess, type RunHolder } from "../../runstate/store/run-holder.js";
import { lockedError } from "../../runstate/store/store-contract.js";
import { connected, ioError } from "./connection.js";
import { quoted } from "./schema.js";

/** A run's advisory lock key: 64 bits of a hash of the schema and the run, as a decimal string for a bigint parameter. */
export function lockKey(schema: string, runId: string): string {
  return createHash("sha256").update(`${schema}\0${runId}`).digest().readBigInt64BE(0).toString();
}

/** The live holders' rows: those whose backend holds their run's lock now. */
export function liveHolders(schema: string): string {
  return `SELECT h.run_id, h.holder FROM ${quoted(schema)}.holders h
    WHERE EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.pid = h.backend_pid
      AND l.objsubid = 1 AND l.classid::bigint = (h.lock_key >> 32) & 4294967295 AND l.objid::bigint = h.lock_key & 4294967295)`;
}

/** A run held: its connection, on which the journal's statements run, and the signal of losing it. */
export interface RunHold {
  readonly client: pg.PoolClient;
  /** Aborted once the connection failed: the lock went with it, and the run may be another's. */
  readonly lost: AbortSignal;
  /** Unlocks and gives the connection back (or drops it, when it failed). */
  release(): Promise<void>;
}

function parsedHolder(text: string | undefined): RunHolder | undefined {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as RunHolder;
  } catch {
    return undefined;
  }
}

/**
 * Takes the run's lock on a connection of its own; ERR_LOCKED naming the holder when
 * another connection has it (this process's own included: a second open is refused).
 */
export async function takeHold(pool: pg.Pool, schema: string, where: string, runId: string): Promise<RunHold> {
  const key = lockKey(schema, runId);
  const client = await connected(pool, where, `connecting to hold session ${runId}`);
  const lost = new AbortController();
  const onError = (error: Error) => lost.abort(error);
  client.on("error", onError);
  let failed: Error | undefined;
  const release = async () => {
    client.off("error", onError);
    if (lost.signal.aborted || failed !== undefined) return client.release(true);
    try {
      await client.query(`DELETE FROM ${quoted(schema)}.holders WHERE run_id = $1 AND backend_pid = pg_backend_pid()`, [runId]);
      await client.query("SELECT pg_advisory_unlock($1::bigint)", [key]);
      client.release();
    } catch (error) {
      client.release(error as Error);
    }
  };
  let got: boolean;
  try {
    const { rows } = await client.query<{ got: boolean }>("SELECT pg_try_advisory_lock($1::bigint) AS got", [key]);
    got = rows[0]?.got === true;
    if (got) {
      await client.query(
        `INSERT INTO ${quoted(schema)}.holders (run_id, lock_key, backend_pid, holder) VALUES ($1, $2, pg_backend_pid(), $3)
          ON CONFLICT (run_id) DO UPDATE SET lock_key = excluded.lock_key, backend_pid = excluded.backend_pid, holder = excluded.holder`,
        [runId, key, JSON.stringify(thisProcess())],
      );
    }
  } catch (error) {
    failed = error as Error;
    await release();
    throw ioError(where, `holding session ${runId}`, error);
  }
  if (!got) {
    const holder = await holderOf(client, schema, runId).catch(() => undefined);
    client.off("error", onError);
    client.release();
    throw lockedError(runId, holder);
  }
  return { client, lost: lost.signal, release };
}

/** The live holder of every held run, by run. */
export async function holdersOf(queries: pg.Pool | pg.ClientBase, schema: string): Promise<Map<string, RunHolder>> {
  const { rows } = await queries.query<{ run_id: string; holder: string }>(liveHolders(schema));
  const holders = new Map<string, RunHolder>();
  for (const { run_id, holder } of rows) {
    const parsed = parsedHolder(holder);
    if (parsed !== undefined) holders.set(run_id, parsed);
  }
  return holders;
}

/** One run's live holder, or undefined. */
export async function holderOf(queries: pg.Pool | pg.ClientBase, schema: string, runId: string): Promise<RunHolder | undefined> {
  const { rows } = await queries.query<{ holder: string }>(`SELECT holder FROM (${liveHolders(schema)}) live WHERE run_id = $1`, [runId]);
  return parsedHolder(rows[0]?.holder);
}
