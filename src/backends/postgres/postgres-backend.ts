// The Postgres backend's bundle (the store in its schema, the queue and the notes beside it),
// and the making of its tables ahead of first use (`fisk-ai store init URL`).
import pg from "pg";
import type { Backend } from "../backend.js";
import { ioError } from "./connection.js";
import { PostgresNoteStore } from "./postgres-note-store.js";
import { connectPostgresStore } from "./postgres-store.js";
import { parsePostgresUrl, type PostgresStoreConfig } from "./postgres-url.js";
import { ensureSchema, SCHEMA_VERSION } from "./schema.js";

/** Connects to the database `config.url` names, making or migrating fisk-ai's tables there if they are older. */
export async function openPostgresBackend(config: PostgresStoreConfig, report?: (line: string) => void): Promise<Backend> {
  const store = await connectPostgresStore(config, report);
  return { store, queue: store.runQueue(), notes: (namespace) => new PostgresNoteStore(store, namespace) };
}

/** What `initPostgresSchema` found and left. */
export interface SchemaInit {
  /** The server and schema, without a password. */
  where: string;
  /** The schema version found: 0 where fisk-ai's tables were not there. */
  found: number;
  /** The version they are at now. */
  version: number;
}

/**
 * Makes or migrates fisk-ai's tables in the schema `url` names, as the first use would, for
 * an owner to run once where the roles that run agents may not make tables.
 */
export async function initPostgresSchema(url: string): Promise<SchemaInit> {
  const target = parsePostgresUrl(url);
  const client = new pg.Client({ connectionString: target.connectionString });
  try {
    await client.connect();
  } catch (error) {
    throw ioError(target.where, "connecting", error);
  }
  try {
    const found = await ensureSchema(client, target.schema, target.where);
    return { where: target.where, found, version: SCHEMA_VERSION };
  } finally {
    await client.end().catch(() => undefined);
  }
}
