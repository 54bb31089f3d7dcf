// covers: src/server/principal.ts, src/server/auth/auth-error.ts, src/server/auth/key-file.ts, src/server/auth/key-authenticator.ts
// covers: src/server/auth/key-file-watch.ts, src/server/auth/new-key.ts, src/server/auth/host-guard.ts
// covers: src/server/auth/listen-allowed.ts, src/server/auth/local-authenticator.ts, src/cli/key/key-command.ts, src/cli/key/key.ts, src/runstate/store/tenant.ts
// The service's keys, tried as an attacker would: every way a key file can be wrong, keys
// that are wrong, malformed, hashed or revoked (while a principal made from them is still
// held), a key never shown back in an error, DNS rebinding and cross-site requests against a
// loopback server without keys, and where a server may listen without them.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, renameSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { AuthError } from "../src/server/auth/auth-error.js";
import { hostGuard, loopbackHosts } from "../src/server/auth/host-guard.js";
import { KeySet, keyAuthenticator } from "../src/server/auth/key-authenticator.js";
import { keyHash, loadKeyFile, type KeyEntry } from "../src/server/auth/key-file.js";
import { watchKeyFile } from "../src/server/auth/key-file-watch.js";
import { isLoopback, listenAllowed } from "../src/server/auth/listen-allowed.js";
import { localAuthenticator } from "../src/server/auth/local-authenticator.js";
import { KEY_PREFIX, newApiKey, type KeyFileEntry } from "../src/server/auth/new-key.js";
import type { Principal } from "../src/server/principal.js";
import { runCli } from "./helpers/cli-harness.js";
import { eventually } from "./helpers/eventually.js";

const root = mkdtempSync(join(tmpdir(), "fisk-ai-server-auth-"));
after(() => rmSync(root, { recursive: true, force: true }));
let files = 0;

/** A key file of `content` (JSON of it unless a string), 0600 unless `mode` says otherwise. */
function keyFile(content: unknown, mode = 0o600): string {
  const path = join(root, `keys-${++files}.json`);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  chmodSync(path, mode);
  return path;
}

/** Rewrites a key file whole, under a new inode, as an editor that saves through a temp file does. */
function replaceKeyFile(path: string, entries: KeyFileEntry[]): void {
  const temp = `${path}.tmp`;
  writeFileSync(temp, JSON.stringify({ keys: entries }), { mode: 0o600 });
  renameSync(temp, path);
}

function request(headers: Record<string, string>, url = "http://127.0.0.1:8080/v1/sessions"): Request {
  return new Request(url, { headers });
}

function bearer(key: string): Request {
  return request({ authorization: `Bearer ${key}` });
}

const alice = newApiKey("alice", "acme", ["read", "run"]);
const bob = newApiKey("bob", "globex", ["approve"]);

async function refusal(content: unknown, mode?: number): Promise<string> {
  const error = await loadKeyFile(keyFile(content, mode)).then(
    () => assert.fail("the key file was accepted"),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof AuthError, String(error));
  assert.equal(error.code, "ERR_KEY_FILE");
  return error.message;
}

