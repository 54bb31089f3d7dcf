// Where an agent's memory notes are kept: beside its sessions where their backend keeps notes
// (Postgres: in the store's schema), else in files under memoryDir(namespace), as always.
// Each call opens the backend and closes it after: a run reads and writes notes a few times,
// and a note store with nothing to close fits every caller (a run's memory tools, a worker's
// agent, `fisk-ai memory`), none of which connects to anything until a note is asked for.
import { FileNoteStore, memoryDir } from "../memory/file-note-store.js";
import type { Note, NoteItem, NoteStore, WriteOutcome } from "../memory/note-store.js";
import { openBackend } from "./open-backend.js";
import { registrationFor } from "./registry.js";
import type { StoreConfig } from "./store-config.js";

/** The notes of `namespace` for sessions kept where `store` names. */
export function notesBesideSessions(store: StoreConfig, namespace: string, env: NodeJS.ProcessEnv = process.env): NoteStore {
  const files = new FileNoteStore(memoryDir(namespace, env));
  return registrationFor(store)?.keepsNotes === true ? new BackendNotes(store, namespace, files) : files;
}

class BackendNotes implements NoteStore {
  readonly #store: StoreConfig;
  readonly #namespace: string;
  /** Where the notes are when the opened backend keeps none. */
  readonly #files: NoteStore;

  constructor(store: StoreConfig, namespace: string, files: NoteStore) {
    this.#store = store;
    this.#namespace = namespace;
    this.#files = files;
  }

  list(): Promise<NoteItem[]> {
    return this.#with((notes) => notes.list());
  }

  read(key: string): Promise<Note | undefined> {
    return this.#with((notes) => notes.read(key));
  }

  write(key: string, note: Note, overwrite: boolean): Promise<WriteOutcome> {
    return this.#with((notes) => notes.write(key, note, overwrite));
  }

  delete(key: string): Promise<boolean> {
    return this.#with((notes) => notes.delete(key));
  }

  async #with<T>(use: (notes: NoteStore) => Promise<T>): Promise<T> {
    const backend = await openBackend(this.#store);
    try {
      return await use(backend.notes?.(this.#namespace) ?? this.#files);
    } finally {
      await backend.queue?.close();
      await backend.store.close();
    }
  }
}
