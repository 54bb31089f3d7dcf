// covers: src/cli/session/handlers/transfer.ts, src/config/agent-config.ts, src/ledger/ledger.ts, src/ledger/prices.ts
// covers: src/backends/open-backend.ts, src/backends/file/file-store.ts
// covers: src/backends/jetstream/run-stream.ts, src/backends/memory/memory-store.ts
// covers: src/runstate/records/journal-codec.ts, src/session/journal-search.ts, src/session/prune-plan.ts
// covers: src/session/session-title.ts, src/session/transfer.ts
// tier: quick
// process: shared
// The ledger (tokens and cost by model, forks and renamed imports counted once), titles,
// prune's plan and search, over real stores in this process: the file store (its summary
// cache cold, warm and advanced by appends), the memory store, and JetStream on a real
// nats-server. The CLI's side of the same is in cli-ledger.test.ts.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { loadAgentConfig } from "../src/config/agent-config.js";
import { importSession } from "../src/cli/session/handlers/transfer.js";
import { forkSession } from "../src/session/transfer.js";
import { ledgerOf, callsOf } from "../src/ledger/ledger.js";
import { planPrune } from "../src/session/prune-plan.js";
import { costOf, priceOf, SHIPPED_PRICES } from "../src/ledger/prices.js";
import { searchJournal, SearchText } from "../src/session/journal-search.js";
import { createStore, FileStore, MemoryStore, type RunSummary, type Store } from "../src/index.js";
import { decodeJournal } from "../src/journal.js";
import { titleSession } from "../src/session/session-title.js";
import { initRunStream } from "../src/backends/jetstream/run-stream.js";
import { assistantEntry, compactionEntry, metaPayload, terminalEntry, titleEntry, toolResultEntry, userEntry } from "./helpers/record-builders.js";
import { startNatsServer, type NatsServer } from "./helpers/nats-server.js";
import { skipWithout } from "./helpers/programs.js";
import type { RecordEntry } from "../src/journal.js";

const ROOT = mkdtempSync(join(tmpdir(), "fisk-ai-ledger-"));
after(() => rmSync(ROOT, { recursive: true, force: true }));
let dirs = 0;
const freshDir = () => join(ROOT, `store-${++dirs}`);

/** What one assistantEntry costs at claude-sonnet-4-5's shipped price: 100 in, 20 out, 5 cache read, 7 cache write. */
const CALL_COST = (100 * 3 + 20 * 15 + 5 * 0.3 + 7 * 3.75) / 1_000_000;

/** A run of `calls` model calls (each answering its tool but the last), ended `reason`. */
async function makeRun(store: Store, runId: string, calls: number, reason: "completed" | "suspended" = "completed", model?: string): Promise<void> {
  const journal = await store.create(runId, metaPayload(runId, model === undefined ? {} : { fingerprint: { ...metaPayload(runId).fingerprint, model } }));
  let seq = 2;
  for (let call = 0; call < calls - 1; call++) {
    await journal.append(seq++, assistantEntry(call, `turn ${call} of ${runId}`, [`${runId}-t${call}`]));
    await journal.append(seq++, toolResultEntry(`${runId}-t${call}`, `result ${call} of ${runId}`));
  }
  await journal.append(seq++, assistantEntry(calls - 1, `answer of ${runId}`));
  await journal.append(seq, terminalEntry(reason));
  await journal.close();
}

async function appendTo(store: Store, runId: string, ...entries: RecordEntry[]): Promise<void> {
  const journal = await store.open(runId);
  for (const entry of entries) await journal.append(journal.lastSeq + 1, entry);
  await journal.close();
}

async function journalFile(store: Store, runId: string, path: string): Promise<string> {
  writeFileSync(path, await store.readJournal(runId));
  return path;
}

const byId = (summaries: RunSummary[]) => new Map(summaries.map((summary) => [summary.runId, summary]));

function storeKinds(): [string, () => Store][] {
  return [
    ["file store", () => new FileStore({ dir: freshDir() })],
    ["memory store", () => new MemoryStore()],
  ];
}