describe("the key file", () => {
  it("loads each entry's name, tenant, roles and hash; a file others can read but not write is accepted", async () => {
    const keys = await loadKeyFile(keyFile({ keys: [alice.entry, bob.entry] }, 0o644));
    assert.deepEqual(
      keys.map(({ name, tenant, roles, sha256 }) => [name, tenant, [...roles], sha256.toString("hex")]),
      [
        ["alice", "acme", ["read", "run"], keyHash(alice.key)],
        ["bob", "globex", ["approve"], keyHash(bob.key)],
      ],
    );
  });

  it("refuses a file that is not there, not a regular file, writable by others, or far too large", async () => {
    const missing = join(root, "nothing.json");
    await assert.rejects(loadKeyFile(missing), {
      code: "ERR_KEY_FILE",
      message: `the key file ${missing} does not exist: make it with the entries 'fisk-ai key create' prints`,
    });
    const folder = join(root, "a-folder");
    mkdirSync(folder);
    await assert.rejects(loadKeyFile(folder), { message: `the key file ${folder} is not a regular file` });
    // A FIFO is refused at once, never waited on for a writer.
    const fifo = join(root, "a-fifo");
    execFileSync("mkfifo", [fifo]);
    await assert.rejects(loadKeyFile(fifo), { message: `the key file ${fifo} is not a regular file` });
    const writable = keyFile({ keys: [] }, 0o620);
    await assert.rejects(loadKeyFile(writable), { message: `the key file ${writable} can be changed by others than its owner: chmod go-w ${writable}` });
    assert.match(await refusal({ keys: [] }, 0o602), /can be changed by others than its owner: chmod go-w/);
    const huge = keyFile("");
    truncateSync(huge, 5 * 1024 * 1024);
    await assert.rejects(loadKeyFile(huge), { message: `the key file ${huge} is 5242880 bytes, past the limit of 4194304: it is not a key file` });
  });

  it("names what is wrong with the file, its entry and its field", async () => {
    const entry = alice.entry;
    const cases: [unknown, string][] = [
      ["{not json", 'not JSON: expected {"keys": [{"name", "tenant", "roles", "sha256"}, ...]}'],
      [[entry], 'not an object with a "keys" list'],
      [{ keys: [], version: 2 }, 'unknown field "version" beside "keys"'],
      [{ keys: {} }, '"keys" is not a list'],
      [{ keys: [entry, "alice"] }, "entry 2 is not an object"],
      [{ keys: [{ ...entry, name: undefined }] }, "entry 1: name is missing"],
      [{ keys: [{ ...entry, name: "../alice" }] }, "entry 1: name is not 1 to 64 ASCII letters, digits, '.', '_', '@' or '-', starting with a letter or digit"],
      [{ keys: [{ ...entry, tenant: undefined }] }, "entry 1 (alice): tenant is missing"],
      [
        { keys: [{ ...entry, tenant: "acme/west" }] },
        "entry 1 (alice): tenant is not 1 to 64 ASCII letters, digits, '.', '_' or '-', starting with a letter or digit",
      ],
      [{ keys: [{ ...entry, tenant: 7 }] }, "entry 1 (alice): tenant is not a string"],
      [{ keys: [{ ...entry, roles: undefined }] }, "entry 1 (alice): roles is missing"],
      [{ keys: [{ ...entry, roles: [] }] }, "entry 1 (alice): roles is not a list of one or more of read, run, approve, admin"],
      [{ keys: [{ ...entry, roles: "read" }] }, "entry 1 (alice): roles is not a list of one or more of read, run, approve, admin"],
      [{ keys: [{ ...entry, roles: ["read", "root"] }] }, 'entry 1 (alice): roles is "root" is not a role (read, run, approve, admin)'],
      [{ keys: [{ ...entry, roles: ["read", "read"] }] }, "entry 1 (alice): roles is names a role twice"],
      [{ keys: [{ ...entry, sha256: undefined }] }, "entry 1 (alice): sha256 is missing"],
      [{ keys: [{ ...entry, sha256: entry.sha256.toUpperCase() }] }, "entry 1 (alice): sha256 is not 64 lowercase hex digits"],
      [{ keys: [entry, { ...bob.entry, name: "alice" }] }, "entry 2 (alice): name is the same as entry 1's"],
      [{ keys: [entry, { ...entry, name: "alice2" }] }, "entry 2 (alice2): sha256 is the same as entry 1's"],
    ];
    for (const [content, why] of cases) {
      const message = await refusal(content);
      assert.ok(message.includes(`is not usable: ${why}`), `${message}\nshould say: ${why}`);
      assert.ok(message.endsWith("(the format: docs/server.md#keys-and-tenants)"), message);
    }
  });

  it("never shows a key put in the file by mistake, as the hash or under a field of its own", async () => {
    for (const entry of [
      { ...alice.entry, sha256: alice.key },
      { ...alice.entry, key: alice.key },
      { ...alice.entry, [alice.key]: true },
    ]) {
      const message = await refusal({ keys: [entry] });
      assert.ok(!message.includes(alice.key.slice(KEY_PREFIX.length, KEY_PREFIX.length + 12)), message);
    }
  });
});

