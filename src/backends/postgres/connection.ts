// Reaching the Postgres server: the pools (the driver fills in what the connection string
// leaves out from the PG* environment variables and ~/.pgpass, as libpq does), and how the
// server's failures are told apart. A password is never part of a message.
import pg from "pg";
import { FiskError } from "../../errors/fisk-error.js";
import { RunStateError } from "../../runstate/errors.js";
import type { PostgresStoreConfig, PostgresTarget } from "./postgres-url.js";

const DEFAULT_MAX_HOLDS = 64;
/** Connections for everything but holding a run: reads, listings, the queue's statements. */
const QUERY_CONNECTIONS = 4;

/** The two pools of a store: one of connections that each hold a run, one for everything else. */
export interface Pools {
  /** A connection a journal holds from open to close: its session-level advisory lock is the run's lock. */
  holds: pg.Pool;
  queries: pg.Pool;
}

export function makePools(target: PostgresTarget, config: PostgresStoreConfig, report: (line: string) => void): Pools {
  const make = (max: number, min: number) => {
    const pool = new pg.Pool({ connectionString: target.connectionString, max, min, idleTimeoutMillis: 10_000, allowExitOnIdle: true });
    // An idle connection the server ended (a restart, pg_terminate_backend): the pool drops it.
    pool.on("error", (error) => report(`an idle connection to ${target.where} failed: ${error.message}`));
    return pool;
  };
  // One idle hold connection is kept (PostgresStore.warmHold): a new one costs the server a process.
  return { holds: make(config.maxHolds ?? DEFAULT_MAX_HOLDS, 1), queries: make(QUERY_CONNECTIONS, 0) };
}

/** SQLSTATE of a unique violation: a write-once slot or an id taken already. */
export const UNIQUE_VIOLATION = "23505";

/** The SQLSTATE of a server's error, or undefined for another error (a connection that failed). */
export function sqlState(error: unknown): string | undefined {
  return error instanceof pg.DatabaseError ? error.code : undefined;
}

/** What the server's refusals mean for a user, by SQLSTATE: read-only, full, timed out, not allowed. */
const EXPLAINED: Record<string, string> = {
  "25006": "the database is read-only (default_transaction_read_only, or a standby): writes wait until it takes them again",
  "57014": "a statement ran past its statement_timeout",
  "53100": "the database server is out of disk space",
  "42501": "the role may not do this: see the permissions docs/backends.md lists",
  "57P01": "the server ended the connection (an administrator, or a shutdown)",
};

/** Why a call to the server failed, in a user's words where the SQLSTATE says more than the server's message. */
export function explained(error: unknown): string {
  const state = sqlState(error);
  return (state !== undefined ? EXPLAINED[state] : undefined) ?? (error as Error).message;
}

/** ERR_IO for a call to the server that failed, saying what was being done and why, without the password; a library error stays as it is. */
export function ioError(where: string, doing: string, error: unknown): FiskError<string> {
  if (error instanceof FiskError) return error;
  return new RunStateError("ERR_IO", `${doing} on ${where} failed: ${explained(error)}`, { cause: error });
}

/** A connection of `pool`; ERR_IO saying what it was for when there is none. */
export async function connected(pool: pg.Pool, where: string, doing: string): Promise<pg.PoolClient> {
  try {
    return await pool.connect();
  } catch (error) {
    throw ioError(where, doing, error);
  }
}

/** `work` in one transaction on a connection of `pool`: committed when it returns, rolled back when it throws (ERR_IO, or its own library error). */
export async function inTransaction<T>(pool: pg.Pool, where: string, doing: string, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await connected(pool, where, doing);
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    client.release();
    return result;
  } catch (error) {
    await client.query("ROLLBACK").then(
      () => client.release(),
      (failed: Error) => client.release(failed),
    );
    throw ioError(where, doing, error);
  }
}

/** A statement (or a few) on `pool`; a failure of the server is ERR_IO saying what was being done. */
export async function onPool<T>(pool: pg.Pool, where: string, doing: string, statement: (queries: pg.Pool) => Promise<T>): Promise<T> {
  try {
    return await statement(pool);
  } catch (error) {
    throw ioError(where, doing, error);
  }
}
