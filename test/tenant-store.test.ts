// covers: src/backends/tenant-store.ts, src/runstate/store/tenant.ts, src/pool/submit-run.ts, src/agent/agent-tool.ts
// covers: src/queue/run-queue.ts, src/queue/tenant-queue.ts, src/agent/agent-loop.ts
// Tenants on one shared store, tried as a tenant that wants another's sessions would: ids
// guessed and known, listed, read, streamed, decided, exported, forked, deleted, queued,
// imported; a name chosen to find out whether another tenant has it. The tenant view is a
// Store, so it also passes the store conformance suite, over a store that holds another
// tenant's sessions it must never list.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  agentTool,
  approve,
  awaitSubmitted,
  defineTool,
  deny,
  exportJournal,
  FileStore,
  forkSession,
  importJournal,
  MemoryQueue,
  MemoryStore,
  queueSession,
  runAgent,
  ScriptProvider,
  submitFollowUp,
  submitRun,
  Worker,
  type QueuedRun,
  type RunQueue,
  type Store,
} from "../src/index.js";
import { metaPayload, runQueueConformance, runStoreConformance } from "../src/conformance/index.js";
import { tenantQueue } from "../src/queue/tenant-queue.js";
import { plantRaw } from "../src/backends/memory/memory-seams.js";
import { tenantStore } from "../src/backends/tenant-store.js";
import { decodeEntry, encodeEntry } from "../src/queue/run-queue.js";
import { DEFAULT_TENANT, SESSION_NAME_MAX_LENGTH, tenantOf, tenantRunId } from "../src/runstate/store/tenant.js";
import { metaSignatureProblem } from "../src/trust/signatures.js";
import { installationKeys } from "../src/trust/installation-keys.js";

/** The store under each view the conformance harness made. */
const under = new WeakMap<Store, MemoryStore>();

/** A store holding another tenant's sessions, as the default tenant sees it. */
async function sharedView(inner: MemoryStore): Promise<Store> {
  for (const id of ["elsewhere-1", "elsewhere-2"]) {
    await (await inner.create(id, { ...metaPayload(id), tenant: "globex" })).close();
  }
  const view = tenantStore(inner, DEFAULT_TENANT);
  under.set(view, inner);
  return view;
}

function innerOf(view: Store): MemoryStore {
  const inner = under.get(view);
  assert.ok(inner !== undefined);
  return inner;
}

runStoreConformance("tenant view", {
  capabilities: { exclusiveOpen: true },
  makeStore: async () => sharedView(new MemoryStore()),
  sameStorage: async (view) => {
    const again = tenantStore(new MemoryStore({ sharedWith: innerOf(view) }), DEFAULT_TENANT);
    under.set(again, innerOf(view));
    return again;
  },
  plantRaw: async (view, runId, lines) => plantRaw(innerOf(view), runId, lines),
});

/** The memory store and queue under each tenant view the queue harness made. */
const queuesUnder = new WeakMap<RunQueue, MemoryQueue>();

function tenantViews(store: MemoryStore, queue: MemoryQueue, tenant = DEFAULT_TENANT): { store: Store; queue: RunQueue } {
  const view = tenantStore(store, tenant);
  under.set(view, store);
  const queueView = tenantQueue(queue, tenant);
  queuesUnder.set(queueView, queue);
  return { store: view, queue: queueView };
}

runQueueConformance("tenant view", {
  makeQueue: async () => {
    const store = new MemoryStore();
    return tenantViews(store, new MemoryQueue({ store }));
  },
  again: async (of) => {
    const store = new MemoryStore({ sharedWith: innerOf(of.store) });
    return tenantViews(store, new MemoryQueue({ store, sharedWith: queuesUnder.get(of.queue) as MemoryQueue }));
  },
  takeoverMs: 0,
  // Entries set aside are the operator's, never a tenant's: the view has none of them.
  plant: async () => false,
});

/** A tool that asks before it runs: with no one to ask, its call parks the session for a decision. */
const send = defineTool({ name: "send", description: "Sends", input: { type: "object" }, confirm: true, run: () => "sent" });

function sendingAgent() {
  return {
    provider: new ScriptProvider({ turns: [{ tool_calls: [{ name: "send", input: { to: "ops" } }] }, { text: "sent it" }] }),
    model: "m",
    tools: [send],
  };
}