describe("the key authenticator", () => {
  it("knows a key's holder, tenant and roles from its Authorization header", async () => {
    const authenticate = keyAuthenticator(await loadKeyFile(keyFile({ keys: [alice.entry, bob.entry] })));
    const principal = await authenticate(bearer(alice.key));
    assert.deepEqual(principal && { name: principal.name, tenant: principal.tenant, roles: [...principal.roles] }, {
      name: "alice",
      tenant: "acme",
      roles: ["read", "run"],
    });
    assert.equal((await authenticate(request({ authorization: `bearer  ${bob.key}` })))?.name, "bob");
  });

  it("refuses (undefined: a 401) no key, a wrong one, another scheme, the key's hash, and a mangled or oversized header", async () => {
    const authenticate = keyAuthenticator(await loadKeyFile(keyFile({ keys: [alice.entry] })));
    const refused: Request[] = [
      request({}),
      bearer(newApiKey("mallory", "acme", ["admin"]).key),
      bearer(alice.entry.sha256),
      bearer(alice.key.slice(0, -1)),
      bearer(`${alice.key}x`),
      request({ authorization: `Basic ${Buffer.from(`alice:${alice.key}`).toString("base64")}` }),
      request({ authorization: alice.key }),
      request({ authorization: "Bearer" }),
      request({ authorization: `Bearer ${alice.key} ${alice.key}` }),
      request({ authorization: `Bearer ${alice.key}\tmore` }),
      request({ authorization: `Bearer ${"x".repeat(100_000)}` }),
      new Request(`http://127.0.0.1:8080/v1/sessions?key=${alice.key}`),
    ];
    for (const [index, one] of refused.entries()) assert.equal(await authenticate(one), undefined, `request ${index}`);
  });

  it("a key taken out of the set stops authenticating, and a principal made from it is no longer valid", async () => {
    const keys = new KeySet(await loadKeyFile(keyFile({ keys: [alice.entry, bob.entry] })));
    const held = (await keys.authenticate(bearer(alice.key))) as Principal;
    assert.equal(keys.isValid(held), true);
    keys.replace((await loadKeyFile(keyFile({ keys: [bob.entry] }))) as KeyEntry[]);
    assert.equal(keys.isValid(held), false);
    assert.equal(await keys.authenticate(bearer(alice.key)), undefined);
    // A principal not made by this set, however it is named, is not valid either.
    assert.equal(keys.isValid({ name: "bob", tenant: "globex", roles: new Set(["approve"]) }), false);
  });
});

