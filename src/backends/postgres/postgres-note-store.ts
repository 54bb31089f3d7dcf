// Memory notes in Postgres: one row of `notes` a note, keyed by (namespace, key), its
// content kept as its UTF-8 bytes so that any text comes back exactly. The writes of a
// namespace take one transaction-level advisory lock, so the create-or-refuse decision
// and the count against MAX_NOTES are made by one writer at a time.
import type pg from "pg";
import { checkKey, checkWrite, plannedWrite, type Note, type NoteItem, type NoteStore, type WriteOutcome } from "../../memory/note-store.js";
import { inTransaction, onPool } from "./connection.js";
import { quoted } from "./schema.js";

/** What notes need of the store they are kept beside (PostgresStore has it). */
export interface NotesHome {
  readonly schema: string;
  /** The server and schema, for messages. */
  readonly where: string;
  readonly queries: pg.Pool;
}

export class PostgresNoteStore implements NoteStore {
  readonly #store: NotesHome;
  readonly #namespace: string;
  readonly #s: string;

  /** The notes of `namespace` (an agent's, as memoryDir names it for files), in the store's schema. */
  constructor(store: NotesHome, namespace: string) {
    this.#store = store;
    this.#namespace = namespace;
    this.#s = quoted(store.schema);
  }

  async list(): Promise<NoteItem[]> {
    // Byte order, as every backend sorts keys, whatever the database's collation.
    const { rows } = await this.#query("listing notes", (client) =>
      client.query<NoteItem>(`SELECT key, description FROM ${this.#s}.notes WHERE namespace = $1 ORDER BY key COLLATE "C"`, [this.#namespace]),
    );
    return rows.map(({ key, description }) => ({ key, description }));
  }

  async read(key: string): Promise<Note | undefined> {
    checkKey(key);
    return this.#query(`reading note ${key}`, (client) => this.#read(client, key));
  }

  async write(key: string, note: Note, overwrite: boolean): Promise<WriteOutcome> {
    const checked = checkWrite(key, note);
    return inTransaction(this.#store.queries, this.#store.where, `writing note ${key}`, async (client) => {
      await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`fisk-ai notes ${this.#store.schema} ${this.#namespace}`]);
      const planned = await plannedWrite(key, await this.#read(client, key), checked, overwrite, async () => {
        const { rows } = await client.query<{ count: string }>(`SELECT count(*) AS count FROM ${this.#s}.notes WHERE namespace = $1`, [this.#namespace]);
        return Number(rows[0]?.count ?? 0);
      });
      if (planned === "unchanged") return planned;
      await client.query(
        `INSERT INTO ${this.#s}.notes (namespace, key, description, content) VALUES ($1, $2, $3, $4)
          ON CONFLICT (namespace, key) DO UPDATE SET description = excluded.description, content = excluded.content`,
        [this.#namespace, key, checked.description, Buffer.from(checked.content, "utf8")],
      );
      return planned;
    });
  }

  async delete(key: string): Promise<boolean> {
    checkKey(key);
    const { rowCount } = await this.#query(`removing note ${key}`, (client) =>
      client.query(`DELETE FROM ${this.#s}.notes WHERE namespace = $1 AND key = $2`, [this.#namespace, key]),
    );
    return rowCount === 1;
  }

  async #read(client: pg.ClientBase | pg.Pool, key: string): Promise<Note | undefined> {
    const { rows } = await client.query<{ description: string; content: Buffer }>(
      `SELECT description, content FROM ${this.#s}.notes WHERE namespace = $1 AND key = $2`,
      [this.#namespace, key],
    );
    const row = rows[0];
    return row === undefined ? undefined : { description: row.description, content: row.content.toString("utf8") };
  }

  /** A statement on the store's query pool; a failure of the server is ERR_IO. */
  #query<T>(doing: string, statement: (queries: pg.Pool) => Promise<T>): Promise<T> {
    return onPool(this.#store.queries, this.#store.where, doing, statement);
  }
}
