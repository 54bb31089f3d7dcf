// fisk-ai's tables in a Postgres schema of their own: made on first use (or by `fisk-ai
// store init URL`, for a role that may use tables but not make them), versioned in one
// row, and migrated forward in a transaction under a transaction-level advisory lock, so
// two processes starting at once migrate once. A schema a newer fisk-ai made is refused,
// never read as if it were this one's.
import type pg from "pg";
import { RunStateError } from "../../runstate/errors.js";
import { ioError, sqlState } from "./connection.js";

/** The schema version this fisk-ai reads and writes. */
export const SCHEMA_VERSION = 2;

/** SQLSTATEs of a table or a schema that does not exist: a database fisk-ai never used. */
const UNDEFINED_TABLE = "42P01";
const UNDEFINED_SCHEMA = "3F000";

/** The schema's name quoted as an identifier: it was checked to be a plain name already (parsePostgresUrl). */
export function quoted(schema: string): string {
  return `"${schema}"`;
}

/**
 * Each migration, from the version before it to its own (index 0 makes version 1). A run's
 * journal is rows of (run, seq, line): the line is the record's exact bytes, never jsonb,
 * which would reorder keys. `runs` holds each run's summary, put in the statement that
 * appends, so a listing reads no journal. Version 2 keeps queue entries as bytes (what
 * anyone with write access to the tables put there is read as the queue reads bytes, NULs
 * included) and adds `quarantine`, where an entry the queue cannot trust is set aside.
 */
const MIGRATIONS: readonly ((s: string) => string)[] = [
  (s) => `
    CREATE TABLE ${s}.runs (
      run_id text PRIMARY KEY,
      last_seq integer NOT NULL,
      updated timestamptz NOT NULL DEFAULT now(),
      summary text
    );
    CREATE TABLE ${s}.records (
      run_id text NOT NULL,
      seq integer NOT NULL,
      line bytea NOT NULL,
      PRIMARY KEY (run_id, seq)
    );
    CREATE TABLE ${s}.holders (
      run_id text PRIMARY KEY,
      lock_key bigint NOT NULL,
      backend_pid integer NOT NULL,
      holder text NOT NULL
    );
    CREATE TABLE ${s}.queue (
      run_id text PRIMARY KEY,
      queued text NOT NULL,
      state text NOT NULL,
      entry text NOT NULL
    );
    CREATE INDEX queue_claimable ON ${s}.queue (queued, run_id) WHERE state = 'queued';
    CREATE TABLE ${s}.queue_behind (
      id bigserial PRIMARY KEY,
      run_id text NOT NULL,
      interrupts boolean NOT NULL,
      entry text NOT NULL
    );
    CREATE INDEX queue_behind_run ON ${s}.queue_behind (run_id, id);
    CREATE TABLE ${s}.notes (
      namespace text NOT NULL,
      key text NOT NULL,
      description text NOT NULL,
      content bytea NOT NULL,
      PRIMARY KEY (namespace, key)
    );
  `,
  (s) => `
    ALTER TABLE ${s}.queue ALTER COLUMN entry TYPE bytea USING convert_to(entry, 'UTF8');
    ALTER TABLE ${s}.queue_behind ALTER COLUMN entry TYPE bytea USING convert_to(entry, 'UTF8');
    CREATE TABLE ${s}.quarantine (
      id bigserial PRIMARY KEY,
      name text NOT NULL UNIQUE,
      reason text NOT NULL,
      entry bytea NOT NULL
    );
  `,
];

/** The version of the schema's tables, 0 where fisk-ai never made them. */
async function versionIn(client: pg.ClientBase, schema: string): Promise<number> {
  try {
    const { rows } = await client.query<{ version: number }>(`SELECT version FROM ${quoted(schema)}.schema_version`);
    return rows[0]?.version ?? 0;
  } catch (error) {
    const state = sqlState(error);
    if (state === UNDEFINED_TABLE || state === UNDEFINED_SCHEMA) return 0;
    throw error;
  }
}

function newerError(where: string, version: number): RunStateError {
  return new RunStateError(
    "ERR_STORE_CONFIG",
    `${where} holds fisk-ai's tables at schema version ${version}, made by a newer fisk-ai; this one reads version ${SCHEMA_VERSION}: upgrade fisk-ai`,
  );
}

/**
 * Makes sure the schema is this fisk-ai's version, making or migrating it when it is older
 * (in one transaction); ERR_STORE_CONFIG when a newer fisk-ai made it, or when the role may
 * not make it (an owner runs `store init` once). Returns the version it was found at.
 */
export async function ensureSchema(client: pg.ClientBase, schema: string, where: string): Promise<number> {
  let found: number;
  try {
    found = await versionIn(client, schema);
  } catch (error) {
    throw ioError(where, "reading the schema version", error);
  }
  if (found > SCHEMA_VERSION) throw newerError(where, found);
  if (found === SCHEMA_VERSION) return found;
  const s = quoted(schema);
  try {
    await client.query("BEGIN");
    // One migrator at a time, keyed by the schema's name; the others wait, then find it done.
    await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`fisk-ai schema ${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${s}.schema_version (version integer NOT NULL)`);
    const current = await versionIn(client, schema);
    if (current > SCHEMA_VERSION) throw newerError(where, current);
    for (let version = current; version < SCHEMA_VERSION; version++) await client.query((MIGRATIONS[version] as (s: string) => string)(s));
    await client.query(`DELETE FROM ${s}.schema_version`);
    await client.query(`INSERT INTO ${s}.schema_version (version) VALUES ($1)`, [SCHEMA_VERSION]);
    await client.query("COMMIT");
    return found;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    if (sqlState(error) === "42501") {
      throw new RunStateError(
        "ERR_STORE_CONFIG",
        `${where} has no fisk-ai tables at version ${SCHEMA_VERSION} and this role may not make them: have an owner of the database make them once (fisk-ai store init)`,
        { cause: error },
      );
    }
    throw ioError(where, "making fisk-ai's tables", error);
  }
}