describe("a key file watched by a running server", () => {
  it("a revoked key stops working once the file changes, and a principal held from it (an open stream) is no longer valid", async () => {
    const path = keyFile({ keys: [alice.entry, bob.entry] });
    const reloads: (AuthError | undefined)[] = [];
    const auth = await watchKeyFile(path, { intervalMs: 20, onReload: (error) => reloads.push(error) });
    try {
      const stream = (await auth.authenticate(bearer(alice.key))) as Principal;
      const other = (await auth.authenticate(bearer(bob.key))) as Principal;
      assert.equal(auth.isValid(stream), true);
      replaceKeyFile(path, [bob.entry]);
      await eventually(() => !auth.isValid(stream), "the open stream's principal to be revoked");
      assert.equal(await auth.authenticate(bearer(alice.key)), undefined);
      assert.equal(auth.isValid(other), true);
      assert.equal((await auth.authenticate(bearer(bob.key)))?.name, "bob");
      assert.deepEqual(reloads, [undefined]);
    } finally {
      auth.close();
    }
  });

  it("reload (SIGHUP) takes a changed role at once; a broken file accepts no key until it is fixed", async () => {
    const path = keyFile({ keys: [alice.entry] });
    const reloads: (string | undefined)[] = [];
    const auth = await watchKeyFile(path, { intervalMs: 60_000, onReload: (error) => reloads.push(error?.message) });
    try {
      const before = (await auth.authenticate(bearer(alice.key))) as Principal;
      replaceKeyFile(path, [{ ...alice.entry, roles: ["read"] }]);
      await auth.reload();
      assert.equal(auth.isValid(before), false, "a principal with roles its key no longer has");
      const after = (await auth.authenticate(bearer(alice.key))) as Principal;
      assert.deepEqual([...after.roles], ["read"]);
      writeFileSync(path, '{"keys": [');
      await auth.reload();
      assert.equal(await auth.authenticate(bearer(alice.key)), undefined);
      assert.equal(auth.isValid(after), false);
      replaceKeyFile(path, [alice.entry]);
      await auth.reload();
      assert.equal((await auth.authenticate(bearer(alice.key)))?.name, "alice");
      assert.deepEqual(reloads, [
        undefined,
        `the key file ${path} is not usable: not JSON: expected {"keys": [{"name", "tenant", "roles", "sha256"}, ...]} (the format: docs/server.md#keys-and-tenants)`,
        undefined,
      ]);
    } finally {
      auth.close();
    }
  });

  it("a file that cannot be used at the start is refused, as loadKeyFile refuses it", async () => {
    const path = keyFile({ keys: [alice.entry] }, 0o666);
    await assert.rejects(watchKeyFile(path), { code: "ERR_KEY_FILE", message: /can be changed by others than its owner/ });
  });
});

describe("fisk-ai key create", () => {
  it("prints a new key once and its entry, which a key file loads and which authenticates that key alone", async () => {
    const result = await runCli(["key", "create", "--name", "ci-bot", "--tenant", "acme", "--roles", "run, read"], { cwd: root, env: process.env });
    assert.deepEqual([result.code, result.stderr], [0, ""]);
    const [key, entryLine, rest] = result.stdout.split("\n");
    assert.match(key as string, /^fisk_[A-Za-z0-9_-]{43}$/);
    assert.equal(rest, "");
    const entry = JSON.parse(entryLine as string) as KeyFileEntry;
    assert.deepEqual(entry, { name: "ci-bot", tenant: "acme", roles: ["read", "run"], sha256: keyHash(key as string) });
    assert.ok(!(entryLine as string).includes(key as string));
    const authenticate = keyAuthenticator(await loadKeyFile(keyFile({ keys: [entry] })));
    assert.equal((await authenticate(bearer(key as string)))?.name, "ci-bot");
    const second = await runCli(["key", "create", "--name", "ci-bot", "--tenant", "acme", "--roles", "read"], { cwd: root, env: process.env });
    assert.notEqual(second.stdout.split("\n")[0], key, "every key is new");
  });

  it("refuses a field the key file would refuse, exit 2, naming it", async () => {
    for (const [args, line] of [
      [["--name", "ci bot", "--tenant", "acme", "--roles", "read"], `the key's name "ci bot" is not 1 to 64`],
      [["--name", "ci", "--tenant", "../acme", "--roles", "read"], `the key's tenant "../acme" is not 1 to 64`],
      [["--name", "ci", "--tenant", "acme", "--roles", "read,sudo"], `the key's roles "read,sudo" is "sudo" is not a role (read, run, approve, admin)`],
      [["--name", "ci", "--tenant", "acme", "--roles", ","], `the key's roles "" is not a list of one or more of read, run, approve, admin`],
    ] as const) {
      const result = await runCli(["key", "create", ...args], { cwd: root, env: process.env });
      assert.equal(result.code, 2, result.stderr);
      assert.ok(result.stderr.startsWith(`fisk-ai: ${line}`), result.stderr);
      assert.equal(result.stdout, "");
    }
  });
});

