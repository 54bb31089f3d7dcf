// Changes to a directory's entries, as fs.watch (inotify on Linux) reports them: one
// watcher a directory however many listen, closed once the last one stops (so a waiter
// that forgot its queue open keeps no process alive) or when the queue closes. Where no
// watcher can be made (the directory is gone, the inotify limit is reached) nothing is
// heard, and a waiter's timeout is its bound.
import { watch, type FSWatcher } from "node:fs";

/** Called with the name of the entry that changed; null where the platform did not say. */
export type ChangeListener = (name: string | null) => void;

interface Watched {
  watcher: FSWatcher;
  listeners: Set<ChangeListener>;
}

/** The directories a queue watches. */
export class DirectoryChanges {
  readonly #watched = new Map<string, Watched>();

  /** Hears changes to `dir`'s entries until the returned function is called. */
  listen(dir: string, listener: ChangeListener): () => void {
    const watched = this.#watched.get(dir) ?? this.#watch(dir);
    if (watched === undefined) return () => undefined;
    watched.listeners.add(listener);
    return () => {
      watched.listeners.delete(listener);
      if (watched.listeners.size === 0) this.#unwatch(dir, watched);
    };
  }

  /** Closes every watcher. */
  close(): void {
    for (const [dir, watched] of [...this.#watched]) this.#unwatch(dir, watched);
  }

  #watch(dir: string): Watched | undefined {
    const listeners = new Set<ChangeListener>();
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, (_event, name) => {
        for (const listener of listeners) listener(name);
      });
    } catch {
      return undefined;
    }
    // The directory went (or the watch broke): its listeners hear nothing more and wait their timeouts.
    const watched = { watcher, listeners };
    watcher.on("error", () => this.#unwatch(dir, watched));
    this.#watched.set(dir, watched);
    return watched;
  }

  /** Closes `watched`, and forgets it unless another watcher of `dir` took its place (after an error). */
  #unwatch(dir: string, watched: Watched): void {
    watched.watcher.close();
    if (this.#watched.get(dir) === watched) this.#watched.delete(dir);
  }
}
