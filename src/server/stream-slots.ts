// A cap on the event streams open at once: each holds a connection and a watch of the
// queue for as long as the client stays, so past the cap a new one is refused (503) and
// every other client keeps being served. The slots also reach every open stream, so that
// a change of keys is checked by each at once, not at its next event.
import { ServerError } from "./problem.js";

/** The streams a server lets be open at once, counted. */
export class StreamSlots {
  readonly #cap: number;
  readonly #rechecks = new Set<() => void>();
  #open = 0;

  constructor(cap: number) {
    this.#cap = cap;
  }

  /** The streams open now. */
  get open(): number {
    return this.#open;
  }

  /**
   * Takes a slot, or refuses with ERR_TOO_MANY_STREAMS; `recheck` is called on each recheck()
   * while the slot is held. The function returned gives the slot back, once.
   */
  take(recheck: () => void = () => undefined): () => void {
    if (this.#open >= this.#cap) throw new ServerError("ERR_TOO_MANY_STREAMS", `this server has ${this.#cap} event streams open, its cap: try again later`);
    this.#open++;
    const held = () => recheck();
    this.#rechecks.add(held);
    let given = false;
    return () => {
      if (!given) this.#open--;
      given = true;
      this.#rechecks.delete(held);
    };
  }

  /** Has every open stream check its principal again now (its key may have been revoked). */
  recheck(): void {
    for (const recheck of this.#rechecks) recheck();
  }
}