/** A lead agent whose one call starts a researcher child session, which answers at once. */
function leadWithResearcher() {
  const researcher = agentTool({
    name: "researcher",
    description: "Researches.",
    agent: { provider: new ScriptProvider({ turns: [{ text: "child done" }] }), model: "child" },
  });
  const turns = [{ tool_calls: [{ name: "researcher", input: { prompt: "go" } }] }, { text: "lead done" }];
  return { provider: new ScriptProvider({ turns }), model: "lead", tools: [researcher] };
}

/** Two tenants on one store: acme's parked session, under an id globex may know or guess. */
async function twoTenants() {
  const shared = new MemoryStore();
  const acme = tenantStore(shared, "acme");
  const globex = tenantStore(shared, "globex");
  const parked = await runAgent({ ...sendingAgent(), store: acme, tenant: "acme", runId: tenantRunId("acme", "payroll"), prompt: "Send it" });
  assert.equal(parked.reason, "awaiting_approval");
  return { shared, acme, globex, id: parked.runId };
}

/** The error `promise` fails with. */
async function failure(promise: Promise<unknown>): Promise<Error & { code?: string }> {
  return promise.then(
    () => assert.fail("it was allowed"),
    (error: unknown) => error as Error & { code?: string },
  );
}

/** Asserts `promise` fails exactly as a read of a session that does not exist fails: the same code and the same words. */
async function notFoundAsIfMissing(promise: Promise<unknown>, id: string, missing: Promise<unknown>, what: string): Promise<void> {
  const [error, absent] = await Promise.all([failure(promise), failure(missing)]);
  assert.equal(error.code, "ERR_NOT_FOUND", `${what}: ${error.message}`);
  assert.equal(error.message, absent.message.replaceAll("nobody-here", id), what);
}

async function drain(records: AsyncIterable<unknown>): Promise<number> {
  let count = 0;
  for await (const _ of records) count++;
  return count;
}

