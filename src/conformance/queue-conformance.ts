// The contract every RunQueue backend keeps (docs/workers.md), as node:test cases. A
// backend's test file calls runQueueConformance with a harness and runs under
// `node --test`; nothing here knows how a backend keeps an entry or hands out work.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { performance } from "node:perf_hooks";
import { RunStateError } from "../runstate/errors.js";
import type { Store } from "../runstate/store/store.js";
import type { QueuedRun, QueueWatch, RunQueue } from "../queue/run-queue.js";
import { metaPayload, terminalEntry } from "./record-builders.js";
import { quarantineCases, type PlantAt, type PlantedBad } from "./queue-quarantine-cases.js";

/** A queue under test and the store its runs are in. */
export interface QueueUnderTest {
  /** The store the queued runs are in: a claim holds a run of it. */
  store: Store;
  /** The queue of that store. */
  queue: RunQueue;
}

/** What the suite needs of a backend. */
export interface QueueHarness {
  /** Called once before the first case (start a server). */
  setup?(): Promise<void>;
  /** Called once after the last case, after every store and queue is closed. */
  teardown?(): Promise<void>;
  /** A store and a queue over fresh storage. */
  makeQueue(): Promise<QueueUnderTest>;
  /** A second store and queue over the storage of `of`, as another worker process would make them: its claims compete with the first's. */
  again(of: QueueUnderTest): Promise<QueueUnderTest>;
  /**
   * The backend's stated bound on a takeover, in milliseconds: how long a run whose worker
   * died stays with it before another claim can take it. The poll interval of the worker
   * where the claim is a kernel lock, freed with the process; the lease's TTL where the
   * queue redelivers after an acknowledgement deadline. A backend slower than this bound
   * (and the slack of one claim's own round trip) fails the takeover case.
   */
  takeoverMs: number;
  /**
   * Plants something bad in the backend's storage, as anyone who can write there could:
   * `bad` where run `at.runId`'s entry goes, or (`at.behind`) where a follow-up to it waits.
   * Bytes are kept as they are; "symlink", "fifo" and "directory" stand in the entry's
   * place on a backend whose entries are files. False when the backend cannot hold such a
   * thing (a message stream has no FIFO, a server refuses a message past its largest).
   */
  plant(of: QueueUnderTest, at: PlantAt, bad: PlantedBad): Promise<boolean>;
}

/** What a takeover may take past the backend's bound: one claim's own round trip (a pull that waits for the redelivery, a lock taken). */
const TAKEOVER_SLACK_MS = 1000;

const accepts = () => true;

/** What a watch waits at most in the watch case: far longer than any backend takes to hear a change, so only a wake-up passes it. */
const WATCH_TIMEOUT_MS = 20_000;

/**
 * Waits on `watch` until `check` holds, looking after each wake (one may be spurious);
 * false once a wait ran out its timeout, so nothing woke the waiter.
 */
async function wokenUntil(watch: QueueWatch, check: () => Promise<boolean>): Promise<boolean> {
  for (;;) {
    const waitedFrom = performance.now();
    await watch.next(WATCH_TIMEOUT_MS);
    // A wait cut short by a wake, not by its timeout (the timer may fire a little early on some clocks).
    if (performance.now() - waitedFrom > WATCH_TIMEOUT_MS * 0.9) return false;
    if (await check()) return true;
  }
}

