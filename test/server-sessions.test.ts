// covers: src/server/routes/sessions.ts, src/server/routes/agents.ts, src/server/routes/pool.ts
// covers: src/session/session-page.ts, src/session/session-overview.ts, src/session/record-window.ts
// covers: src/session/remove-session.ts, src/pool/queue-overview.ts, src/queue/queue-changes.ts, src/server/stream-slots.ts
// The session, agent and pool routes of createServer mounted in this process on a free
// port of 127.0.0.1 (as a program mounts it), over a file store with an in-process worker:
// listing with filters and a cursor, one session at a glance, record windows, rename, fork,
// export (the bytes `session export` writes), import, remove, compact's refusal, the queue,
// the store-wide stream, and the role and tenant checks.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { serve, type ServerType } from "@hono/node-server";
import { FiskClient, type StoreEvent } from "../src/client/fisk-client.js";
import { poolBackend } from "../src/backends/pool-queue.js";
import { loadAgent, type LoadedAgent } from "../src/config/load-agent.js";
import { Worker } from "../src/pool/worker.js";
import type { RunQueue } from "../src/queue/run-queue.js";
import type { Store } from "../src/runstate/store/store.js";
import { createServer } from "../src/server/create-server.js";
import { LOCAL_PRINCIPAL, type Authenticate } from "../src/server/principal.js";
import type { ServerOptions } from "../src/server/server-context.js";
import { runCli } from "./helpers/cli-harness.js";
import { refusal } from "./helpers/client-refusal.js";
import { eventually } from "./helpers/eventually.js";

const dir = mkdtempSync(join(tmpdir(), "fisk-ai-serve-sessions-"));
const env = { PATH: process.env.PATH, HOME: dir, NO_COLOR: "1" };
let agent: LoadedAgent;
let store: Store;
let queue: RunQueue;
let worker: Worker;
let working: Promise<void>;
const listening: ServerType[] = [];

/** createServer on `options` (beside the store, queue and agent), listening on a free port of 127.0.0.1. */
async function mounted(options: Partial<ServerOptions> = {}): Promise<{ url: string; client: FiskClient }> {
  const api = createServer({ store, queue, agents: [{ name: "hello", spec: agent.spec }], env, cwd: dir, ...options });
  const server = await new Promise<ServerType>((resolve) => {
    const started: ServerType = serve({ fetch: api.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(started));
  });
  listening.push(server);
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, client: new FiskClient(url) };
}

before(async () => {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "hello.yaml"),
    "provider: script\nmodel: script-test\nscript: ./hello.script.yaml\nsystem: You say hello.\nsession: { state_dir: ./state }\n",
  );
  writeFileSync(join(dir, "hello.script.yaml"), 'turns:\n  - text: "hello there"\n');
  agent = await loadAgent(join(dir, "hello.yaml"), { env });
  ({ store, queue } = await poolBackend(agent.openBackend()));
  worker = new Worker({ store, queue, agents: [agent.spec], pollMs: 20 });
  working = worker.run();
});

after(async () => {
  for (const server of listening) {
    server.close();
    if ("closeAllConnections" in server) server.closeAllConnections();
  }
  worker.stop();
  await working;
  await queue.close();
  await store.close();
  await agent.close();
  rmSync(dir, { recursive: true, force: true });
});

async function finished(client: FiskClient, prompt: string, title?: string): Promise<string> {
  const { runId } = await client.startRun({ agent: "hello", prompt, ...(title === undefined ? {} : { title }) });
  assert.equal((await client.wait(runId)).reason, "completed");
  return runId;
}

