// covers: src/cli/serve/server-access.ts, src/server/stream-slots.ts, src/runstate/store/tenant.ts
// `fisk-ai serve --keys FILE` as its clients meet it: no key is a 401, a key without the
// route's role a 403, each tenant sees its own sessions alone and a name it chooses tells
// nothing of another's, a stream ends once its key is revoked. Without keys: loopback only,
// and only through the server's own names (no DNS rebinding, no cross-site request).
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { ClientError, FiskClient, type SessionEvent } from "../src/client/fisk-client.js";
import { newApiKey, type NewApiKey } from "../src/server/auth/new-key.js";
import { startCli } from "./helpers/cli-harness.js";
import { poolWorkspace, type PoolWorkspace } from "./helpers/pool-workspace.js";
import { serveProcessesUnder, startServe, type ServeProcess } from "./helpers/serve-process.js";

const root = mkdtempSync(join(tmpdir(), "fisk-ai-serve-keys-"));
const servers = serveProcessesUnder(root);
let made = 0;

function writeKeys(path: string, keys: NewApiKey[]): void {
  writeFileSync(path, JSON.stringify({ keys: keys.map((key) => key.entry) }));
  chmodSync(path, 0o600);
}

async function served(args: string[], options: { gateOpen?: boolean } = {}): Promise<{ ws: PoolWorkspace; server: ServeProcess }> {
  const ws = poolWorkspace(join(root, `ws-${++made}`), { gateOpen: options.gateOpen ?? true });
  const server = await startServe((cli) => startCli(cli, { cwd: ws.dir, env: ws.env }), ["serve", "--listen", "127.0.0.1:0", "--workers", "1", ...args]);
  servers.push(server);
  return { ws, server };
}

const as = (server: ServeProcess, key: NewApiKey) => new FiskClient(server.url, { headers: { authorization: `Bearer ${key.key}` } });

async function refusal(promise: Promise<unknown>): Promise<[number, string]> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof ClientError, `expected a refusal, got ${String(error)}`);
  return [error.status, error.problem.code];
}