/** Polls `check` (a backend hears of an interrupt when it looks). */
async function waitUntil(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

let made = 0;

/**
 * Declares the RunQueue conformance suite with node:test: one `describe` named after
 * `backend`, run under `node --test`. Each case makes its sessions in the harness's store
 * and queues them: enqueue and list, exclusive claims (two workers never get one run),
 * watches woken by another queue's changes,
 * finish, hand-back, a claimer that dies, park and unpark, withdraw, bad ids, and bad
 * entries planted in the backend's storage (queue-quarantine-cases.ts).
 */
export function runQueueConformance(backend: string, harness: QueueHarness): void {
  describe(`Queue conformance: ${backend}`, () => {
    const opened: QueueUnderTest[] = [];
    let first: QueueUnderTest;
    let second: QueueUnderTest;
    before(async () => {
      await harness.setup?.();
      first = await harness.makeQueue();
      second = await harness.again(first);
      opened.push(first, second);
    });
    after(async () => {
      for (const each of opened) {
        await each.queue.close();
        await each.store.close();
      }
      await harness.teardown?.();
    });

    /** A new session in the store, queued; the entry as queued. */
    async function queued(queue: RunQueue = first.queue, at = new Date()): Promise<QueuedRun> {
      const runId = `q${process.pid}x${++made}`;
      const meta = metaPayload(runId);
      await (await first.store.create(runId, meta)).close();
      const entry: QueuedRun = { runId, queued: at.toISOString(), fingerprint: meta.fingerprint, version: meta.version, afterSeq: 1, state: "queued" };
      await queue.enqueue(entry);
      return entry;
    }

    /** Settles every claim the queue still hands out, so the next case starts from an empty queue. */
    async function drain(): Promise<void> {
      for (const entry of await first.queue.list()) await first.queue.withdraw(entry.runId).catch(() => undefined);
    }

    it("enqueue: the entry is listed as given, and a second enqueue of the run is ERR_EXISTS", async () => {
      const entry = await queued();
      assert.deepEqual(await first.queue.get(entry.runId), entry);
      assert.deepEqual(
        (await second.queue.list()).map((each) => each.runId),
        [entry.runId],
      );
      await assert.rejects(first.queue.enqueue(entry), (error: unknown) => error instanceof RunStateError && error.code === "ERR_EXISTS");
      await drain();
    });

    it("list: oldest first", async () => {
      const later = await queued(first.queue, new Date(Date.now() + 60_000));
      const sooner = await queued(first.queue, new Date(Date.now() - 60_000));
      assert.deepEqual(
        (await first.queue.list()).map((each) => each.runId),
        [sooner.runId, later.runId],
      );
      await drain();
    });

    it("claim: holds the run's journal exclusively (the store refuses another open ERR_LOCKED) and takes the oldest", async () => {
      const older = await queued(first.queue, new Date(Date.now() - 1000));
      await queued();
      const claim = await second.queue.claim(accepts);
      assert.equal(claim?.entry.runId, older.runId);
      assert.equal(claim?.journal.runId, older.runId);
      await assert.rejects(first.store.open(older.runId), (error: unknown) => error instanceof RunStateError && error.code === "ERR_LOCKED");
      await claim?.finish();
      await drain();
    });

    it("claim: two workers claiming at once never get the same run", async () => {
      const entries = [await queued(), await queued(), await queued()];
      const claims = (await Promise.all([first, second, first, second, first, second].map((each) => each.queue.claim(accepts)))).filter(
        (claim) => claim !== undefined,
      );
      const ids = claims.map((claim) => claim.entry.runId).sort();
      assert.deepEqual(ids, entries.map((entry) => entry.runId).sort(), "each run claimed exactly once");
      for (const claim of claims) await claim.finish();
      assert.deepEqual(await first.queue.list(), []);
    });

    it("claim: a run the worker does not accept, or one already held, is left queued", async () => {
      const entry = await queued();
      assert.equal(await first.queue.claim(() => false), undefined);
      const held = await first.store.open(entry.runId);
      assert.equal(await second.queue.claim(accepts), undefined, "a held run is not claimed");
      await held.close();
      assert.deepEqual(
        (await first.queue.list()).map((each) => each.runId),
        [entry.runId],
      );
      await drain();
    });

    it("finish: the entry is gone, the hold released", async () => {
      const entry = await queued();
      const claim = await first.queue.claim(accepts);
      await claim?.journal.append(2, terminalEntry("completed"));
      await claim?.finish();
      assert.equal(await second.queue.get(entry.runId), undefined);
      assert.equal(await second.queue.claim(accepts), undefined);
      await (await second.store.open(entry.runId)).close();
    });

    it("handBack: the run stays queued and another worker claims it", async () => {
      const entry = await queued();
      const claim = await first.queue.claim(accepts);
      await claim?.handBack();
      const again = await second.queue.claim(accepts);
      assert.equal(again?.entry.runId, entry.runId);
      await again?.finish();
    });

    it("a worker that dies holding a run (its journal released without settling) leaves it to a claim within the takeover time", async () => {
      const entry = await queued();
      const claim = await first.queue.claim(accepts);
      await claim?.journal.close();
      // Claimed again by the backend's bound: a claim that is still waiting for it then comes too late.
      const until = performance.now() + harness.takeoverMs + TAKEOVER_SLACK_MS;
      let again = await second.queue.claim(accepts);
      while (again === undefined && performance.now() < until) again = await second.queue.claim(accepts);
      const late = performance.now() - until;
      assert.equal(again?.entry.runId, entry.runId, `taken over within ${harness.takeoverMs} ms (+${TAKEOVER_SLACK_MS} ms)`);
      assert.ok(late <= 0, `taken over ${Math.round(late)} ms past the backend's bound of ${harness.takeoverMs} ms (+${TAKEOVER_SLACK_MS} ms)`);
      await again?.finish();
    });

    it("park: the run is not claimed until unpark queues it again; unpark of a run not parked is ERR_NOT_FOUND", async () => {
      const entry = await queued();
      await assert.rejects(first.queue.unpark(entry.runId), (error: unknown) => error instanceof RunStateError && error.code === "ERR_NOT_FOUND");
      await (await first.queue.claim(accepts))?.park();
      assert.equal((await second.queue.get(entry.runId))?.state, "parked");
      assert.equal(await second.queue.claim(accepts), undefined);
      await second.queue.unpark(entry.runId);
      const again = await first.queue.claim(accepts);
      assert.equal(again?.entry.runId, entry.runId);
      await again?.finish();
    });

    it("withdraw: removes a queued run and the follow-ups behind it; ERR_LOCKED while a worker drives it; ERR_NOT_FOUND when not queued", async () => {
      const entry = await queued();
      const claim = await first.queue.claim(accepts);
      await assert.rejects(second.queue.withdraw(entry.runId), (error: unknown) => error instanceof RunStateError && error.code === "ERR_LOCKED");
      await second.queue.enqueue({ ...entry, followUp: "withdrawn with it" });
      await claim?.handBack();
      await second.queue.withdraw(entry.runId);
      assert.equal(await first.queue.get(entry.runId), undefined);
      await first.queue.enqueue(entry);
      await (await second.queue.claim(accepts))?.finish();
      assert.equal(await first.queue.get(entry.runId), undefined, "no follow-up was left behind to be queued");
      await assert.rejects(second.queue.withdraw(entry.runId), (error: unknown) => error instanceof RunStateError && error.code === "ERR_NOT_FOUND");
    });

    it("a follow-up to a run the queue has waits behind it; finish queues it after the run's last record; interrupt aborts the claim's signal", async () => {
      const entry = await queued();
      const claim = await first.queue.claim(accepts);
      assert.equal(claim?.interrupted.aborted, false);
      const followUp = (text: string, at: number): QueuedRun => ({ ...entry, queued: new Date(at).toISOString(), followUp: text });
      await second.queue.enqueue(followUp("first", Date.now()));
      await second.queue.enqueue(followUp("second", Date.now() + 1), { interrupt: true });
      const behind = async () => (await second.queue.behind(entry.runId)).map((waiting) => [waiting.entry.followUp, waiting.interrupts]);
      assert.deepEqual(
        await behind(),
        [
          ["first", false],
          ["second", true],
        ],
        "both wait behind the run, in the order submitted, the second to interrupt it",
      );
      await assert.rejects(
        second.queue.enqueue(entry),
        (error: unknown) => error instanceof RunStateError && error.code === "ERR_EXISTS",
        "a run without a follow-up is still refused",
      );
      await waitUntil(() => claim?.interrupted.aborted === true, "the claim to hear of the interrupt");
      await claim?.journal.append(2, terminalEntry("suspended"));
      await claim?.finish();
      const next = await first.queue.claim(accepts);
      assert.deepEqual([next?.entry.runId, next?.entry.followUp, next?.entry.afterSeq, next?.entry.state], [entry.runId, "first", 2, "queued"]);
      assert.deepEqual(await behind(), [["second", true]], "the first is the entry now, no longer behind");
      await waitUntil(() => next?.interrupted.aborted === true, "the interrupting follow-up behind it to interrupt it too");
      await next?.finish();
      const last = await second.queue.claim(accepts);
      assert.deepEqual([last?.entry.followUp, last?.entry.afterSeq], ["second", 2]);
      await last?.finish();
      assert.deepEqual(await first.queue.list(), []);
      assert.deepEqual(await behind(), []);
    });

    it("a request to suspend waits behind a driven run and interrupts its claim; as the entry it carries no follow-up, and what waits behind it follows", async () => {
      const entry = await queued();
      const claim = await first.queue.claim(accepts);
      const at = (offset: number) => new Date(Date.now() + offset).toISOString();
      await second.queue.enqueue({ ...entry, queued: at(0), suspend: true }, { interrupt: true });
      await second.queue.enqueue({ ...entry, queued: at(1), followUp: "after the suspend" });
      assert.deepEqual(
        (await second.queue.behind(entry.runId)).map((waiting) => [waiting.entry.suspend === true, waiting.entry.followUp, waiting.interrupts]),
        [
          [true, undefined, true],
          [false, "after the suspend", false],
        ],
      );
      await waitUntil(() => claim?.interrupted.aborted === true, "the claim to hear of the request to suspend");
      await claim?.journal.append(2, terminalEntry("suspended"));
      await claim?.finish();
      const request = await first.queue.claim(accepts);
      assert.deepEqual([request?.entry.suspend, request?.entry.followUp, request?.entry.afterSeq], [true, undefined, 2]);
      await request?.finish();
      const next = await second.queue.claim(accepts);
      assert.deepEqual([next?.entry.suspend, next?.entry.followUp], [undefined, "after the suspend"]);
      await next?.finish();
      assert.deepEqual(await first.queue.list(), []);
    });

    it("withdraw and finish leave every other queued run to be claimed", async () => {
      const [before, withdrawn, finished, later] = [await queued(), await queued(), await queued(), await queued()];
      await first.queue.withdraw((withdrawn as QueuedRun).runId);
      const claims = [];
      for (let claim = await second.queue.claim((entry) => entry.runId === finished?.runId); claim !== undefined; claim = undefined) claims.push(claim);
      await claims[0]?.finish();
      // A run passed over a moment ago (not accepted) may be offered again only after a short delay.
      const rest = [];
      for (const until = Date.now() + 5000; rest.length < 2 && Date.now() < until; ) {
        const claim = await first.queue.claim(accepts);
        if (claim !== undefined) rest.push(claim);
      }
      assert.deepEqual(rest.map((claim) => claim.entry.runId).sort(), [before?.runId, later?.runId].sort());
      for (const claim of rest) await claim.finish();
    });

    it("watch: a waiter wakes once another queue queues a run, and a run's follower once a record is journaled and once it parks, long before the timeout", async () => {
      // A watch left open by a failed assertion is closed with its queue.
      const waiter = first.queue.watch();
      const before = new Set((await first.queue.list()).map((each) => each.runId));
      const woken = wokenUntil(waiter, async () => (await first.queue.list()).some((each) => !before.has(each.runId)));
      const { runId } = await queued(second.queue);
      assert.ok(await woken, `the waiter was woken by the enqueue, not by its ${WATCH_TIMEOUT_MS} ms timeout`);
      waiter.close();
      const follower = first.queue.watch(runId);
      const claim = await second.queue.claim(accepts);
      assert.equal(claim?.entry.runId, runId);
      const journaled = wokenUntil(follower, async () => (await first.store.summarize(runId)).lastSeq === 2);
      await claim?.journal.append(2, terminalEntry("suspended"));
      assert.ok(await journaled, `the follower was woken by the record, not by its ${WATCH_TIMEOUT_MS} ms timeout`);
      const parked = wokenUntil(follower, async () => (await first.queue.get(runId))?.state === "parked");
      await claim?.park();
      assert.ok(await parked, `the follower was woken by the park, not by its ${WATCH_TIMEOUT_MS} ms timeout`);
      follower.close();
      await drain();
    });

    quarantineCases({
      queues: () => [first.queue, second.queue],
      queued: () => queued(),
      freshId: () => `q${process.pid}x${++made}`,
      plant: (at, bad) => harness.plant(first, at, bad),
    });

    it("an id that is not a run id is ERR_INVALID_ID", async () => {
      await assert.rejects(first.queue.get("../x"), (error: unknown) => error instanceof RunStateError && error.code === "ERR_INVALID_ID");
    });
  });
}