describe("a loopback server without keys", () => {
  const guard = hostGuard(loopbackHosts(8080));
  const at = (headers: Record<string, string>) => guard(request(headers));

  it("serves its own names, and programs that send no Origin", () => {
    for (const host of ["127.0.0.1:8080", "localhost:8080", "LOCALHOST:8080", "[::1]:8080"]) assert.equal(at({ host }), undefined, host);
    assert.equal(at({ host: "localhost:8080", origin: "http://localhost:8080", "sec-fetch-site": "same-origin" }), undefined);
    assert.equal(at({ host: "127.0.0.1:8080", origin: "http://127.0.0.1:8080" }), undefined);
    // Without a Host header, the URL's host (what a fetch-style adapter builds from it) is judged.
    assert.equal(guard(new Request("http://localhost:8080/v1/sessions")), undefined);
  });

  it("refuses DNS rebinding: a Host that is not its own", () => {
    assert.equal(
      at({ host: "attacker.example:8080" }),
      'the Host "attacker.example:8080" is not this server\'s (allowed: localhost:8080, 127.0.0.1:8080, [::1]:8080)',
    );
    for (const host of ["attacker.example", "localhost:8081", "127.0.0.1", "localhost.attacker.example:8080", "127.0.0.1:8080.attacker.example"]) {
      assert.match(at({ host }) ?? "", /is not this server's/, host);
    }
    assert.match(guard(new Request("http://rebound.attacker.example:8080/v1/sessions")) ?? "", /is not this server's/);
  });

  it("refuses a cross-site request from a browser: another Origin, Origin null, or Sec-Fetch-Site cross-site", () => {
    assert.equal(
      at({ host: "localhost:8080", origin: "https://attacker.example" }),
      'requests from "https://attacker.example" are not allowed (a cross-site request)',
    );
    for (const origin of ["null", "http://localhost:3000", "http://localhost:8080.attacker.example", "file://", "http://localhost:8080/path"]) {
      assert.match(at({ host: "localhost:8080", origin }) ?? "", /are not allowed/, origin);
    }
    assert.equal(at({ host: "localhost:8080", "sec-fetch-site": "cross-site" }), "a browser's cross-site request is not allowed");
  });

  it("an allowlist entry without a port allows that name on any port", () => {
    const named = hostGuard(["agents.internal"]);
    assert.equal(named(request({ host: "agents.internal:443", origin: "https://agents.internal" })), undefined);
    assert.match(named(request({ host: "localhost:443" })) ?? "", /is not this server's/);
  });
});

describe("a loopback server's requests without keys", () => {
  it("are the machine's user's: the default tenant's, with every role, whatever the request carries", async () => {
    const authenticate = localAuthenticator("alice@laptop");
    for (const one of [request({}), bearer(alice.key), request({ authorization: "Bearer nonsense" })]) {
      const principal = await authenticate(one);
      assert.deepEqual(principal && [principal.name, principal.tenant, [...principal.roles]], ["alice@laptop", "default", ["read", "run", "approve", "admin"]]);
    }
  });
});

describe("where a server may listen", () => {
  it("anywhere with keys; without them on loopback alone", () => {
    for (const host of ["127.0.0.1", "127.8.9.10", "localhost", "::1", "[::1]", "::ffff:127.0.0.1", "LOCALHOST"]) {
      assert.equal(isLoopback(host), true, host);
      assert.equal(listenAllowed(host, false), true, host);
    }
    for (const host of ["0.0.0.0", "::", "[::]", "192.168.1.10", "10.0.0.1", "128.0.0.1", "example.com", "localhost.example.com", "::ffff:10.0.0.1", ""]) {
      assert.equal(isLoopback(host), false, host);
      assert.equal(listenAllowed(host, false), false, host);
      assert.equal(listenAllowed(host, true), true, host);
    }
  });
});