describe("ledger", () => {
  for (const [kind, makeStore] of storeKinds()) {
    describe(kind, () => {
      it("counts the records a fork copied once, in the original, however many forks and forks of forks", async () => {
        const store = makeStore();
        await makeRun(store, "orig", 3);
        const first = await forkSession(store, "orig", { name: "fork-a" });
        await forkSession(store, "orig", { name: "fork-b", at: 4 });
        await forkSession(store, "fork-a", { name: "fork-aa" });
        assert.equal(first.at, 7);
        const listed = await store.list();
        const ledger = ledgerOf(listed.map((summary) => summary.digest as NonNullable<RunSummary["digest"]>));
        assert.equal(ledger.usage.calls, 3, "three calls, made once, in the original");
        assert.equal(ledger.usage.inTokens, 300);
        assert.ok(Math.abs(ledger.cost - 3 * CALL_COST) < 1e-12, `cost ${ledger.cost}`);
        const summaries = byId(listed);
        assert.deepEqual(summaries.get("fork-b")?.digest?.origin, { run_id: "orig", through_seq: 4, kind: "fork" });
        assert.equal(summaries.get("fork-b")?.digest?.copied.calls, 2);
        assert.equal(summaries.get("fork-aa")?.digest?.copied.calls, 3, "a fork of a fork copied the first fork's copy");
        assert.equal(summaries.get("fork-a")?.status, "completed", "the origin record leaves the copy as it stopped");

        // What a fork does after the copy is its own.
        await appendTo(store, "fork-b", assistantEntry(5, "the fork goes on"));
        const after = ledgerOf((await store.list()).map((summary) => summary.digest as NonNullable<RunSummary["digest"]>));
        assert.equal(after.usage.calls, 4);
        assert.equal(byId(await store.list()).get("fork-b")?.digest?.calls["claude-sonnet-4-5"]?.calls, 1);
      });

      it("counts a journal imported under a new name once, and one imported under its own id where it now is", async () => {
        const store = makeStore();
        await makeRun(store, "travel", 2);
        const file = await journalFile(store, "travel", join(ROOT, `travel-${kind.replace(" ", "-")}.jsonl`));
        await importSession(store, file, "travel-copy", process.stdin);
        const ledger = ledgerOf((await store.list()).map((summary) => summary.digest as NonNullable<RunSummary["digest"]>));
        assert.equal(ledger.usage.calls, 2);
        assert.deepEqual(byId(await store.list()).get("travel-copy")?.digest?.origin, { run_id: "travel", through_seq: 5, kind: "import" });
        const elsewhere = makeStore();
        assert.equal(await importSession(elsewhere, file, undefined, process.stdin), "travel");
        const moved = byId(await elsewhere.list()).get("travel")?.digest;
        assert.equal(moved?.origin, undefined, "the same session, moved: it is the original");
        assert.equal(moved?.calls["claude-sonnet-4-5"]?.calls, 2);
      });

      it("keeps a title through later appends, an export and import, and a fork", async () => {
        const store = makeStore();
        await makeRun(store, "titled", 1, "suspended");
        await titleSession(store, "titled", "Quarterly report");
        await appendTo(store, "titled", userEntry("go on"), assistantEntry(1, "more"), userEntry("and on"), assistantEntry(2, "and more"));
        assert.equal((await store.load("titled")).title, "Quarterly report");
        assert.equal(byId(await store.list()).get("titled")?.digest?.title, "Quarterly report");
        const file = await journalFile(store, "titled", join(ROOT, `titled-${kind.replace(" ", "-")}.jsonl`));
        const other = makeStore();
        await importSession(other, file, "titled-2", process.stdin);
        assert.equal(byId(await other.list()).get("titled-2")?.digest?.title, "Quarterly report");
        await forkSession(other, "titled-2", { name: "titled-3" });
        assert.equal((await other.load("titled-3")).title, "Quarterly report");
        await titleSession(other, "titled-3", "Renamed");
        assert.equal(byId(await other.list()).get("titled-3")?.digest?.title, "Renamed");
        assert.equal(byId(await other.list()).get("titled-2")?.digest?.title, "Quarterly report");
      });

      it("keeps a completed session completed when it is titled", async () => {
        const store = makeStore();
        await makeRun(store, "done", 1);
        await titleSession(store, "done", "Finished work");
        const summary = byId(await store.list()).get("done");
        assert.deepEqual([summary?.status, summary?.digest?.title], ["completed", "Finished work"]);
      });
    });
  }

  it("gives the file store's cached digest, advanced by appends, exactly as a digest read cold", async () => {
    const dir = freshDir();
    const store = new FileStore({ dir });
    await makeRun(store, "warm", 2, "suspended");
    await store.list();
    await appendTo(store, "warm", titleEntry("warmed"), userEntry("again"), assistantEntry(2, "third"), compactionEntry(1, 4, { model: "claude-haiku-4-5" }));
    const warm = byId(await store.list()).get("warm");
    rmSync(join(dir, ".summaries"));
    const cold = byId(await new FileStore({ dir }).list()).get("warm");
    assert.deepEqual(warm?.digest, cold?.digest);
    assert.equal(cold?.digest?.compactions["claude-haiku-4-5"]?.inTokens, 900, "the summarizing call is counted apart, by its own model");
    assert.equal(cold?.digest?.calls["claude-sonnet-4-5"]?.calls, 3);
  });
});