/** A raw GET with the headers given as they are (fetch would not send another Host). */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/v1/sessions`, { headers }, (response) => {
      let body = "";
      response.on("data", (chunk: Buffer) => (body += chunk.toString()));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("fisk-ai serve --keys", () => {
  const acme = newApiKey("alice", "acme", ["read", "run", "approve"]);
  const acmeReader = newApiKey("auditor", "acme", ["read"]);
  const globex = newApiKey("bob", "globex", ["read", "run"]);

  it("no key is a 401, a key without the role a 403; a tenant sees its own sessions alone, and a name it picks tells nothing of another's", async () => {
    const keyFile = join(root, "keys-tenants.json");
    writeKeys(keyFile, [acme, acmeReader, globex]);
    const { ws, server } = await served(["--keys", keyFile]);
    assert.deepEqual(await refusal(server.client.sessions()), [401, "ERR_UNAUTHENTICATED"]);
    assert.deepEqual(await refusal(new FiskClient(server.url, { headers: { authorization: "Bearer fisk_not-a-key" } }).sessions()), [
      401,
      "ERR_UNAUTHENTICATED",
    ]);
    assert.deepEqual(await refusal(as(server, acmeReader).startRun({ agent: "agent", prompt: "write two notes" })), [403, "ERR_FORBIDDEN"]);

    const mine = await as(server, acme).startRun({ agent: "agent", prompt: "write two notes", name: "weekly" });
    assert.match(mine.runId, /^weekly-[0-9a-f]{24}$/);
    assert.equal((await as(server, acme).wait(mine.runId)).reason, "completed");
    const meta = ws.journal(mine.runId)[0] as { meta: { tenant?: string } };
    assert.equal(meta.meta.tenant, "acme", "the tenant is journaled with the session");

    // The same name in another tenant: its own session, not a 409 that would say acme has one.
    const theirs = await as(server, globex).startRun({ agent: "agent", prompt: "write two notes", name: "weekly" });
    assert.notEqual(theirs.runId, mine.runId);
    assert.equal((await as(server, globex).wait(theirs.runId)).reason, "completed");
    assert.deepEqual(await refusal(as(server, acme).startRun({ agent: "agent", prompt: "again", name: "weekly" })), [409, "ERR_EXISTS"]);

    assert.deepEqual(
      (await as(server, acme).sessions()).sessions.map((session) => session.runId),
      [mine.runId],
    );
    assert.deepEqual(
      (await as(server, acmeReader).sessions()).sessions.map((session) => session.runId),
      [mine.runId],
    );
    assert.deepEqual(await refusal(as(server, globex).session(mine.runId)), [404, "ERR_NOT_FOUND"]);
    assert.deepEqual(await refusal(as(server, globex).exportSession(mine.runId)), [404, "ERR_NOT_FOUND"]);

    // An import stays in its tenant: acme's journal is not planted among globex's sessions.
    const exported = await as(server, acme).exportSession(mine.runId);
    assert.deepEqual(await refusal(as(server, globex).importSession(exported, "planted")), [422, "ERR_INVALID_RECORD"]);
    assert.deepEqual(
      (await as(server, globex).sessions()).sessions.map((session) => session.runId),
      [theirs.runId],
    );
  });

  it("a key revoked while its stream is open: the stream ends with a 401 problem at once, and the key is refused after", async () => {
    const keyFile = join(root, "keys-revoked.json");
    writeKeys(keyFile, [acme, globex]);
    const { ws, server } = await served(["--keys", keyFile], { gateOpen: false });
    const { runId } = await as(server, acme).startRun({ agent: "agent", prompt: "write two notes" });
    const events = as(server, acme).events(runId);
    const seen: SessionEvent[] = [];
    for await (const event of events) {
      seen.push(event);
      if (seen.length === 2) break;
    }
    const following = as(server, acme).events(runId, 2);
    const ended = (async () => {
      for await (const event of following) seen.push(event);
    })();
    writeKeys(keyFile, [globex]);
    server.run.child.kill("SIGHUP");
    const [status, code] = await refusal(ended);
    assert.deepEqual([status, code], [401, "ERR_UNAUTHENTICATED"]);
    assert.deepEqual(await refusal(as(server, acme).sessions()), [401, "ERR_UNAUTHENTICATED"]);
    assert.equal((await as(server, globex).agents()).length, 1, "the other key is still served");
    ws.openGate();
  });

  it("a key file that cannot be used stops serve at the start, naming the file and what to do", async () => {
    const ws = poolWorkspace(join(root, `ws-${++made}`));
    const missing = await startCli(["serve", "--listen", "127.0.0.1:0", "--keys", join(root, "nowhere.json")], { cwd: ws.dir, env: ws.env }).done;
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /^fisk-ai: the key file \S+nowhere\.json does not exist: make it with the entries 'fisk-ai key create' prints\n$/);
    const open = join(root, "keys-open.json");
    writeKeys(open, [acme]);
    chmodSync(open, 0o666);
    const writable = await startCli(["serve", "--listen", "127.0.0.1:0", "--keys", open], { cwd: ws.dir, env: ws.env }).done;
    assert.notEqual(writable.code, 0);
    assert.match(writable.stderr, /can be changed by others than its owner: chmod go-w/);
  });
});

describe("fisk-ai serve without keys", () => {
  it("listens on loopback alone, and answers only requests to its own names from its own pages", async () => {
    const ws = poolWorkspace(join(root, `ws-${++made}`));
    const wide = await startCli(["serve", "--listen", "0.0.0.0:0"], { cwd: ws.dir, env: ws.env }).done;
    assert.equal(wide.code, 2, wide.stderr);
    assert.match(wide.stderr, /--listen 0\.0\.0\.0:0 is not a loopback address: without --keys FILE/);

    const { server } = await served(["--allow-host", "agents.internal"]);
    const port = new URL(server.url).port;
    assert.equal((await rawGet(server.url, { host: `127.0.0.1:${port}` })).status, 200);
    assert.equal((await rawGet(server.url, { host: `localhost:${port}` })).status, 200);
    assert.equal((await rawGet(server.url, { host: "agents.internal" })).status, 200, "a name added with --allow-host");
    const rebound = await rawGet(server.url, { host: `attacker.example:${port}` });
    assert.equal(rebound.status, 403);
    assert.match(JSON.parse(rebound.body).detail, /the Host "attacker\.example:\d+" is not this server's/);
    const crossSite = await rawGet(server.url, { host: `127.0.0.1:${port}`, origin: "http://attacker.example" });
    assert.equal(crossSite.status, 403);
    assert.equal((await rawGet(server.url, { host: `127.0.0.1:${port}`, origin: "null" })).status, 403);
    assert.equal((await rawGet(server.url, { host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}` })).status, 200, "its own page");
    assert.equal((await rawGet(server.url, { host: `127.0.0.1:${port}`, "sec-fetch-site": "cross-site" })).status, 403);
  });
});
