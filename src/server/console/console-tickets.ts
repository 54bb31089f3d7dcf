// The console's sign-in, without keeping the key anywhere a script or a log can read it: the
// key a person posts once is sealed (AES-256-GCM, under the server's console secret) into an
// HttpOnly cookie, and each request opens it and authenticates the key as a client's bearer
// key would be, so a key revoked or given other roles takes effect at once. A sealed ticket
// also names its sign-in (`sid`), which its CSRF token is derived from and sign-out revokes.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";
import type { RevokedTickets } from "./revoked-tickets.js";

/** What a sealed ticket holds. */
export interface Ticket {
  /** This sign-in, for its CSRF token and its sign-out. */
  sid: string;
  /** The API key it was signed in with. */
  key: string;
  /** When it stops being taken, in ms since the epoch. */
  expires: number;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The console's sign-ins: seals each into a cookie, opens it, and signs it out (made by openConsoleTickets). */
export class ConsoleTickets {
  readonly #sealKey: Buffer;
  readonly #csrfKey: Buffer;
  readonly #revoked: RevokedTickets;
  readonly #ttlMs: number;

  /**
   * `secret`: the server's console secret (random bytes, kept across restarts: console-secret.ts).
   * @hidden
   */
  constructor(secret: Uint8Array, revoked: RevokedTickets, ttlMs: number) {
    this.#sealKey = Buffer.from(hkdfSync("sha256", secret, Buffer.alloc(0), "fisk-ai console ticket", 32));
    this.#csrfKey = Buffer.from(hkdfSync("sha256", secret, Buffer.alloc(0), "fisk-ai console csrf", 32));
    this.#revoked = revoked;
    this.#ttlMs = ttlMs;
  }

  /** A new sign-in's ticket for `key`, sealed as the cookie's value. */
  issue(
    key: string,
    now = Date.now(),
  ): {
    /** What the cookie holds. */
    ticket: Ticket;
    /** The cookie's value. */
    sealed: string;
  } {
    const ticket: Ticket = { sid: randomBytes(16).toString("base64url"), key, expires: now + this.#ttlMs };
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.#sealKey, iv);
    const body = Buffer.concat([cipher.update(JSON.stringify(ticket), "utf8"), cipher.final()]);
    return { ticket, sealed: Buffer.concat([iv, body, cipher.getAuthTag()]).toString("base64url") };
  }

  /** The ticket a cookie holds, when it was sealed here, has not expired and was not signed out; else undefined. */
  open(sealed: string, now = Date.now()): Ticket | undefined {
    const bytes = Buffer.from(sealed, "base64url");
    if (bytes.length <= IV_BYTES + TAG_BYTES) return undefined;
    let ticket: unknown;
    try {
      const decipher = createDecipheriv("aes-256-gcm", this.#sealKey, bytes.subarray(0, IV_BYTES));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      ticket = JSON.parse(Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString("utf8"));
    } catch {
      // Not sealed under this secret, or altered: no sign-in.
      return undefined;
    }
    if (!isTicket(ticket) || ticket.expires <= now || this.#revoked.has(ticket.sid)) return undefined;
    return ticket;
  }

  /** The token a request that changes something must carry beside the cookie. */
  csrfOf(ticket: Ticket): string {
    return createHmac("sha256", this.#csrfKey).update(ticket.sid).digest("base64url");
  }

  /** Whether `token` is the CSRF token of `ticket`. */
  csrfMatches(ticket: Ticket, token: string | undefined): boolean {
    const expected = Buffer.from(this.csrfOf(ticket));
    const given = Buffer.from(token ?? "");
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /** Ends a sign-in: its cookie is refused from now on, here and after a restart. */
  async revoke(ticket: Ticket): Promise<void> {
    await this.#revoked.add(ticket.sid, ticket.expires);
  }
}

function isTicket(value: unknown): value is Ticket {
  if (typeof value !== "object" || value === null) return false;
  const { sid, key, expires } = value as Record<string, unknown>;
  return typeof sid === "string" && typeof key === "string" && typeof expires === "number";
}
