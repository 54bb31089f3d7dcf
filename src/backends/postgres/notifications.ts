// Wake-ups from the server: one connection a queue LISTENs on, lazily opened at the first
// listener, reopened after it fails (a restart, a cut connection). Every listener is called
// once it is back, since what was notified meanwhile is lost: a waiter looks again. The
// poll each waiter keeps stays the bound; a notification only makes it come sooner.
import { createHash } from "node:crypto";
import pg from "pg";

/** How long after a failed connection the listener tries again. */
const RECONNECT_MS = 500;

/** The channel of a schema's queue: a short name, as a channel is an identifier of at most 63 bytes. */
export function channelOf(schema: string): string {
  return `fisk_ai_${createHash("sha256").update(schema).digest("hex").slice(0, 16)}`;
}

/** Calls its listeners with each notification's payload; undefined when the connection was lost and came back. */
export class Notifications {
  readonly #connectionString: string;
  readonly #channel: string;
  readonly #listeners = new Set<(payload: string | undefined) => void>();
  #client: pg.Client | undefined;
  #retry: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(connectionString: string, channel: string) {
    this.#connectionString = connectionString;
    this.#channel = channel;
  }

  /** Hears every notification from now on; returns how to stop. */
  listen(listener: (payload: string | undefined) => void): () => void {
    this.#listeners.add(listener);
    if (this.#client === undefined && this.#retry === undefined) void this.#connect();
    return () => this.#listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    this.#listeners.clear();
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  async #connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.#connectionString });
    this.#client = client;
    const lost = () => {
      if (this.#client !== client) return;
      this.#client = undefined;
      void client.end().catch(() => undefined);
      if (this.#closed) return;
      this.#retry = setTimeout(() => {
        this.#retry = undefined;
        void this.#connect();
      }, RECONNECT_MS);
      this.#retry.unref();
    };
    client.on("error", lost);
    client.on("end", lost);
    client.on("notification", ({ payload }) => {
      for (const listener of this.#listeners) listener(payload ?? "");
    });
    try {
      await client.connect();
      await client.query(`LISTEN "${this.#channel}"`);
      // Back after a failure: what was notified meanwhile is lost, so everyone looks again.
      for (const listener of this.#listeners) listener(undefined);
    } catch {
      lost();
    }
  }
}