describe("two tenants on one store", () => {
  it("see their own sessions only, in every listing", async () => {
    const { acme, globex, shared, id } = await twoTenants();
    await runAgent({ ...sendingAgent(), store: globex, tenant: "globex", prompt: "Theirs" });
    assert.deepEqual(
      (await acme.list()).map((summary) => summary.runId),
      [id],
    );
    assert.ok(!(await globex.list()).some((summary) => summary.runId === id));
    assert.equal((await globex.list()).length, 1);
    assert.equal((await tenantStore(shared, DEFAULT_TENANT).list()).length, 0, "the default tenant sees neither");
    assert.equal(globex.readJournals, undefined, "a view has the bulk read only where its store has it");
  });

  it("another tenant's session, its id known, is not found, word for word as a missing one, by every read and write", async () => {
    const { acme, globex, shared, id } = await twoTenants();
    const missing = "nobody-here";
    const before = await acme.summarize(id);
    const cases: [string, (store: Store, runId: string) => Promise<unknown>][] = [
      ["summarize", (store, runId) => store.summarize(runId)],
      ["load", (store, runId) => store.load(runId)],
      ["readJournal", (store, runId) => store.readJournal(runId)],
      ["readRecords", (store, runId) => drain(store.readRecords(runId))],
      ["open", (store, runId) => store.open(runId)],
      ["delete", (store, runId) => store.delete(runId)],
      ["approve", (store, runId) => approve(store, runId, [], { decidedBy: "mallory" })],
      ["deny", (store, runId) => deny(store, runId, "mine now")],
      ["export", (store, runId) => exportJournal(store, runId)],
      ["fork", (store, runId) => forkSession(store, runId, { name: "stolen" })],
    ];
    for (const [what, act] of cases) await notFoundAsIfMissing(act(globex, id), id, act(globex, missing), what);
    const queue = new MemoryQueue({ store: shared });
    await notFoundAsIfMissing(queueSession({ store: globex, queue }, id), id, queueSession({ store: globex, queue }, missing), "queue");
    await notFoundAsIfMissing(
      submitFollowUp({ store: globex, queue }, id, "and more"),
      id,
      submitFollowUp({ store: globex, queue }, missing, "x"),
      "follow up",
    );
    // Nothing of it changed: still parked, undecided, its own tenant's, and not queued.
    const summary = await acme.summarize(id);
    assert.deepEqual([summary.status, summary.lastSeq, tenantOf(summary.meta ?? metaPayload(id))], ["awaiting_approval", before.lastSeq, "acme"]);
    assert.deepEqual(await queue.list(), []);
    assert.equal((await shared.list()).length, 1, "no fork was made");
    // Its owner decides it.
    assert.equal((await approve(acme, id, [], { decidedBy: "alice" })).decided.length, 1);
  });

  it("another tenant's journal cannot be imported or created into a tenant's view, under its id or a new one", async () => {
    const { acme, globex, id } = await twoTenants();
    const exported = await exportJournal(acme, id);
    for (const attempt of [importJournal(globex, exported.pieces, { name: "copied" }), importJournal(globex, exported.pieces)]) {
      const error = await failure(attempt);
      assert.equal(error.code, "ERR_INVALID_RECORD", error.message);
      assert.match(
        error.message,
        /^session (copied|payroll-[0-9a-f]{24}) is tenant acme's, and this store holds tenant globex's sessions: start it with tenant globex$/,
      );
    }
    const created = await failure(globex.create("planted", { ...metaPayload("planted"), tenant: "acme" }));
    assert.equal(created.code, "ERR_INVALID_RECORD");
    // A meta without a tenant is the default tenant's: not globex's either, and the message says how to start it.
    const untenanted = await failure(
      runAgent({ provider: new ScriptProvider({ turns: [{ text: "x" }] }), model: "m", store: globex, runId: "planted", prompt: "x" }),
    );
    assert.equal(untenanted.message, "session planted is tenant default's, and this store holds tenant globex's sessions: start it with tenant globex");
    assert.deepEqual(
      (await globex.list()).map((summary) => summary.runId),
      [],
    );
  });

  it("a session that cannot be read is its first line's tenant's, or the default tenant's: another tenant is told nothing", async () => {
    const shared = new MemoryStore();
    const meta = (runId: string, tenant?: string) =>
      JSON.stringify({ seq: 1, protocol: "io.choria.fisk-ai.v1.session.meta", meta: { ...metaPayload(runId), ...(tenant ? { tenant } : {}) } });
    plantRaw(shared, "broken-acme", [`${meta("broken-acme", "acme")}\n`, "{not a record\n", `${meta("broken-acme", "acme")}\n`]);
    plantRaw(shared, "newer-acme", [`${meta("newer-acme", "acme").replace('"version":2', '"version":99')}\n`]);
    plantRaw(shared, "garbage", ["{not a record\n"]);
    const acme = tenantStore(shared, "acme");
    const globex = tenantStore(shared, "globex");
    for (const id of ["broken-acme", "newer-acme", "garbage"]) {
      await notFoundAsIfMissing(globex.load(id), id, globex.load("nobody-here"), `load ${id}`);
      await notFoundAsIfMissing(globex.readJournal(id), id, globex.readJournal("nobody-here"), `readJournal ${id}`);
    }
    assert.deepEqual(await globex.list(), []);
    assert.deepEqual((await acme.list()).map((summary) => [summary.runId, summary.status]).sort(), [
      ["broken-acme", "corrupt"],
      ["newer-acme", "corrupt"],
    ]);
    assert.equal((await failure(acme.load("broken-acme"))).code, "ERR_CORRUPT", "its own tenant is told what is wrong");
    assert.deepEqual(
      (await tenantStore(shared, DEFAULT_TENANT).list()).map((summary) => summary.runId),
      ["garbage"],
    );
  });
});

