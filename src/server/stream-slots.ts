// A cap on the event streams open at once: each holds a connection and a watch of the
// queue for as long as the client stays, so past the cap a new one is refused (503) and
// every other client keeps being served.
import { ServerError } from "./problem.js";

/** The streams a server lets be open at once, counted. */
export class StreamSlots {
  readonly #cap: number;
  #open = 0;

  constructor(cap: number) {
    this.#cap = cap;
  }

  /** The streams open now. */
  get open(): number {
    return this.#open;
  }

  /** Takes a slot, or refuses with ERR_TOO_MANY_STREAMS; the function returned gives it back, once. */
  take(): () => void {
    if (this.#open >= this.#cap) throw new ServerError("ERR_TOO_MANY_STREAMS", `this server has ${this.#cap} event streams open, its cap: try again later`);
    this.#open++;
    let given = false;
    return () => {
      if (!given) this.#open--;
      given = true;
    };
  }
}
