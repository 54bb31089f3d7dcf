// The console sign-ins signed out before they expired, in a file beside the console secret,
// so a cookie taken before sign-out stays refused after a restart. Each line is
// `SID EXPIRES`; a line whose ticket expired is dropped when the file is read.
import { appendFile, open, readFile } from "node:fs/promises";

export class RevokedTickets {
  readonly #path: string;
  readonly #sids = new Set<string>();

  private constructor(path: string) {
    this.#path = path;
  }

  static async open(path: string, now = Date.now()): Promise<RevokedTickets> {
    const revoked = new RevokedTickets(path);
    let text = "";
    try {
      text = await readFile(path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    for (const line of text.split("\n")) {
      const [sid, expires] = line.split(" ");
      if (sid !== undefined && sid !== "" && Number(expires) > now) revoked.#sids.add(sid);
    }
    return revoked;
  }

  has(sid: string): boolean {
    return this.#sids.has(sid);
  }

  /** Refuses `sid` from now on; on disk (synced) before it returns, so a crash just after does not undo a sign-out. */
  async add(sid: string, expires: number): Promise<void> {
    this.#sids.add(sid);
    await appendFile(this.#path, `${sid} ${expires}\n`, { mode: 0o600 });
    const file = await open(this.#path, "r");
    try {
      await file.sync();
    } finally {
      await file.close();
    }
  }
}
