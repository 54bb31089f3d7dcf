// One tenant's view of a store a service shares between several (docs/server.md#keys-and-tenants).
// Every read and write by id asks first whose the session is (its meta's tenant, from the
// journal's first record, which never changes), and another tenant's session is the same
// ERR_NOT_FOUND, word for word, as a session that does not exist: a guessed id tells nothing.
// A listing holds the tenant's sessions alone. Everything built on a Store (decide, fork,
// export, delete, queueing, sub-agents) is scoped by handing it this view.
import { wrapsStore } from "../trust/installation-keys.js";
import { RunStateError, isRunStateError } from "../runstate/errors.js";
import { decodeRecordLine, JournalLines } from "../runstate/records/journal-codec.js";
import type { JournalRecord, MetaPayload } from "../runstate/records/records.js";
import type { RunState } from "../runstate/views/fold.js";
import type { Journal, JournalBytes, RunSummary, Store } from "../runstate/store/store.js";
import { journalPieces } from "../runstate/store/journal-pieces.js";
import { notFoundError } from "../runstate/store/store-contract.js";
import { DEFAULT_TENANT, tenantOf } from "../runstate/store/tenant.js";

/**
 * `store` as `tenant` sees it: only sessions whose meta names `tenant` (sessions without
 * one are the default tenant's). A session of another tenant, or one whose meta cannot be
 * read, is not found; a new session or an imported journal must name `tenant` in its meta
 * (ERR_INVALID_RECORD otherwise). Closing the view leaves `store` open: it is its opener's.
 */
export function tenantStore(store: Store, tenant: string): Store {
  const view = new TenantStore(store, tenant);
  // As shared as the store under it: decisions are signed as they would be there.
  return wrapsStore(view, store);
}

class TenantStore implements Store {
  readonly writers?: NonNullable<Store["writers"]>;
  readonly readJournals?: NonNullable<Store["readJournals"]>;
  readonly #store: Store;
  readonly #tenant: string;

  constructor(store: Store, tenant: string) {
    this.#store = store;
    this.#tenant = tenant;
    if (store.writers !== undefined) this.writers = store.writers;
    const readJournals = store.readJournals?.bind(store);
    if (readJournals !== undefined) {
      this.readJournals = async (visit) => {
        const own = new Set((await this.list()).map((summary) => summary.runId));
        await readJournals((runId, lines) => (own.has(runId) ? visit(runId, lines) : true));
      };
    }
  }

  async create(runId: string, meta: MetaPayload): Promise<Journal> {
    this.#refuseOther(meta, runId);
    return this.#store.create(runId, meta);
  }

  async open(runId: string): Promise<Journal> {
    await this.#own(runId);
    return this.#store.open(runId);
  }

  async load(runId: string): Promise<RunState> {
    await this.#own(runId);
    return this.#store.load(runId);
  }

  async list(): Promise<RunSummary[]> {
    const summaries = await this.#store.list();
    const owned = await Promise.all(summaries.map((summary) => this.#owns(summary)));
    return summaries.filter((_, index) => owned[index]);
  }

  async summarize(runId: string, options?: { digest?: boolean }): Promise<RunSummary> {
    const summary = await this.#hidingMissing(runId, () => this.#store.summarize(runId, options));
    if (!(await this.#owns(summary))) throw notFoundError(runId);
    return summary;
  }

  async *readRecords(runId: string, fromSeq?: number): AsyncIterable<JournalRecord> {
    await this.#own(runId);
    yield* this.#store.readRecords(runId, fromSeq);
  }

  async readJournal(runId: string): Promise<Uint8Array> {
    await this.#own(runId);
    return this.#store.readJournal(runId);
  }

  async *readJournalPieces(runId: string): AsyncIterable<Uint8Array> {
    await this.#own(runId);
    yield* journalPieces(this.#store, runId);
  }

  /** A journal whose first line is no meta is the store's to refuse, as it refuses it anywhere. */
  async importJournal(runId: string, journal: JournalBytes): Promise<void> {
    const checkFirst = (line: Uint8Array) => {
      let first: JournalRecord | undefined;
      try {
        first = decodeRecordLine(line);
      } catch {
        first = undefined;
      }
      if (first !== undefined && "meta" in first) this.#refuseOther(first.meta, runId);
    };
    if (journal instanceof Uint8Array) {
      const end = Buffer.from(journal.buffer, journal.byteOffset, journal.byteLength).indexOf(0x0a);
      checkFirst(journal.subarray(0, end === -1 ? journal.byteLength : end));
      return this.#store.importJournal(runId, journal);
    }
    return this.#store.importJournal(runId, firstLineChecked(journal, checkFirst));
  }

  async delete(runId: string): Promise<void> {
    await this.#own(runId);
    return this.#store.delete(runId);
  }

  async close(): Promise<void> {}

  /**
   * Whether the run is this tenant's. A run the store could not summarize (corrupt, of a
   * newer version) is the tenant's its first line names, read leniently; the default
   * tenant's when that line names none or is no JSON, as every session without a tenant is.
   */
  async #owns(summary: RunSummary): Promise<boolean> {
    if (summary.meta !== undefined) return tenantOf(summary.meta) === this.#tenant;
    const bytes = await this.#store.readJournal(summary.runId).catch(() => new Uint8Array());
    return firstLineTenant(bytes) === this.#tenant;
  }

  /** Resolves when the session is this tenant's; the one not-found error when it is another's, unreadable, or missing. */
  async #own(runId: string): Promise<void> {
    await this.summarize(runId, { digest: false });
  }

  /** The store's answer, its own ERR_NOT_FOUND replaced by the view's, so a missing session and another tenant's read alike. */
  async #hidingMissing<T>(runId: string, read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (error) {
      if (isRunStateError(error) && error.code === "ERR_NOT_FOUND") throw notFoundError(runId);
      throw error;
    }
  }

  #refuseOther(meta: MetaPayload, runId: string): void {
    if (tenantOf(meta) !== this.#tenant) {
      throw new RunStateError(
        "ERR_INVALID_RECORD",
        `session ${runId} is tenant ${tenantOf(meta)}'s, and this store holds tenant ${this.#tenant}'s sessions: start it with tenant ${this.#tenant}`,
        { runId },
      );
    }
  }
}

/** The tenant a journal's first line names, without checking the line: the default tenant when it names none. */
function firstLineTenant(bytes: Uint8Array): string {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = buffer.indexOf(0x0a);
  try {
    const tenant = (JSON.parse(buffer.subarray(0, end === -1 ? buffer.length : end).toString("utf8")) as { meta?: { tenant?: unknown } }).meta?.tenant;
    return typeof tenant === "string" ? tenant : DEFAULT_TENANT;
  } catch {
    return DEFAULT_TENANT;
  }
}

/**
 * The pieces of `journal`, held back until its first line is whole and `check` has had it
 * (or until the read limit, past which the store refuses the line itself).
 */
async function* firstLineChecked(journal: AsyncIterable<Uint8Array>, check: (line: Uint8Array) => void): AsyncIterable<Uint8Array> {
  let checked = false;
  const held: Uint8Array[] = [];
  const lines = new JournalLines((line, lineNumber) => {
    if (lineNumber === 1) check(line);
    checked = true;
  });
  for await (const piece of journal) {
    if (!checked) {
      held.push(Buffer.from(piece));
      try {
        lines.push(piece);
      } catch (error) {
        if (!isRunStateError(error, "ERR_CORRUPT")) throw error;
        checked = true;
      }
      if (checked) yield* held.splice(0);
      continue;
    }
    yield piece;
  }
  yield* held;
}
