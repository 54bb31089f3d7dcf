// covers: src/backends/registry.ts, src/backends/store-url.ts, src/backends/backend-errors.ts, src/backends/open-backend.ts, src/backends/built-in-urls.ts
// covers: src/backends/backend.ts, src/backends/file/file-backend.ts, src/backends/jetstream/jetstream-backend.ts, src/backends/memory/memory-backend.ts, src/backends/store-config.ts, src/backends/url-form.ts
// The one parser of store names and the registry it consults: what each form names, what is
// refused and that a refusal never shows a password; a backend registered by a program is
// reached by its URL.
import assert from "node:assert/strict";
import { resolve } from "node:path";
import { describe, it } from "node:test";
import { BackendError, MemoryStore, maskUrlCredentials, openBackend, parseStoreUrl, registerBackend, type Backend } from "../src/index.js";

function refusal(code: string, secret?: string): (error: unknown) => boolean {
  return (error) => {
    assert.ok(error instanceof BackendError, String(error));
    assert.equal(error.code, code);
    if (secret !== undefined) assert.ok(!error.message.includes(secret), `the message shows the secret: ${error.message}`);
    return true;
  };
}

describe("parseStoreUrl", () => {
  it("reads a directory, file:///, memory:// and nats:// as their backends", () => {
    assert.deepEqual(parseStoreUrl("runs", "/base"), { backend: "file", dir: "/base/runs" });
    assert.deepEqual(parseStoreUrl("postgres:", "/base"), { backend: "file", dir: "/base/postgres:" });
    assert.deepEqual(parseStoreUrl("file:///var/runs"), { backend: "file", dir: "/var/runs" });
    assert.deepEqual(parseStoreUrl("memory://"), { backend: "memory" });
    assert.deepEqual(parseStoreUrl("nats://127.0.0.1:4222/RUNS"), { backend: "jetstream", servers: "nats://127.0.0.1:4222", stream: "RUNS" });
    assert.deepEqual(parseStoreUrl("TLS://h:4222/RUNS"), { backend: "jetstream", servers: "tls://h:4222", stream: "RUNS" });
    assert.equal((parseStoreUrl("./a/../b") as { dir: string }).dir, resolve("b"));
  });

  it("refuses a scheme no backend has, naming those there are, without the password", () => {
    assert.throws(() => parseStoreUrl("mysql://fisk:hunter2@127.0.0.1:3306/runs"), refusal("ERR_UNKNOWN_SCHEME", "hunter2"));
    assert.throws(
      () => parseStoreUrl("mysql://fisk:hunter2@127.0.0.1:3306/runs"),
      /^BackendError: store "mysql:\/\/\*\*\*@127\.0\.0\.1:3306\/runs": no backend for mysql:\/\/ \(registered: file:\/\/, memory:\/\/, nats:\/\/, tls:\/\/, postgres:\/\/, postgresql:\/\/.*registerBackend\)$/,
    );
  });

  it("refuses a URL not of its backend's form, without the password", () => {
    assert.throws(() => parseStoreUrl("nats://user:s3cret@127.0.0.1:4222/X"), refusal("ERR_STORE_URL", "s3cret"));
    assert.throws(() => parseStoreUrl("nats://127.0.0.1:4222"), refusal("ERR_STORE_URL"));
    assert.throws(() => parseStoreUrl("nats://127.0.0.1:4222/a.b"), refusal("ERR_STORE_URL"));
    assert.throws(() => parseStoreUrl("memory://somewhere"), refusal("ERR_STORE_URL"));
    assert.throws(() => parseStoreUrl("file://host.example/runs"), refusal("ERR_STORE_URL"));
    assert.throws(() => parseStoreUrl(""), refusal("ERR_STORE_URL"));
  });
});

describe("maskUrlCredentials", () => {
  it("hides the password of the user part and secret query parameters", () => {
    assert.equal(maskUrlCredentials("nats://u:p@ss@h:1/S"), "nats://***@h:1/S");
    assert.equal(maskUrlCredentials("nats://TOKEN@h/S"), "nats://***@h/S");
    assert.equal(maskUrlCredentials("pg://h/db?sslmode=require&password=x&token=y"), "pg://h/db?sslmode=require&password=***&token=***");
    assert.equal(maskUrlCredentials("/plain/dir"), "/plain/dir");
  });
});

describe("registerBackend", () => {
  it("makes a scheme's URLs open the program's backend, given the parsed URL", async () => {
    const opened: string[] = [];
    registerBackend("registry-test", async (url) => {
      opened.push(url.href);
      return { store: new MemoryStore() } satisfies Backend;
    });
    const backend = await openBackend("Registry-Test://host/place?x=1");
    assert.ok(backend.store instanceof MemoryStore);
    assert.equal(backend.queue, undefined);
    await openBackend({ url: "registry-test://other" });
    assert.deepEqual(opened, ["registry-test://host/place?x=1", "registry-test://other"]);
  });

  it("refuses a scheme registered already, fisk-ai's own included, and a name that is no scheme", () => {
    const open = async (): Promise<Backend> => ({ store: new MemoryStore() });
    registerBackend("registry-twice", open);
    assert.throws(() => registerBackend("registry-twice", open), refusal("ERR_SCHEME_TAKEN"));
    assert.throws(() => registerBackend("nats", open), refusal("ERR_SCHEME_TAKEN"));
    assert.throws(() => registerBackend("file:", open), refusal("ERR_SCHEME_TAKEN"));
    assert.throws(() => registerBackend("no scheme", open), refusal("ERR_STORE_URL"));
  });

  it("opens the built-in backends by URL and by configuration", async () => {
    const memory = await openBackend("memory://");
    assert.ok(memory.store instanceof MemoryStore);
    await assert.rejects(openBackend({ backend: "mysql" } as never), refusal("ERR_UNKNOWN_SCHEME"));
  });
});