describe("two tenants on one queue", () => {
  it("another tenant's queued run is not listed, not taken, and by its id is as a run not queued", async () => {
    const shared = new MemoryStore();
    const queue = new MemoryQueue({ store: shared });
    const acme = tenantViews(shared, queue, "acme");
    const globex = tenantViews(shared, queue, "globex");
    const agent = { provider: new ScriptProvider({ turns: [{ text: "done" }] }), model: "m" };
    const runId = await submitRun({ ...acme, agent }, { prompt: "Later", tenant: "acme" });
    const [entry] = await acme.queue.list();
    assert.equal(entry?.runId, runId);
    assert.deepEqual(await globex.queue.list(), []);
    assert.equal(await globex.queue.get(runId), undefined);
    assert.deepEqual(await globex.queue.behind(runId), []);
    for (const [what, act] of [
      ["withdraw", (q: RunQueue, id: string) => q.withdraw(id)],
      ["unpark", (q: RunQueue, id: string) => q.unpark(id)],
    ] as const) {
      const [error, absent] = await Promise.all([failure(act(globex.queue, runId)), failure(act(globex.queue, "nobody-here"))]);
      assert.equal(error.code, "ERR_NOT_FOUND", what);
      assert.equal(error.message, absent.message.replaceAll("nobody-here", runId), what);
    }
    const planted = await failure(globex.queue.enqueue({ ...(entry as QueuedRun), followUp: "mine now" }));
    assert.equal(planted.code, "ERR_INVALID_RECORD");
    assert.equal(await globex.queue.claim(() => true), undefined, "a worker of another tenant takes nothing");
    assert.deepEqual(await globex.queue.quarantined(), []);
    const claim = await acme.queue.claim(() => true);
    assert.equal(claim?.entry.runId, runId);
    await claim?.handBack();
    assert.equal((await queue.list()).length, 1, "the run still waits, untouched by the other tenant");
  });
});

