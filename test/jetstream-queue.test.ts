// The JetStream queue passes the queue conformance suite on a real nats-server: each
// case's two queues are two connections, as two worker processes would have. And a
// finish a crash cut short leaves no follow-up stranded.
import assert from "node:assert/strict";
import { performance } from "node:perf_hooks";
import { after, describe, it } from "node:test";
import { jetstream } from "@nats-io/jetstream";
import { metaPayload, runQueueConformance, terminalEntry } from "../src/conformance/index.js";
import { queueSession } from "../src/pool/submit-run.js";
import { JetStreamQueue } from "../src/backends/jetstream/jetstream-queue.js";
import { encodeEntry, type QueuedRun } from "../src/queue/run-queue.js";
import { createStore } from "../src/backends/open-backend.js";
import type { JetStreamStore } from "../src/backends/jetstream/jetstream-store.js";
import { initRunStream } from "../src/backends/jetstream/run-stream.js";
import { startNatsServer, type NatsServer } from "./helpers/nats-server.js";
import { skipWithout } from "./helpers/programs.js";

const LEASE_TTL_MS = 1500;
let server: NatsServer | undefined;
after(() => server?.stop());

async function over(url: string, stream = "QUEUED"): Promise<{ store: JetStreamStore; queue: JetStreamQueue }> {
  const store = (await createStore({ backend: "jetstream", servers: url, stream, leaseTtlMs: LEASE_TTL_MS })) as JetStreamStore;
  return { store, queue: new JetStreamQueue(store) };
}

/** Runs `body` with a store and its queue on a nats-server of its own, whose `stream` this makes; all closed after. */
async function onOwnServer(stream: string, body: (own: { server: NatsServer; store: JetStreamStore; queue: JetStreamQueue }) => Promise<void>): Promise<void> {
  const server = await startNatsServer();
  try {
    await initRunStream({ backend: "jetstream", servers: server.url, stream, leaseTtlMs: LEASE_TTL_MS });
    const { store, queue } = await over(server.url, stream);
    try {
      await body({ server, store, queue });
    } finally {
      // A body that failed while it had the server paused (SIGSTOP) leaves it to be woken here.
      server.resume();
      await queue.close();
      await store.close();
    }
  } finally {
    await server.stop();
  }
}

/** The first run `queue` hands out within AckWait (the lease) and a second more, or undefined. */
async function claimWithinAckWait(queue: JetStreamQueue) {
  let claim = await queue.claim(() => true);
  for (const until = performance.now() + LEASE_TTL_MS + 1000; claim === undefined && performance.now() < until; ) claim = await queue.claim(() => true);
  return claim;
}

const skip = skipWithout("nats-server");

// The suite as a group of its own, so a machine without nats-server skips it in one line.
describe("jetstream queue conformance", { skip }, () => {
  runQueueConformance("jetstream", {
    setup: async () => {
      server = await startNatsServer();
      await initRunStream({ backend: "jetstream", servers: server.url, stream: "QUEUED", leaseTtlMs: LEASE_TTL_MS });
    },
    makeQueue: async () => over((server as NatsServer).url),
    again: async () => over((server as NatsServer).url),
    takeoverMs: LEASE_TTL_MS,
  });
});

// What only a crash leaves: a finish that acked its run's entry and died before it queued
// the follow-up waiting behind (the entry and the waiting message cannot change at once).
describe("JetStream queue after a finish cut short", { skip }, () => {
  it("the next idle claim queues the follow-up left waiting behind a run with no entry, after the run's last record, and a later claim takes it; a waiting message that is no entry holds up no other run", async () => {
    await onOwnServer("STRANDED", async ({ store, queue }) => {
      const meta = metaPayload("stranded");
      const journal = await store.create("stranded", meta);
      await journal.append(2, terminalEntry("completed"));
      await journal.close();
      const waiting: QueuedRun = {
        runId: "stranded",
        queued: new Date().toISOString(),
        fingerprint: meta.fingerprint,
        version: meta.version,
        followUp: "go on",
        afterSeq: 1,
        state: "queued",
      };
      assert.deepEqual(await queue.list(), [], "the queue stream is made, and empty");
      await (await store.create("garbled", metaPayload("garbled"))).close();
      await jetstream(store.connection).publish(`$FISK_QUEUE.STRANDED.behind.garbled.waits.bad`, "not an entry");
      await jetstream(store.connection).publish(`$FISK_QUEUE.STRANDED.behind.stranded.waits.cut`, encodeEntry(waiting));
      assert.deepEqual(await queue.list(), [], "a follow-up waiting behind is no entry of its own");

      let claim = await queue.claim(() => true);
      for (const until = Date.now() + 10_000; claim === undefined && Date.now() < until; ) claim = await queue.claim(() => true);
      assert.deepEqual([claim?.entry.runId, claim?.entry.followUp, claim?.entry.afterSeq, claim?.entry.state], ["stranded", "go on", 2, "queued"]);
      await claim?.finish();
      assert.deepEqual(await queue.list(), []);
      assert.equal(await queue.claim(() => true), undefined, "queued once, not again");

      // Stranded again just after a sweep: the next sweep, within AckWait (the lease), queues it.
      const again = { ...waiting, queued: new Date().toISOString(), followUp: "and on" };
      await jetstream(store.connection).publish(`$FISK_QUEUE.STRANDED.behind.stranded.waits.cut2`, encodeEntry(again));
      claim = await claimWithinAckWait(queue);
      assert.deepEqual([claim?.entry.followUp, claim?.entry.afterSeq], ["and on", 2], "queued by a sweep within AckWait and one claim");
      await claim?.finish();
    });
  });
});

// A loaded machine can stall the server (or the worker) past two of a pull's heartbeats, and
// the client then stops the pull: a stall takes nothing, so the claim comes back empty, and
// the next one pulls again, instead of failing a worker's claim with ERR_IO.
describe("JetStream queue on a server that stalls", { skip }, () => {
  it("a claim whose pull hears no heartbeat for two intervals comes back empty, and a later claim within AckWait takes the run queued", async () => {
    await onOwnServer("STALLED", async ({ server, store, queue }) => {
      assert.equal(await queue.claim(() => true), undefined, "the queue is made, and empty");
      const stalled = queue.claim(() => true);
      server.pause();
      // The pull's heartbeat is half its 1 s expiry; the client gives up after two missed.
      await new Promise((resolve) => setTimeout(resolve, 1800));
      server.resume();
      assert.equal(await stalled, undefined);

      await (await store.create("after-stall", metaPayload("after-stall"))).close();
      await queueSession({ store, queue }, "after-stall");
      // The stalled pull may still be the server's for a moment, and what it sent there comes back after AckWait.
      const claim = await claimWithinAckWait(queue);
      assert.equal(claim?.entry.runId, "after-stall");
      await claim?.finish();
    });
  });
});
