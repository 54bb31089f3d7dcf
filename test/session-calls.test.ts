// covers: src/session/list-sessions.ts, src/session/show-session.ts, src/session/session-stats.ts
// covers: src/session/search-sessions.ts, src/session/prune-sessions.ts, src/session/verify-session.ts
// process: shared
// The session operations as library calls returning data, as an HTTP handler calls them: each
// on a memory store, its result checked field by field (the CLI's tests pin how it prints them).
import assert from "node:assert/strict";
import test from "node:test";
import {
  isFiskError,
  listSessions,
  MemoryStore,
  pruneSessions,
  searchSessions,
  sessionStats,
  showSession,
  verifySession,
  type RunSummary,
  type Store,
} from "../src/index.js";
import type { MetaPayload, RecordEntry } from "../src/journal.js";
import { approvalRequestEntry, assistantEntry, metaPayload, terminalEntry, userEntry } from "./helpers/record-builders.js";

async function journal(store: Store, runId: string, meta: Partial<MetaPayload>, ...entries: RecordEntry[]): Promise<void> {
  const writer = await store.create(runId, metaPayload(runId, meta));
  let seq = 2;
  for (const entry of entries) await writer.append(seq++, entry);
  await writer.close();
}

/** Until the clock shows another millisecond: sessions written in one would list in id order, not newest first. */
async function nextMillisecond(): Promise<void> {
  const now = Date.now();
  while (Date.now() === now) await new Promise((resolve) => setImmediate(resolve));
}

/** Three sessions written one after the other: `done` (completed, in /a), `open` (no terminal, in /b), `child` (completed, under `done`). */
async function threeSessions(): Promise<MemoryStore> {
  const store = new MemoryStore();
  await journal(store, "done", { cwd: "/a" }, userEntry("find the walrus"), assistantEntry(0, "It is in the zoo."), terminalEntry("completed"));
  await nextMillisecond();
  await journal(store, "open", { cwd: "/b" }, assistantEntry(0, "Working on it."));
  await nextMillisecond();
  await journal(
    store,
    "child",
    { cwd: "/a", parent: { run_id: "done", call_id: "toolu_9", depth: 1 } },
    assistantEntry(0, "A child's answer."),
    terminalEntry("completed"),
  );
  return store;
}

const ids = (summaries: readonly RunSummary[]) => summaries.map((summary) => summary.runId);

test("listSessions: newest first, only those started here when asked, children under their parent, orphans named", async () => {
  const store = await threeSessions();
  const all = await listSessions(store);
  assert.deepEqual(ids(all.sessions), ["child", "open", "done"]);
  assert.deepEqual(
    all.forest.map((node) => [node.summary.runId, node.children.map((child) => child.summary.runId)]),
    [
      ["open", []],
      ["done", ["child"]],
    ],
  );
  // Open, held by nobody, and no queue that knows it: what `worker --adopt` takes.
  assert.deepEqual([...all.orphaned], ["open"]);
  assert.deepEqual(all.quarantined, []);
  assert.deepEqual(ids((await listSessions(store, { here: "/a" })).sessions), ["child", "done"]);
  assert.deepEqual((await listSessions(new MemoryStore())).sessions, []);
});

test("showSession: the state, the cost with the prices given for its summary, and the calls that wait with no decision", async () => {
  const store = new MemoryStore();
  await journal(store, "parked", {}, assistantEntry(0, "May I?", ["toolu_1"]), approvalRequestEntry("toolu_1"), terminalEntry("awaiting_approval"));
  const asked: string[] = [];
  const shown = await showSession(store, "parked", {
    prices: (summary) => {
      asked.push(summary.runId);
      return { "claude-sonnet-4-5": { input: 1_000_000, output: 0, cache_read: 0, cache_write: 0 } };
    },
  });
  assert.deepEqual(asked, ["parked"]);
  assert.equal(shown.summary.status, "awaiting_approval");
  assert.equal(shown.tally.counters.modelCalls, 1);
  assert.equal(shown.ledger.usage.calls, 1);
  assert.equal(shown.ledger.usage.inTokens, 100);
  // 100 input tokens at a dollar a token.
  assert.equal(shown.ledger.cost, 100);
  assert.equal(shown.tree, undefined);
  assert.equal(shown.foreign, undefined);
  assert.deepEqual(
    shown.approvals.map(({ request, decision }) => [request.tool_use_id, decision]),
    [["toolu_1", undefined]],
  );
  assert.deepEqual(shown.uncounted, []);
  await assert.rejects(showSession(store, "missing"), (error) => isFiskError(error, "ERR_NOT_FOUND"));
});

test("sessionStats: the calls and tokens of every readable session, grouped when asked, limited to recent ones", async () => {
  const store = await threeSessions();
  const stats = await sessionStats(store);
  assert.equal(stats.total.sessions, 3);
  assert.equal(stats.total.ledger.usage.calls, 3);
  assert.equal(stats.total.ledger.usage.outTokens, 60);
  assert.deepEqual(stats.groups, []);
  const byCwd = await sessionStats(store, { by: "cwd" });
  assert.deepEqual(
    byCwd.groups.map(({ key, sessions, ledger }) => [key, sessions, ledger.usage.calls]),
    [
      ["/a", 2, 2],
      ["/b", 1, 1],
    ],
  );
  // An hour from now, none was written in the last minute.
  const later = await sessionStats(store, { sinceMs: 60_000, now: Date.now() + 3_600_000 });
  assert.equal(later.total.sessions, 0);
  assert.equal(later.since, new Date(Date.parse(later.since ?? "")).toISOString());
});

test("searchSessions: the sessions holding the text, newest first, with where it is; blank text finds nothing", async () => {
  const store = await threeSessions();
  const found = await searchSessions(store, "walrus");
  assert.deepEqual(
    found.map(({ summary, hit }) => [summary.runId, hit.field, hit.seq]),
    [["done", "user", 2]],
  );
  assert.deepEqual(ids((await searchSessions(store, "answer")).map(({ summary }) => summary)), ["child"]);
  assert.deepEqual(await searchSessions(store, "   "), []);
  assert.deepEqual(await searchSessions(store, "nowhere to be found"), []);
});

test("pruneSessions: a dry run removes nothing, a prune removes whole trees, and a session that can go on is kept", async () => {
  const store = await threeSessions();
  const dry = await pruneSessions(store, { olderThanMs: 0 }, { dryRun: true, now: Date.now() + 1000 });
  assert.deepEqual(ids(dry.removed), ["done", "child"]);
  assert.deepEqual(ids(dry.protected), ["open"]);
  assert.ok(dry.bytes > 0);
  assert.equal((await store.list()).length, 3);
  const done = await pruneSessions(store, { statuses: ["completed"] });
  assert.deepEqual(ids(done.removed), ["done", "child"]);
  assert.deepEqual(done.failed, []);
  assert.deepEqual(ids(await store.list()), ["open"]);
});

test("verifySession: the records of a sound session; a session that is not there is refused", async () => {
  const store = await threeSessions();
  const check = await verifySession(store, "done");
  assert.equal(check.records, 4);
  assert.deepEqual(check.problems, []);
  assert.equal(check.foreign, undefined);
  assert.deepEqual(check.uncounted, []);
  await assert.rejects(verifySession(store, "missing"), (error) => isFiskError(error, "ERR_NOT_FOUND"));
});
