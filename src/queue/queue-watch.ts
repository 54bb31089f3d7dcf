// A queue's watches (RunQueue.watch), whatever a backend hears its changes from: each
// watch keeps a flag that a change sets and the `next` that sees it clears, so a change
// between a waiter's look and its wait is not lost; the queue closes what is left open.
import type { QueueWatch } from "./run-queue.js";

/** Starts hearing changes, calling `changed` for each; returns how to stop. */
export type Attach = (changed: () => void) => () => void;

/** The open watches of one queue. */
export class QueueWatches {
  readonly #open = new Set<QueueWatch>();
  #closed = false;

  /** A watch fed by `attach`; once the queue is closed, one that only waits its timeouts. */
  open(attach: Attach): QueueWatch {
    let pending = false;
    const waiting = new Set<() => void>();
    const changed = () => {
      pending = true;
      for (const wake of waiting) wake();
    };
    const detach = this.#closed ? () => undefined : attach(changed);
    const watch: QueueWatch = {
      next: (timeoutMs, signal) =>
        new Promise<void>((resolve) => {
          if (pending || signal?.aborted) {
            pending = false;
            resolve();
            return;
          }
          const done = () => {
            clearTimeout(timer);
            signal?.removeEventListener("abort", done);
            waiting.delete(done);
            pending = false;
            resolve();
          };
          const timer = setTimeout(done, timeoutMs);
          signal?.addEventListener("abort", done, { once: true });
          waiting.add(done);
        }),
      close: () => {
        if (this.#open.delete(watch)) detach();
      },
    };
    if (!this.#closed) this.#open.add(watch);
    return watch;
  }

  /** Stops every watch still open; later ones only wait their timeouts. */
  closeAll(): void {
    this.#closed = true;
    for (const watch of [...this.#open]) watch.close();
  }
}