describe("createServer: sessions, agents and the pool", () => {
  it("agents: listed and described by name; an unknown one is a 404", async () => {
    const { client } = await mounted();
    assert.deepEqual(await client.agents(), [{ name: "hello", provider: "script", model: "script-test", tools: [] }]);
    assert.equal((await client.agent("hello")).model, "script-test");
    assert.deepEqual(await refusal(client.agent("nobody")), [404, "ERR_NO_AGENT"]);
  });

  it("sessions: newest first a page at a time with a cursor, filtered by status, text and agent; one at a glance; records in windows", async () => {
    const { client } = await mounted();
    const ids = [await finished(client, "say hello", "greeting one"), await finished(client, "say hello again"), await finished(client, "and once more")];
    const first = await client.sessions({ limit: "2" });
    const second = await client.sessions({ limit: "2", ...(first.next === undefined ? {} : { cursor: first.next }) });
    const listed = [...first.sessions, ...second.sessions].map((session) => session.runId).filter((id) => ids.includes(id));
    assert.deepEqual(listed, [...ids].sort().reverse());
    assert.equal(first.sessions.length, 2);
    assert.ok(first.next !== undefined);
    assert.deepEqual(
      (await client.sessions({ q: "GREETING" })).sessions.map((session) => session.runId),
      [ids[0]],
    );
    assert.ok((await client.sessions({ status: "completed", agent: "hello" })).sessions.length >= 3);
    assert.deepEqual((await client.sessions({ status: "awaiting_approval" })).sessions, []);
    assert.deepEqual((await client.sessions({ agent: "nobody" })).sessions, []);

    const id = ids[0] as string;
    const overview = await client.session(id);
    assert.equal(overview.session.status, "completed");
    assert.equal(overview.session.title, "greeting one");
    assert.equal(overview.calls.length, 1, "one model call, priced");
    assert.deepEqual([overview.children, overview.waiting], [[], []]);
    // The listing's row says what the session's own overview totals, from the digest the store keeps.
    const [row] = (await client.sessions({ q: "GREETING" })).sessions;
    const usage = overview.total.usage as Record<"inTokens" | "outTokens" | "cacheReadTokens" | "cacheWriteTokens", number>;
    const tokens = usage.inTokens + usage.outTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
    assert.ok(tokens > 0, JSON.stringify(usage));
    assert.deepEqual(
      [row?.agent, row?.model, row?.cost, row?.tokens, row?.unpriced ?? []],
      ["hello", "script-test", overview.total.cost, tokens, overview.total.unpriced],
    );
    assert.deepEqual([overview.session.agent, overview.session.tokens], ["hello", tokens]);
    const all = await client.records(id);
    assert.deepEqual(
      all.records.map((record) => record.seq),
      Array.from({ length: overview.session.lastSeq }, (_, index) => index + 1),
    );
    const window = await client.records(id, { after: 1, limit: 2 });
    assert.deepEqual([window.records.map((record) => record.seq), window.next], [[2, 3], 3]);
    assert.deepEqual(
      (await client.records(id, { after: 1, before: 3 })).records.map((record) => record.seq),
      [2],
    );
  });

  it("rename, fork, export (the bytes session export writes), import, remove; each refusal is its code", async () => {
    const { client } = await mounted();
    const id = await finished(client, "say hello");
    assert.equal((await client.rename(id, "renamed")).title, "renamed");
    assert.deepEqual(await refusal(client.rename(id, "two\nlines")), [400, "ERR_BAD_REQUEST"]);
    const fork = await client.fork(id, { at: 2 });
    assert.equal(fork.at, 2);
    assert.equal((await client.session(fork.runId)).session.status, "suspended");
    assert.deepEqual(await refusal(client.fork(id, { at: 999 })), [422, "ERR_NO_SEQ"]);

    const exported = await client.exportSession(id);
    const cli = await runCli(["session", "export", id, "--config", "hello.yaml"], { cwd: dir, env });
    assert.equal(cli.code, 0, cli.stderr);
    assert.equal(Buffer.from(exported).toString("utf8"), cli.stdout);
    const copy = await client.importSession(exported, "imported-copy");
    assert.equal(copy, "imported-copy");
    assert.equal((await client.session(copy)).session.status, "completed");
    assert.deepEqual(await refusal(client.importSession(exported, "imported-copy")), [409, "ERR_EXISTS"]);
    assert.deepEqual(await refusal(client.importSession(new TextEncoder().encode('{"not":"a journal"}\n'), "junk")), [422, "ERR_CORRUPT"]);

    assert.deepEqual(await client.remove(copy), [copy]);
    assert.deepEqual(await refusal(client.session(copy)), [404, "ERR_NOT_FOUND"]);
    assert.deepEqual(await refusal(client.compact(id)), [409, "ERR_COMPACTION"]);
  });

  it("the pool: the store-wide stream sees a run queued and leave the queue completed; the queue is empty at rest", async () => {
    const { client } = await mounted();
    const stop = new AbortController();
    const seen: StoreEvent[] = [];
    const events = client.storeEvents(stop.signal);
    // The stream opens with the queue as it is: changes after it are the stream's.
    assert.deepEqual((await events.next()).value, { kind: "snapshot", entries: [] });
    const { runId } = await client.startRun({ agent: "hello", prompt: "say hello" });
    for (let next = await events.next(); next.done !== true; next = await events.next()) {
      seen.push(next.value);
      if (next.value.kind === "left" && next.value.runId === runId) break;
    }
    stop.abort();
    assert.deepEqual(
      seen.filter((event) => event.kind !== "snapshot" && (event.kind === "left" ? event.runId : event.entry.runId) === runId).map((event) => event.kind),
      ["queued", "left"],
    );
    assert.deepEqual(seen.at(-1), { kind: "left", runId, status: "completed", lastSeq: (await client.session(runId)).session.lastSeq });
    assert.deepEqual(await client.queue(), []);
    assert.deepEqual(await client.workers(), []);
  });

  it("event streams past the cap are a 503 while the others are served; a stream that closes gives its slot back", async () => {
    const { client } = await mounted({ maxStreams: 1 });
    const stop = new AbortController();
    const open = client.storeEvents(stop.signal);
    assert.equal((await open.next()).value?.kind, "snapshot");
    assert.deepEqual(await refusal(collectFirst(client.storeEvents())), [503, "ERR_TOO_MANY_STREAMS"]);
    assert.ok((await client.agents()).length === 1, "other routes are served");
    stop.abort();
    await open.return(undefined).catch(() => undefined);
    await eventually(async () => (await collectFirst(client.storeEvents()).catch(() => undefined))?.kind === "snapshot", "the slot to be given back");
  });

  it("roles and tenants: no principal is a 401, a missing role a 403, another tenant's session a 404 everywhere", async () => {
    const { client: local } = await mounted();
    const id = await finished(local, "say hello");
    const nobody: Authenticate = async () => undefined;
    assert.deepEqual(await refusal((await mounted({ authenticate: nobody })).client.sessions()), [401, "ERR_UNAUTHENTICATED"]);
    const reader: Authenticate = async () => ({ name: "reader", tenant: "default", roles: new Set(["read"] as const) });
    const asReader = (await mounted({ authenticate: reader })).client;
    assert.equal((await asReader.session(id)).session.runId, id);
    assert.deepEqual(await refusal(asReader.startRun({ agent: "hello", prompt: "hi" })), [403, "ERR_FORBIDDEN"]);
    assert.deepEqual(await refusal(asReader.decide(id, "call1", { decision: "approve" })), [403, "ERR_FORBIDDEN"]);
    assert.deepEqual(await refusal(asReader.workers()), [403, "ERR_FORBIDDEN"]);
    const other: Authenticate = async () => ({ ...LOCAL_PRINCIPAL, name: "other", tenant: "other" });
    const asOther = (await mounted({ authenticate: other })).client;
    assert.deepEqual((await asOther.sessions()).sessions, []);
    const asks = [
      () => asOther.session(id),
      () => asOther.records(id),
      () => asOther.exportSession(id),
      () => asOther.wait(id, 0),
      () => asOther.rename(id, "mine"),
      () => asOther.remove(id),
      () => asOther.fork(id),
      () => asOther.followUp(id, "more"),
    ];
    for (const ask of asks) assert.deepEqual(await refusal(ask()), [404, "ERR_NOT_FOUND"], String(ask));
    assert.deepEqual(await refusal(collectFirst(asOther.events(id))), [404, "ERR_NOT_FOUND"]);
    assert.deepEqual(await asOther.approvals(), []);
  });
});

async function collectFirst<T>(events: AsyncGenerator<T>): Promise<T | undefined> {
  const first = await events.next();
  await events.return(undefined);
  return first.value;
}
