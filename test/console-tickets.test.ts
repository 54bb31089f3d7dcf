// covers: src/server/console/console-tickets.ts, src/server/console/revoked-tickets.ts
// tier: quick
// The console's sealed sign-in tickets: what a cookie opens to, and every way one is refused
// (another secret, a flipped byte, expired, signed out, signed out before a restart), and the
// CSRF token that only the sign-in's own page has.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { ConsoleTickets } from "../src/server/console/console-tickets.js";
import { RevokedTickets } from "../src/server/console/revoked-tickets.js";

const HOUR = 3_600_000;

async function tickets(secret = randomBytes(32), dir = mkdtempSync(join(tmpdir(), "fisk-tickets-"))) {
  return { secret, dir, tickets: new ConsoleTickets(secret, await RevokedTickets.open(join(dir, "revoked")), HOUR) };
}

describe("console tickets", () => {
  it("a sealed ticket opens to its key under the same secret, and the key is not readable in it", async () => {
    const { tickets: made } = await tickets();
    const { ticket, sealed } = made.issue("fisk_secret-key-value");
    assert.deepEqual(made.open(sealed), ticket);
    assert.ok(!Buffer.from(sealed, "base64url").toString("latin1").includes("secret-key-value"));
    assert.ok(!sealed.includes("secret-key-value"));
  });

  it("another secret, a flipped byte, a truncated or empty value open to nothing", async () => {
    const { tickets: made } = await tickets();
    const { tickets: other } = await tickets();
    const { sealed } = made.issue("k");
    assert.equal(other.open(sealed), undefined);
    const bytes = Buffer.from(sealed, "base64url");
    for (const at of [0, 13, bytes.length - 1]) {
      const flipped = Buffer.from(bytes);
      flipped[at] = (flipped[at] ?? 0) ^ 1;
      assert.equal(made.open(flipped.toString("base64url")), undefined, `byte ${at} flipped`);
    }
    assert.equal(made.open(sealed.slice(0, 20)), undefined);
    assert.equal(made.open(""), undefined);
    assert.equal(made.open("not base64 at all!"), undefined);
  });

  it("a ticket past its time opens to nothing", async () => {
    const { tickets: made } = await tickets();
    const now = Date.now();
    const { sealed } = made.issue("k", now);
    assert.notEqual(made.open(sealed, now + HOUR - 1), undefined);
    assert.equal(made.open(sealed, now + HOUR), undefined);
  });

  it("a signed-out ticket is refused, and still refused by a server started again on the same files", async () => {
    const { secret, dir, tickets: made } = await tickets();
    const { ticket, sealed } = made.issue("k");
    const { sealed: other } = made.issue("k");
    await made.revoke(ticket);
    assert.equal(made.open(sealed), undefined);
    assert.notEqual(made.open(other), undefined, "only the one signed out");
    const { tickets: restarted } = await tickets(secret, dir);
    assert.equal(restarted.open(sealed), undefined);
    assert.notEqual(restarted.open(other), undefined);
    assert.equal(statSync(join(dir, "revoked")).mode & 0o077, 0, "the file is its owner's alone");
    assert.ok(!readFileSync(join(dir, "revoked"), "utf8").includes("k "), "it holds sign-in ids, no key");
  });

  it("the CSRF token is the sign-in's own: another sign-in's, an empty or a longer one does not match", async () => {
    const { tickets: made } = await tickets();
    const { ticket } = made.issue("k");
    const { ticket: another } = made.issue("k");
    const token = made.csrfOf(ticket);
    assert.ok(made.csrfMatches(ticket, token));
    assert.ok(!made.csrfMatches(ticket, made.csrfOf(another)));
    assert.ok(!made.csrfMatches(ticket, ""));
    assert.ok(!made.csrfMatches(ticket, undefined));
    assert.ok(!made.csrfMatches(ticket, `${token}x`));
  });
});
