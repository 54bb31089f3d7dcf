// fisk-ai's tables in a Postgres schema of their own: made on first use (or by `fisk-ai
// store init URL`, for a role that may use tables but not make them), versioned in one
// row, and migrated forward in a transaction under a transaction-level advisory lock, so
// two processes starting at once migrate once. A schema a newer fisk-ai made is refused,
// never read as if it were this one's.
import type pg from "pg";
import { RunStateError } from "../../runstate/errors.js";
import { ioError, sqlState } from "./connection.js";

/** The schema version this fisk-ai reads and writes. */
export const SCHEMA_VERSION = 3;

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
 * Version 3 moves the summary, which every append rewrote whole, out of one JSON column: the
 * meta, which never changes, to `metas`; in `runs` what each append changes (bytes, time,
 * seq) and last the digest (without its bytes), which changes only with its counts. An
 * append's update of its run's row is then HOT (no index on what changes, room left on the
 * page for new versions of narrow rows), and its WAL record carries only the bytes between
 * the first and the last that differ from the row's last version. Summaries an older
 * fisk-ai wrote are carried over; one that is not JSON is left to be read from the records.
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
  (s) => `
    CREATE TABLE ${s}.metas (
      run_id text PRIMARY KEY,
      meta text NOT NULL
    );
    CREATE TABLE ${s}.runs_split (
      run_id text PRIMARY KEY,
      bytes bigint,
      updated timestamptz NOT NULL DEFAULT now(),
      last_seq integer NOT NULL,
      digest text
    ) WITH (fillfactor = 70);
    DO $$
    DECLARE r record;
    BEGIN
      FOR r IN SELECT run_id, last_seq, updated, summary FROM ${s}.runs WHERE summary IS NOT NULL LOOP
        BEGIN
          INSERT INTO ${s}.runs_split (run_id, bytes, updated, last_seq, digest)
          VALUES (r.run_id, (r.summary::json -> 'digest' ->> 'bytes')::bigint, r.updated, r.last_seq, (r.summary::json -> 'digest')::text);
          INSERT INTO ${s}.metas (run_id, meta)
          SELECT r.run_id, (r.summary::json -> 'meta')::text WHERE r.summary::json -> 'meta' IS NOT NULL;
        EXCEPTION WHEN data_exception THEN
          NULL;
        END;
      END LOOP;
    END $$;
    INSERT INTO ${s}.runs_split (run_id, updated, last_seq)
    SELECT run_id, updated, last_seq FROM ${s}.runs ON CONFLICT (run_id) DO NOTHING;
    DROP TABLE ${s}.runs;
    ALTER TABLE ${s}.runs_split RENAME TO runs;
    ALTER INDEX ${s}.runs_split_pkey RENAME TO runs_pkey;
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
 * `target` is an older version only for a test of the migrations from it.
 */
export async function ensureSchema(client: pg.ClientBase, schema: string, where: string, target = SCHEMA_VERSION): Promise<number> {
  let found: number;
  try {
    found = await versionIn(client, schema);
  } catch (error) {
    throw ioError(where, "reading the schema version", error);
  }
  if (found > SCHEMA_VERSION) throw newerError(where, found);
  if (found >= target) return found;
  const s = quoted(schema);
  try {
    await client.query("BEGIN");
    // One migrator at a time, keyed by the schema's name; the others wait, then find it done.
    await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`fisk-ai schema ${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${s}.schema_version (version integer NOT NULL)`);
    const current = await versionIn(client, schema);
    if (current > SCHEMA_VERSION) throw newerError(where, current);
    for (let version = current; version < target; version++) await client.query((MIGRATIONS[version] as (s: string) => string)(s));
    await client.query(`DELETE FROM ${s}.schema_version`);
    await client.query(`INSERT INTO ${s}.schema_version (version) VALUES ($1)`, [Math.max(current, target)]);
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
