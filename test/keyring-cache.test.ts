// covers: src/trust/keyring.ts
// A long-lived process (a worker, the server) reads the keyring on each decision and resume:
// it is parsed once while the file stays the same, and read afresh the moment it is not
// (rotated, a key removed, edited by hand to the same length); a keyring made readable by
// others is refused at once, cached or not.
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createKeyring, readKeyring, removeKey, rotateKey } from "../src/trust/keyring.js";
import { isFiskError } from "../src/index.js";

const root = mkdtempSync(join(tmpdir(), "fisk-ai-keyring-cache-"));
after(() => rmSync(root, { recursive: true, force: true }));

describe("the keyring as a long-lived process reads it", () => {
  it("is parsed once while the file is the same, and read again after each change", () => {
    const path = join(root, "keys.json");
    const first = createKeyring(path);
    assert.equal(readKeyring(path), readKeyring(path), "the same file gives the keyring already read");
    const rotated = rotateKey(path);
    assert.equal(readKeyring(path)?.current?.id, rotated);
    assert.ok(readKeyring(path)?.keys.has(first.current?.id as string), "the key before still verifies");
    removeKey(path, first.current?.id as string);
    assert.deepEqual([...(readKeyring(path)?.keys.keys() ?? [])], [rotated]);
    // A hand edit of the same length: another secret for the same id, in place.
    const text = readFileSync(path, "utf8");
    const secret = JSON.parse(text).keys[rotated] as string;
    const other = Buffer.alloc(32, 7).toString("base64");
    assert.equal(other.length, secret.length);
    writeFileSync(path, text.replace(secret, other));
    assert.deepEqual(readKeyring(path)?.keys.get(rotated), Buffer.alloc(32, 7));
  });

  it("refuses a keyring made readable by others after it was read, and forgets one removed", () => {
    const path = join(root, "shared.json");
    createKeyring(path);
    assert.ok(readKeyring(path) !== undefined);
    chmodSync(path, 0o644);
    assert.throws(
      () => readKeyring(path),
      (error) => isFiskError(error) && error.code === "ERR_SIGNING_KEYS" && /can be read by others: chmod 600/.test(error.message),
    );
    rmSync(path);
    assert.equal(readKeyring(path), undefined);
  });
});
