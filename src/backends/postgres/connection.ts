// Reaching the Postgres server: the backend's configuration from a connection string as a
// Postgres user writes it (the PG* environment variables and ~/.pgpass fill in what it
// leaves out, as libpq's do), the pools, and how the server's failures are told apart.
// A password is never part of a message: servers are named by `describeUrl`.
import pg from "pg";
import { RunStateError } from "../../runstate/errors.js";

/** Runs, the queue and notes in a Postgres database, in a schema fisk-ai owns and migrates. */
export interface PostgresStoreConfig {
  /** Selects this backend. */
  backend: "postgres";
  /**
   * `postgres://USER@HOST:PORT/DB?schema=NAME` (or `postgresql://`); what it leaves out
   * comes from PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE and ~/.pgpass. `schema`
   * (default `fisk_ai`) is where fisk-ai's tables are; other query parameters go to the
   * driver (`sslmode`, `application_name`, `options`).
   */
  url: string;
  /** How many runs this process may hold open at once: each holds a connection of its own. Default 64. */
  maxHolds?: number;
}

export const DEFAULT_SCHEMA = "fisk_ai";
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
const DEFAULT_MAX_HOLDS = 64;
/** Connections for everything but holding a run: reads, listings, the queue's statements. */
const QUERY_CONNECTIONS = 4;

/** What a connection string says, parsed: the driver's settings, the schema, and the server named for messages. */
export interface PostgresTarget {
  /** The connection string the driver gets: the one given, without `schema`. */
  connectionString: string;
  /** The schema of fisk-ai's tables. */
  schema: string;
  /** `postgres://user@host:port/db schema fisk_ai`, without the password: for messages. */
  where: string;
}

/** The target a store URL names; ERR_STORE_CONFIG for one that is not a Postgres URL or names a bad schema. */
export function parsePostgresUrl(url: string): PostgresTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new RunStateError("ERR_STORE_CONFIG", "the store URL is not a URL: give postgres://USER@HOST:PORT/DATABASE?schema=NAME");
  }
  if (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:") {
    throw new RunStateError("ERR_STORE_CONFIG", `a Postgres store URL starts postgres:// or postgresql://, not ${parsed.protocol}//`);
  }
  const schema = parsed.searchParams.get("schema") ?? DEFAULT_SCHEMA;
  if (!SCHEMA_NAME.test(schema)) {
    throw new RunStateError(
      "ERR_STORE_CONFIG",
      `schema ${JSON.stringify(schema)} is not a plain lower-case name (letters, digits and _, at most 63): choose another ?schema=`,
    );
  }
  parsed.searchParams.delete("schema");
  const where = `${describeUrl(parsed)} schema ${schema}`;
  return { connectionString: parsed.toString(), schema, where };
}

/** A Postgres URL as messages name it: no password, and what the environment fills in said so. */
function describeUrl(url: URL): string {
  const user = url.username === "" ? "" : `${decodeURIComponent(url.username)}@`;
  const host = url.host === "" ? "(PGHOST)" : url.host;
  const database = url.pathname.length > 1 ? decodeURIComponent(url.pathname.slice(1)) : "(PGDATABASE)";
  return `postgres://${user}${host}/${database}`;
}

/** The two pools of a store: one of connections that each hold a run, one for everything else. */
export interface Pools {
  /** A connection a journal holds from open to close: its session-level advisory lock is the run's lock. */
  holds: pg.Pool;
  queries: pg.Pool;
}

export function makePools(target: PostgresTarget, config: PostgresStoreConfig, report: (line: string) => void): Pools {
  const make = (max: number) => {
    const pool = new pg.Pool({ connectionString: target.connectionString, max, idleTimeoutMillis: 10_000, allowExitOnIdle: true });
    // An idle connection the server ended (a restart, pg_terminate_backend): the pool drops it.
    pool.on("error", (error) => report(`an idle connection to ${target.where} failed: ${error.message}`));
    return pool;
  };
  return { holds: make(config.maxHolds ?? DEFAULT_MAX_HOLDS), queries: make(QUERY_CONNECTIONS) };
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

/** ERR_IO for a call to the server that failed, saying what was being done and why, without the password. */
export function ioError(where: string, doing: string, error: unknown): RunStateError {
  if (error instanceof RunStateError) return error;
  const state = sqlState(error);
  const why = (state !== undefined ? EXPLAINED[state] : undefined) ?? (error as Error).message;
  return new RunStateError("ERR_IO", `${doing} on ${where} failed: ${why}`, { cause: error });
}