describe("prices", () => {
  it("prices a shipped model, gives no price to an unknown one, and takes agent.yaml's in place of or beside the table", () => {
    const usage = { calls: 1, inTokens: 1_000_000, outTokens: 1_000_000, cacheReadTokens: 1_000_000, cacheWriteTokens: 1_000_000 };
    assert.equal(costOf(usage, priceOf("claude-sonnet-4-5") as NonNullable<ReturnType<typeof priceOf>>), 3 + 15 + 0.3 + 3.75);
    assert.deepEqual(priceOf("claude-sonnet-4-5-20250929"), SHIPPED_PRICES["claude-sonnet-4-5"], "a dated id takes its alias's price");
    assert.equal(priceOf("llama3.2"), undefined);
    const config = join(ROOT, "priced.yaml");
    writeFileSync(
      config,
      "pricing:\n  llama3.2: { input: 0, output: 0, cache_read: 0, cache_write: 0 }\n  claude-sonnet-4-5: { input: 1, output: 2, cache_read: 0.1, cache_write: 1.25 }\n",
    );
    const prices = loadAgentConfig(config).pricing;
    assert.deepEqual(priceOf("llama3.2", prices), { input: 0, output: 0, cache_read: 0, cache_write: 0 });
    assert.equal(priceOf("claude-sonnet-4-5", prices)?.input, 1);
    assert.equal(priceOf("gpt-4.1", prices)?.input, 2, "a model agent.yaml does not name keeps the table's price");
  });

  it("refuses a price that is not a number of dollars, naming the field", () => {
    const config = join(ROOT, "bad-price.yaml");
    writeFileSync(config, "pricing:\n  my-model: { input: -1, output: 2, cache_read: 0, cache_write: 0 }\n");
    assert.throws(() => loadAgentConfig(config), /pricing\.my-model\.input: expected US dollars per million tokens/);
    writeFileSync(config, "pricing:\n  my-model: { input: 1, output: 2 }\n");
    assert.throws(() => loadAgentConfig(config), /pricing\.my-model\.cache_read/);
  });

  it("shows tokens and no cost for a model with no price, and leaves it out of the total", async () => {
    const store = new MemoryStore();
    await makeRun(store, "priced", 2);
    await makeRun(store, "local", 3, "completed", "llama3.2");
    const ledger = ledgerOf((await store.list()).map((summary) => summary.digest as NonNullable<RunSummary["digest"]>));
    assert.deepEqual(ledger.unpriced, ["llama3.2"]);
    const local = ledger.lines.find((line) => line.model === "llama3.2");
    assert.deepEqual([local?.cost, local?.usage.calls, local?.usage.inTokens], [undefined, 3, 300]);
    assert.ok(Math.abs(ledger.cost - 2 * CALL_COST) < 1e-12);
    assert.equal(ledger.usage.calls, 5);
    const calls = callsOf(decodeJournal(Buffer.from(await store.readJournal("local"))).records);
    assert.deepEqual(
      calls.map((call) => [call.seq, call.cost]),
      [
        [2, undefined],
        [4, undefined],
        [6, undefined],
      ],
    );
  });
});

