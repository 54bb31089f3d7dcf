// Output of any length written as it is made: pieces of about 64 KiB, each taken only
// once the stream has room, so a slow reader (a pipe into less) holds up the reading
// instead of the output piling up in memory.
import { once } from "node:events";

const PIECE = 64 * 1024;

/** A stream written in pieces, waiting for it to drain between them. */
export class PacedOutput {
  readonly #out: NodeJS.WritableStream;
  #parts: string[] = [];
  #length = 0;

  constructor(out: NodeJS.WritableStream) {
    this.#out = out;
  }

  /** Adds `text`; resolves at once, or when a full piece has been taken by the stream. */
  async write(text: string): Promise<void> {
    this.#parts.push(text);
    this.#length += text.length;
    if (this.#length >= PIECE) await this.flush();
  }

  /** Writes what is held, and waits until the stream has taken it. */
  async flush(): Promise<void> {
    if (this.#length === 0) return;
    const piece = this.#parts.join("");
    this.#parts = [];
    this.#length = 0;
    if (!this.#out.write(piece)) await once(this.#out, "drain");
  }

  /** Writes `bytes` after what is held, and waits until the stream has taken them. */
  async writeBytes(bytes: Uint8Array): Promise<void> {
    await this.flush();
    if (!this.#out.write(bytes)) await once(this.#out, "drain");
  }
}
