// A Postgres store URL, read without loading the driver: the connection string a Postgres
// user writes, with `?schema=` for where fisk-ai's tables are. Messages name the server
// by `describeUrl`, never with its password.
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

/** What a connection string says, parsed: the driver's settings, the schema, and the server named for messages. */
export interface PostgresTarget {
  /** The connection string the driver gets: the one given, without `schema`. */
  connectionString: string;
  /** The schema of fisk-ai's tables. */
  schema: string;
  /** `postgres://user@host:port/db schema fisk_ai`, without the password: for messages. */
  where: string;
}

/** The form of a Postgres store URL, for messages. */
export const POSTGRES_FORM =
  "postgres://USER@HOST:PORT/DATABASE?schema=NAME (postgresql:// alike; a plain lower-case schema name, default fisk_ai; what the URL leaves out comes from PGHOST, PGUSER, PGPASSWORD, ~/.pgpass)";

/** Why `url` is not a Postgres store URL, or undefined when it is one. */
export function postgresUrlProblem(url: URL): string | undefined {
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") return `a Postgres store URL starts postgres:// or postgresql://, not ${url.protocol}//`;
  const schema = url.searchParams.get("schema") ?? DEFAULT_SCHEMA;
  if (!SCHEMA_NAME.test(schema)) return `schema ${JSON.stringify(schema)} is not a plain lower-case name (letters, digits and _, at most 63)`;
  return undefined;
}

/** The target a store URL names; ERR_STORE_CONFIG for one that is not a Postgres URL or names a bad schema. */
export function parsePostgresUrl(url: string): PostgresTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new RunStateError("ERR_STORE_CONFIG", `the store URL is not a URL: give ${POSTGRES_FORM}`);
  }
  const problem = postgresUrlProblem(parsed);
  if (problem !== undefined) throw new RunStateError("ERR_STORE_CONFIG", `${problem}: give ${POSTGRES_FORM}`);
  const schema = parsed.searchParams.get("schema") ?? DEFAULT_SCHEMA;
  parsed.searchParams.delete("schema");
  return { connectionString: parsed.toString(), schema, where: `${describeUrl(parsed)} schema ${schema}` };
}

/** A Postgres URL as messages name it: no password, and what the environment fills in said so. */
function describeUrl(url: URL): string {
  const user = url.username === "" ? "" : `${decodeURIComponent(url.username)}@`;
  const host = url.host === "" ? "(PGHOST)" : url.host;
  const database = url.pathname.length > 1 ? decodeURIComponent(url.pathname.slice(1)) : "(PGDATABASE)";
  return `postgres://${user}${host}/${database}`;
}
