// session ls on JetStream reads a summary a run in one request for all, counted at a real
// nats-server's monitoring endpoint, and lists exactly what the records say when a summary
// is missing, behind or not ours: runs the Go implementation wrote, a writer killed between
// a record and its summary, a value someone else put.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { assistantEntry, metaPayload, metaRecord, terminalEntry, userEntry } from "../src/conformance/record-builders.js";
import { createStore, type RunSummary } from "../src/index.js";
import { encodeRecord } from "../src/journal.js";
import type { JetStreamStore } from "../src/backends/jetstream/jetstream-store.js";
import { initRunStream } from "../src/backends/jetstream/run-stream.js";
import { malformedJournals } from "./helpers/malformed-journals.js";
import { startNatsServer, type NatsServer } from "./helpers/nats-server.js";
import { skipWithout } from "./helpers/programs.js";

const STREAM = "SUMMED";

describe("session ls on JetStream", { skip: skipWithout("nats-server") }, () => {
  let server: NatsServer;
  let store: JetStreamStore;
  let nc: NatsConnection;
  let apiRequests = 0;

  before(async () => {
    server = await startNatsServer();
    const config = { backend: "jetstream" as const, servers: server.url, stream: STREAM, leaseTtlMs: 1000 };
    await initRunStream(config);
    store = (await createStore(config)) as JetStreamStore;
    nc = await connect({ servers: server.url });
    nc.subscribe("$JS.API.>", {
      callback: () => {
        apiRequests++;
      },
    });
  });
  after(async () => {
    await nc.close();
    await store.close();
    await server.stop();
  });

  /** Runs `first`..`first + count - 1`, each ending another way: completed, suspended, or open (its writer gone). */
  async function makeRuns(first: number, count: number): Promise<void> {
    for (let n = first; n < first + count; n++) {
      const runId = `run-${n}`;
      const journal = await store.create(runId, metaPayload(runId));
      await journal.append(2, assistantEntry(0, `turn of ${runId}`));
      if (n % 3 !== 2) await journal.append(3, terminalEntry(n % 3 === 0 ? "completed" : "suspended"));
      await journal.close();
    }
  }

  /**
   * The listing, and how many JetStream API requests it made, once the markers of released
   * leases have expired (the bucket's TTL is a second here): a listing reads a few of them
   * a get each, so their number would change the count. The server expires them on its
   * own timer, later on a loaded machine, so this waits until they are gone. Requests are
   * counted as copies a subscription of this test receives: once the listing has its
   * answers, the server has sent the copies of its requests, and a flush sees them in.
   */
  async function listCounted(liveLeases = 0): Promise<{ listed: RunSummary[]; requests: number }> {
    await leaseMarkersExpired(liveLeases);
    await nc.flush();
    const before = apiRequests;
    const listed = await store.list();
    await nc.flush();
    return { listed: byId(listed), requests: apiRequests - before };
  }

  /** Until the lease bucket holds only the leases still held (one message a key: its history is 1). */
  async function leaseMarkersExpired(liveLeases: number): Promise<void> {
    const jsm = await jetstreamManager(nc);
    for (const deadline = Date.now() + 30_000; (await jsm.streams.info(`KV_${STREAM}_LEASES`)).state.messages > liveLeases; ) {
      assert.ok(Date.now() < deadline, "the lease markers expire within 30 s of a 1 s TTL");
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /** What folding each listed run's own records says of it: the listing must say the same. */
  async function fromRecords(listed: RunSummary[]): Promise<Essentials[]> {
    return Promise.all(
      listed.map(async ({ runId, status }) => {
        const state = await store.load(runId);
        return { runId: state.runId, status: status === "running" ? "running" : (state.terminal?.reason ?? "open"), lastSeq: state.lastSeq, meta: state.meta };
      }),
    );
  }

  /** Publishes a record as a writer that keeps no summary does (the Go implementation, or one killed before its summary). */
  async function publishBare(runId: string, seq: number, line: string): Promise<void> {
    await jetstream(nc).publish(store.subject(runId, seq), line.replace(/\n$/, ""));
  }

  /**
   * Reading the summaries takes four requests: the consumer that reads the bucket, its
   * delete (not awaited, so it may land after the count, in the next one), the stream's
   * info and the leases'. A delivery stalled 200 ms on a loaded machine adds a question
   * to the consumer. So a listing from the summaries takes 3 to 6, for 30 runs or 60;
   * reading a run's records takes more.
   */
  function assertFromSummaries(requests: number, what: string): void {
    assert.ok(requests >= 3 && requests <= 6, `${what}: ${requests} requests, where reading the summaries takes 3 to 6`);
  }

  it("reads the summaries in the same few requests for 60 runs as for 30", async () => {
    await makeRuns(0, 30);
    const thirty = await listCounted();
    assert.equal(thirty.listed.length, 30);
    assert.deepEqual(essentials(thirty.listed), await fromRecords(thirty.listed));
    await makeRuns(30, 30);
    const sixty = await listCounted();
    assert.equal(sixty.listed.length, 60);
    assert.deepEqual(essentials(sixty.listed), await fromRecords(sixty.listed));
    assertFromSummaries(thirty.requests, "30 runs");
    assertFromSummaries(sixty.requests, "60 runs");
    assert.deepEqual(new Set(sixty.listed.map((summary) => summary.status)), new Set(["completed", "suspended", "open"]));
  });

  it("lists a record published without a summary as the records say, then puts the summary right", async () => {
    // run-2 is open at seq 2: its next record, a terminal, lands with no summary after it.
    await publishBare("run-2", 3, encodeRecord({ seq: 3, ...terminalEntry("completed") }));
    const behind = await listCounted();
    const run2 = behind.listed.find((summary) => summary.runId === "run-2");
    assert.equal(run2?.status, "completed");
    assert.equal(run2?.lastSeq, 3);
    assert.deepEqual(essentials(behind.listed), await fromRecords(behind.listed));
    assert.ok(behind.requests > 6, `read the subjects and that run's records: ${behind.requests} requests`);
    const again = await listCounted();
    assert.deepEqual(again.listed, behind.listed);
    assertFromSummaries(again.requests, "the next listing reads the summaries again");
  });

  it("lists a run the Go implementation wrote, which has no summary, and summarizes it for the next listing", async () => {
    const lines = [encodeRecord(metaRecord("go-run")), encodeRecord({ seq: 2, ...assistantEntry(0, "from Go") })];
    // The meta last, as an import writes it: nothing sees the run before it is whole.
    await publishBare("go-run", 2, lines[1] as string);
    await publishBare("go-run", 1, lines[0] as string);
    const first = await listCounted();
    const goRun = first.listed.find((summary) => summary.runId === "go-run");
    assert.equal(goRun?.status, "open");
    assert.equal(goRun?.lastSeq, 2);
    assert.deepEqual(essentials(first.listed), await fromRecords(first.listed));
    assertFromSummaries((await listCounted()).requests, "the next listing");
  });

  it("reads a summary that is not one of ours as missing", async () => {
    const kv = await new Kvm(jetstream(nc)).open(`${STREAM}_SUMMARIES`);
    await kv.put("run-0", "{not a summary");
    await kv.put("run-1", JSON.stringify({ v: 1, count: 3, status: "completed", meta: null, last_seq: 3, updated: "2026-01-01T00:00:00Z" }));
    const listed = await listCounted();
    assert.deepEqual(essentials(listed.listed), await fromRecords(listed.listed));
    assertFromSummaries((await listCounted()).requests, "the next listing");
  });

  it("shows a run being written as running, at its last record", async () => {
    const journal = await store.open("run-5");
    try {
      await journal.append(3, userEntry("more"));
      const { listed } = await listCounted(1);
      const run5 = listed.find((summary) => summary.runId === "run-5");
      assert.equal(run5?.status, "running");
      assert.equal(run5?.lastSeq, 3);
    } finally {
      await journal.close();
    }
    const closed = await listCounted();
    assert.equal(closed.listed.find((summary) => summary.runId === "run-5")?.status, "open");
    assert.deepEqual(essentials(closed.listed), await fromRecords(closed.listed));
  });

  it("shows every run held open as running, when there are too many leases to read one by one", async () => {
    const held = Array.from({ length: 40 }, (_, n) => `run-${n + 10}`);
    const journals = await Promise.all(held.map((runId) => store.open(runId)));
    try {
      const listed = await store.list();
      for (const runId of held) assert.equal(listed.find((summary) => summary.runId === runId)?.status, "running", runId);
      assert.equal(listed.filter((summary) => summary.status === "running").length, held.length);
    } finally {
      await Promise.all(journals.map((journal) => journal.close()));
    }
  });

  it("lists each journal of the malformed corpus as corrupt, naming its line, from the records and from the summary put after", async () => {
    // A seq the corpus repeats has one slot here: those journals cannot be published as written.
    const journals = malformedJournals().filter(({ text }) =>
      text
        .split("\n")
        .slice(0, -1)
        .every((line, index) => !line.startsWith('{"seq"') || line.startsWith(`{"seq":${index + 1},`)),
    );
    for (const { name, text } of journals) {
      const lines = text.split("\n").slice(0, -1);
      // The meta last, as an import writes it.
      for (let seq = lines.length; seq >= 1; seq--)
        await publishBare(`bad-${name}`, seq, (lines[seq - 1] as string).replace(`"run_id":"${name}"`, `"run_id":"bad-${name}"`));
    }
    for (const pass of ["from the records", "from the summaries"]) {
      const listed = await store.list();
      for (const { name, line } of journals) {
        const summary = listed.find((candidate) => candidate.runId === `bad-${name}`);
        assert.equal(summary?.status, "corrupt", `${pass}: ${name}: ${JSON.stringify(summary)}`);
        assert.match(summary?.problem ?? "", new RegExp(`line ${line}\\b`), `${pass}: ${name}`);
      }
    }
    for (const { name } of journals) await store.delete(`bad-${name}`).catch(() => undefined);
  });

  it("lists a run whose writer appended a record that does not fold as corrupt, from the writer's own summary", async () => {
    const journal = await store.create("unfolding", metaPayload("unfolding"));
    await journal.append(2, assistantEntry(0, "one"));
    await journal.append(3, assistantEntry(1, "two"));
    await journal.close();
    const { listed, requests } = await listCounted();
    const summary = listed.find((candidate) => candidate.runId === "unfolding");
    assert.equal(summary?.status, "corrupt", JSON.stringify(summary));
    assert.match(summary?.problem ?? "", /^session unfolding: line 3\b/);
    assertFromSummaries(requests, "the writer's summary");
    await store.delete("unfolding");
  });

  it("forgets a removed run's summary", async () => {
    await store.delete("run-7");
    const { listed, requests } = await listCounted();
    assert.equal(
      listed.some((summary) => summary.runId === "run-7"),
      false,
    );
    assertFromSummaries(requests, "after the delete");
  });
});

type Essentials = Pick<RunSummary, "runId" | "status" | "lastSeq" | "meta">;

/**
 * What a listing says of each run, but when it was updated: a summary has the writer's
 * clock at its put, the records the server's at their store, a few milliseconds apart.
 */
function essentials(summaries: RunSummary[]): Essentials[] {
  return summaries.map(({ runId, status, lastSeq, meta, updated }) => {
    assert.ok(Math.abs(Date.parse(updated) - Date.now()) < 600_000, `${runId} updated ${updated}`);
    return { runId, status, lastSeq, meta };
  });
}

function byId(summaries: RunSummary[]): RunSummary[] {
  return [...summaries].sort((a, b) => (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0));
}