describe("a search through a tenant's view", () => {
  it("reads that tenant's journals alone (the bulk read of a file store)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fisk-ai-tenant-search-"));
    try {
      const shared = new FileStore({ dir });
      for (const [id, tenant] of [
        ["mine-1", "acme"],
        ["theirs-1", "globex"],
        ["mine-2", "acme"],
        ["plain-1", undefined],
      ] as const) {
        await (await shared.create(id, { ...metaPayload(id), ...(tenant ? { tenant } : {}) })).close();
      }
      const read = async (store: Store) => {
        const ids = new Set<string>();
        await store.readJournals?.((runId) => void ids.add(runId));
        return [...ids].sort();
      };
      assert.deepEqual(await read(tenantStore(shared, "acme")), ["mine-1", "mine-2"]);
      assert.deepEqual(await read(tenantStore(shared, DEFAULT_TENANT)), ["plain-1"]);
      await shared.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("session names", () => {
  it("two tenants' sessions of one name have different ids: neither finds the other's, nor learns it exists", async () => {
    const shared = new MemoryStore();
    const acme = tenantStore(shared, "acme");
    const globex = tenantStore(shared, "globex");
    const agent = { provider: new ScriptProvider({ turns: [{ text: "done" }] }), model: "m" };
    const mine = await runAgent({ ...agent, store: acme, tenant: "acme", runId: tenantRunId("acme", "weekly-report"), prompt: "Report" });
    const theirs = await runAgent({ ...agent, store: globex, tenant: "globex", runId: tenantRunId("globex", "weekly-report"), prompt: "Report" });
    assert.deepEqual([mine.reason, theirs.reason], ["completed", "completed"]);
    assert.notEqual(mine.runId, theirs.runId);
    assert.match(mine.runId, /^weekly-report-[0-9a-f]{24}$/);
    assert.equal(tenantRunId("acme", "weekly-report"), mine.runId, "the same name is the same session for its tenant");
    const again = await failure(runAgent({ ...agent, store: acme, tenant: "acme", runId: tenantRunId("acme", "weekly-report"), prompt: "Again" }));
    assert.equal(again.code, "ERR_EXISTS", "a tenant's own name, used twice");
  });

  it("refuses a name that is no session id's start, or too long for the hash after it", () => {
    for (const name of ["", "../etc", "a/b", "x".repeat(SESSION_NAME_MAX_LENGTH + 1), "-lead", "nul\0"]) {
      assert.throws(() => tenantRunId("acme", name), { code: "ERR_INVALID_ID" }, JSON.stringify(name.slice(0, 20)));
    }
    assert.equal(tenantRunId("acme", "x".repeat(SESSION_NAME_MAX_LENGTH)).length, 128);
  });
});

describe("a session's tenant", () => {
  it("is journaled in its meta and signed with it; the default tenant's sessions are journaled as before", async () => {
    const store = new MemoryStore();
    const agent = { provider: new ScriptProvider({ turns: [{ text: "done" }, { text: "done" }] }), model: "m" };
    const mine = await runAgent({ ...agent, store, tenant: "acme", prompt: "Hi" });
    const plain = await runAgent({ ...agent, store, tenant: DEFAULT_TENANT, prompt: "Hi" });
    const meta = (await store.load(mine.runId)).meta;
    assert.equal(meta.tenant, "acme");
    const keys = installationKeys(store).trusted;
    assert.equal(metaSignatureProblem(keys, meta), undefined);
    assert.notEqual(metaSignatureProblem(keys, { ...meta, tenant: "globex" }), undefined, "a tenant edited in the journal breaks the meta's signature");
    assert.equal("tenant" in (await store.load(plain.runId)).meta, false);
  });

  it("is refused when it is not a tenant's name, or in record version 3, which has no tenant", async () => {
    const agent = { provider: new ScriptProvider({ turns: [{ text: "done" }] }), model: "m", store: new MemoryStore(), prompt: "Hi" };
    const bad = await failure(runAgent({ ...agent, tenant: "../acme" }));
    assert.equal(bad.code, "ERR_INVALID_RECORD");
    assert.match(bad.message, /^the tenant "\.\.\/acme" is not 1 to 64 ASCII letters/);
    const v3 = await failure(runAgent({ ...agent, tenant: "acme", recordVersion: 3 }));
    assert.equal(v3.message, "a session of tenant acme cannot be journaled in record version 3, which has no tenant: use the default version");
  });

  it("is inherited by child sessions, which its tenant's view lists and no other's", async () => {
    const shared = new MemoryStore();
    const acme = tenantStore(shared, "acme");
    const outcome = await runAgent({ ...leadWithResearcher(), store: acme, tenant: "acme", prompt: "Lead" });
    assert.equal(outcome.answer, "lead done");
    const sessions = await acme.list();
    assert.equal(sessions.length, 2);
    const child = sessions.find((summary) => summary.meta?.parent !== undefined);
    assert.equal(child?.meta?.tenant, "acme");
    assert.deepEqual(await tenantStore(shared, "globex").list(), []);
  });

  it("is journaled by submitRun, signed, and kept in the queue entry", async () => {
    const store = new MemoryStore();
    const queue = new MemoryQueue({ store });
    const agent = { provider: new ScriptProvider({ turns: [{ text: "done" }] }), model: "m" };
    const runId = await submitRun({ store: tenantStore(store, "acme"), queue, agent }, { prompt: "Later", tenant: "acme" });
    const meta = (await store.load(runId)).meta;
    assert.equal(meta.tenant, "acme");
    assert.equal(metaSignatureProblem(installationKeys(store).trusted, meta), undefined);
    assert.deepEqual(
      (await queue.list()).map((entry) => [entry.runId, entry.tenant]),
      [[runId, "acme"]],
    );
  });

  it("is kept by a worker that takes the submitted run: the child it starts is the tenant's too", async () => {
    const store = new MemoryStore();
    const queue = new MemoryQueue({ store });
    const agent = leadWithResearcher();
    const acme = tenantViews(store, queue, "acme");
    const runId = await submitRun({ ...acme, agent }, { prompt: "Later", tenant: "acme" });
    // The pool's worker sees the whole store and queue: the tenant comes from the session, not from a view.
    const worker = new Worker({ store, queue, agents: [agent], events: { settled: () => worker.stop() } });
    const [outcome] = await Promise.all([awaitSubmitted(acme.store, acme.queue, runId), worker.run()]);
    assert.equal(outcome.answer, "lead done");
    assert.deepEqual((await acme.store.list()).map((summary) => [summary.meta?.parent === undefined ? "lead" : "child", summary.meta?.tenant]).sort(), [
      ["child", "acme"],
      ["lead", "acme"],
    ]);
    assert.equal((await store.list()).length, 2);
  });

  it("a queue entry's tenant is encoded and read back; a bad one makes the entry corrupt", () => {
    const entry = {
      runId: "r1",
      queued: "2026-12-07T00:00:00Z",
      fingerprint: metaPayload("r1").fingerprint,
      version: 2,
      afterSeq: 1,
      state: "queued" as const,
    };
    assert.equal(decodeEntry(encodeEntry({ ...entry, tenant: "acme" })).tenant, "acme");
    assert.equal("tenant" in decodeEntry(encodeEntry(entry)), false);
    assert.throws(() => decodeEntry(JSON.stringify({ ...entry, tenant: "../x" })), { code: "ERR_CORRUPT" });
  });
});