describe("prune plan", () => {
  const now = Date.parse("2026-12-05T12:00:00Z");
  const summary = (runId: string, status: RunSummary["status"], daysAgo: number, bytes = 100): RunSummary => ({
    runId,
    status,
    meta: metaPayload(runId),
    lastSeq: 3,
    updated: new Date(now - daysAgo * 86_400_000).toISOString(),
    digest: {
      bytes,
      status: "completed",
      calls: {},
      compactions: {},
      copied: { calls: 0, inTokens: 0, outTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    },
  });
  const all = [
    summary("new-done", "completed", 1),
    summary("old-done", "completed", 40, 500),
    summary("old-error", "error", 35, 300),
    summary("old-suspended", "suspended", 50),
    summary("old-open", "open", 60),
    summary("old-running", "running", 45),
    summary("old-waiting", "awaiting_approval", 41),
    summary("old-corrupt", "corrupt", 42),
    summary("mid-budget", "budget", 10),
  ];
  const ids = (list: RunSummary[]) => list.map((entry) => entry.runId).sort();

  it("removes what is older than --older-than, largest first, and keeps what can still go on", () => {
    const plan = planPrune(all, { olderThanMs: 30 * 86_400_000 }, now);
    assert.deepEqual(
      plan.remove.map((entry) => entry.runId),
      ["old-done", "old-error"],
    );
    assert.deepEqual(ids(plan.protected), ["old-corrupt", "old-open", "old-running", "old-suspended", "old-waiting"]);
  });

  it("removes only the statuses named, and a protected status only when named", () => {
    assert.deepEqual(ids(planPrune(all, { statuses: ["completed"] }, now).remove), ["new-done", "old-done"]);
    assert.deepEqual(ids(planPrune(all, { statuses: ["suspended", "budget"] }, now).remove), ["mid-budget", "old-suspended"]);
    assert.deepEqual(ids(planPrune(all, { statuses: ["open", "awaiting_approval"] }, now).remove), ["old-open", "old-waiting"]);
    assert.deepEqual(planPrune(all, { statuses: ["completed"] }, now).protected, [], "a status not named is no match, not a protected one");
  });

  it("keeps the newest --keep-last sessions whatever else matches", () => {
    const plan = planPrune(all, { keepLast: 3 }, now);
    assert.deepEqual(ids(plan.remove), ["old-done"], "new-done, mid-budget and old-error are the newest three; of the rest only old-done is finished");
    const everything = planPrune(all, { keepLast: 0, statuses: ["completed", "error", "budget"] }, now);
    assert.deepEqual(ids(everything.remove), ["mid-budget", "new-done", "old-done", "old-error"]);
  });

  it("removes only what matches every filter", () => {
    const plan = planPrune(all, { olderThanMs: 30 * 86_400_000, statuses: ["completed", "suspended"], keepLast: 1 }, now);
    assert.deepEqual(ids(plan.remove), ["old-done", "old-suspended"]);
  });
});

describe("search in a journal", () => {
  const journal = (entries: RecordEntry[]) => {
    const records = [
      { seq: 1, protocol: "io.choria.fisk-ai.v1.session.meta", meta: metaPayload("s", { prompt: "Find the Kafka lag" }) },
      ...entries.map((entry, index) => ({ seq: index + 2, ...entry })),
    ];
    return Buffer.from(records.map((record) => `${JSON.stringify(record)}\n`).join(""));
  };
  const bytes = journal([
    assistantEntry(0, "Looking at the consumers", ["toolu_1"]),
    toolResultEntry("toolu_1", "line one\nconsumer group payments lag 4200\nline three"),
    titleEntry("Lag on payments"),
    userEntry('she said "hello"\nthen left'),
  ]);

  it("finds the prompt, the title, text, tool inputs and results, giving the line that holds it", () => {
    assert.deepEqual(searchJournal(bytes, new SearchText("kafka")), { seq: 1, field: "prompt", line: "Find the Kafka lag", at: 9 });
    assert.deepEqual(searchJournal(bytes, new SearchText("payments lag")), { seq: 3, field: "tool_result", line: "consumer group payments lag 4200", at: 15 });
    assert.equal(searchJournal(bytes, new SearchText("Lag on"))?.field, "title");
    assert.equal(searchJournal(bytes, new SearchText("tool_use")), undefined, "a block's type is not text");
    assert.equal(searchJournal(bytes, new SearchText("toolu_1"))?.field, "assistant", "a tool's input is searched (assistantEntry's input is its id)");
    assert.deepEqual(searchJournal(bytes, new SearchText('"hello"')), { seq: 5, field: "user", line: 'she said "hello"', at: 9 });
    assert.equal(searchJournal(bytes, new SearchText("CONSUMERS")), undefined, "a capital matches exactly");
    assert.equal(searchJournal(bytes, new SearchText("consumers"))?.field, "assistant");
    assert.equal(searchJournal(bytes, new SearchText("fingerprint")), undefined);
    assert.equal(searchJournal(bytes, new SearchText("aaaa")), undefined, "the fingerprint's hashes are not text");
  });
});

describe("titles, search and prune on JetStream", { skip: skipWithout("nats-server") }, () => {
  let server: NatsServer;
  let store: Store;

  before(async () => {
    server = await startNatsServer();
    const config = { backend: "jetstream" as const, servers: server.url, stream: "LEDGER", leaseTtlMs: 1000 };
    await initRunStream(config);
    store = await createStore(config);
  });
  after(async () => {
    await store.close();
    await server.stop();
  });

  it("keeps the digest in the summaries bucket: a title after the end, forks counted once", async () => {
    await makeRun(store, "js-orig", 2);
    await titleSession(store, "js-orig", "Stream title");
    await forkSession(store, "js-orig", { name: "js-fork" });
    const listed = byId(await store.list());
    assert.deepEqual([listed.get("js-orig")?.status, listed.get("js-orig")?.digest?.title], ["completed", "Stream title"]);
    assert.equal(listed.get("js-fork")?.digest?.title, "Stream title");
    assert.equal(ledgerOf([...listed.values()].map((summary) => summary.digest as NonNullable<RunSummary["digest"]>)).usage.calls, 2);
    assert.equal(listed.get("js-orig")?.digest?.bytes, (await store.readJournal("js-orig")).byteLength);
  });
});
