// The JetStream backend against a real nats-server: the conformance suite, then what
// only this backend has (its stream checks, lease and lost acks).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { runStoreConformance } from "../src/conformance/index.js";
import { assistantEntry, metaPayload, terminalEntry } from "../src/conformance/record-builders.js";
import { createStore, isRunStateError, type JournalRecord, type RunStateErrorCode } from "../src/index.js";
import { encodeRecord } from "../src/journal.js";
import { connectJetStreamStore, type JetStreamStore } from "../src/backends/jetstream/jetstream-store.js";
import { leaseBucket } from "../src/backends/jetstream/leases.js";
import { initRunStream, runStreamConfig } from "../src/backends/jetstream/run-stream.js";
import { waitFor } from "./helpers/cli-harness.js";
import { startNatsServer, type NatsServer } from "./helpers/nats-server.js";
import { skipWithout } from "./helpers/programs.js";

const skip = skipWithout("nats-server");

let server: NatsServer;
let streams = 0;

/** A fresh stream, made as `session init-stream` makes one. */
async function freshStream(config: Record<string, unknown> = {}): Promise<{ stream: string; prefix: string }> {
  const n = ++streams;
  const stream = `RUNS_${n}`;
  const prefix = `fisk.t${n}`;
  const nc = await connect({ servers: server.url });
  try {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ ...runStreamConfig(stream, prefix), ...config });
  } finally {
    await nc.close();
  }
  return { stream, prefix };
}

async function storeOn(stream: string): Promise<JetStreamStore> {
  return (await createStore({ backend: "jetstream", servers: server.url, stream, leaseTtlMs: 2000 })) as JetStreamStore;
}

// The suite as a group of its own, so a machine without nats-server skips it in one line.
describe("jetstream store conformance", { skip }, () => {
  runStoreConformance("jetstream", {
    capabilities: { exclusiveOpen: true },
    setup: async () => {
      server = await startNatsServer();
    },
    makeStore: async () => storeOn((await freshStream()).stream),
    sameStorage: async (store) => storeOn((store as JetStreamStore).stream),
    plantRaw: async (store, runId, lines) => {
      const js = store as JetStreamStore;
      const nc = await connect({ servers: server.url });
      try {
        const client = jetstream(nc);
        // The meta last, as an import writes it: nothing sees the run before it is whole.
        const numbered = lines.map((line, index) => ({ seq: index + 1, line }));
        for (const { seq, line } of [...numbered.slice(1), ...numbered.slice(0, 1)]) await client.publish(js.subject(runId, seq), line.replace(/\n$/, ""));
      } finally {
        await nc.close();
      }
    },
    failingWrites: async (failing) => {
      const store = await storeOn((await freshStream()).stream);
      const publish = store.publishRecord.bind(store);
      // A server that does not take a record, as one gone away or too slow to answer does not.
      store.publishRecord = async (...args) => {
        if (failing()) throw new Error("TIMEOUT");
        await publish(...args);
      };
      return store;
    },
    takeOver: async (store, runId, seq, line) => {
      // A message id of its own: the stream drops a second message with one it has seen.
      await (store as JetStreamStore).publishRecord(runId, seq, line, `another-writer-${runId}-${seq}`);
    },
    teardown: async () => {
      await server.stop();
    },
  });
});

async function rejectsWith(promise: Promise<unknown>, code: RunStateErrorCode, message?: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(isRunStateError(error, code), `expected ${code}, got ${String(error)}`);
    if (message !== undefined) assert.match(error.message, message);
    return true;
  });
}

describe("jetstream backend", { skip }, () => {
  let own: NatsServer;
  const stores: JetStreamStore[] = [];
  const open = async (stream: string) => {
    const store = (await createStore({ backend: "jetstream", servers: own.url, stream, leaseTtlMs: 1000 })) as JetStreamStore;
    stores.push(store);
    return store;
  };
  const addStream = async (config: Parameters<JetStreamManagerLike["add"]>[0]) => {
    const nc = await connect({ servers: own.url });
    try {
      await (await jetstreamManager(nc)).streams.add(config);
    } finally {
      await nc.close();
    }
  };
  before(async () => {
    own = await startNatsServer();
  });
  after(async () => {
    for (const store of stores) await store.close();
    await own.stop();
  });

  describe("binding the stream", () => {
    it("refuses a stream that does not exist, naming the command that makes it", async () => {
      await rejectsWith(open("NOPE"), "ERR_NO_STREAM", /^no JetStream stream NOPE: create it, for example with: nats stream add NOPE /);
    });

    it("refuses a stream with a max age, naming the fix", async () => {
      await addStream({ ...runStreamConfig("AGED", "aged"), max_age: 3600 * 1e9 });
      await rejectsWith(
        open("AGED"),
        "ERR_STORE_CONFIG",
        /stream AGED expires messages after 3600 s.*nats stream add AGED --subjects "aged\.>".*--discard-per-subject/,
      );
    });

    it("refuses a stream without discard-new-per-subject, naming the fix", async () => {
      await addStream({ ...runStreamConfig("OLD", "old"), discard_new_per_subject: false });
      await rejectsWith(open("OLD"), "ERR_STORE_CONFIG", /stream OLD does not discard new messages per subject.*--discard-per-subject/);
    });

    it("refuses a configured prefix that is not the one the stream binds", async () => {
      await addStream(runStreamConfig("PREFIXED", "mine"));
      await rejectsWith(
        createStore({ backend: "jetstream", servers: own.url, stream: "PREFIXED", prefix: "theirs" }),
        "ERR_STORE_CONFIG",
        /stream PREFIXED binds mine\.>, not the configured prefix theirs\.>/,
      );
    });

    it("refuses a stream that keeps more than one message per subject, or binds no single <prefix>.>", async () => {
      await addStream({ ...runStreamConfig("MANY", "many"), max_msgs_per_subject: 5, discard_new_per_subject: false });
      await rejectsWith(open("MANY"), "ERR_STORE_CONFIG", /keeps 5 messages per subject/);
      await addStream({ ...runStreamConfig("FLAT", "flat"), subjects: ["flat.one", "flat.two"] });
      await rejectsWith(open("FLAT"), "ERR_STORE_CONFIG", /exactly one subject of the form <prefix>\.>/);
    });
  });

  describe("writers", () => {
    it("keeps records at the Go implementation's subjects, each body a journal line", async () => {
      await addStream(runStreamConfig("LAYOUT", "layout.runs"));
      const store = await open("LAYOUT");
      const journal = await store.create("lay-1", metaPayload("lay-1"));
      await journal.append(2, terminalEntry("completed"));
      await journal.close();
      const nc = await connect({ servers: own.url });
      try {
        const jsm = await jetstreamManager(nc);
        const info = await jsm.streams.info("LAYOUT", { subjects_filter: ">" });
        assert.deepEqual(Object.keys(info.state.subjects ?? {}).sort(), ["layout.runs.lay-1.2", "layout.runs.lay-1._meta"]);
        const lines = Buffer.from(await store.readJournal("lay-1"))
          .toString("utf8")
          .split("\n");
        const meta = await jsm.streams.getMessage("LAYOUT", { last_by_subj: "layout.runs.lay-1._meta" });
        assert.equal(meta?.string(), lines[0]);
      } finally {
        await nc.close();
      }
    });

    it("fails a second open on another connection at once, naming the holder from the lease", async () => {
      await addStream(runStreamConfig("LEASE", "lease"));
      const first = await open("LEASE");
      const second = await open("LEASE");
      const journal = await first.create("held-1", metaPayload("held-1"));
      await rejectsWith(second.open("held-1"), "ERR_LOCKED", new RegExp(`session held-1 is in use by pid ${process.pid} on `));
      const listed = (await second.list()).find((summary) => summary.runId === "held-1");
      assert.deepEqual([listed?.status, listed?.holder?.pid], ["running", process.pid]);
      await journal.close();
      await (await second.open("held-1")).close();
    });

    it("lets go of its lease on close even while a renewal is in flight, so nobody waits for the lease to run out", async () => {
      await addStream(runStreamConfig("RELEASE", "release"));
      // Renewals every second, and the lease surely ours for three: the stall below loses nothing.
      const config = { backend: "jetstream", servers: own.url, stream: "RELEASE", leaseTtlMs: 3000 } as const;
      const store = (await createStore(config)) as JetStreamStore;
      stores.push(store);
      const journal = await store.create("released-1", metaPayload("released-1"));
      const nc = await connect({ servers: own.url });
      try {
        // Past the first renewal, so that nothing else of the store's is in flight below.
        const leases = await leaseBucket(nc, config);
        const revision = async () => (await leases.get("released-1"))?.revision ?? 0;
        const taken = await revision();
        while ((await revision()) === taken) await new Promise((resolve) => setTimeout(resolve, 50));
        // The server stalls until the next renewal is sent, which waits for its answer when the close comes.
        const sent = store.connection.stats().outMsgs;
        own.pause();
        await waitFor(() => store.connection.stats().outMsgs > sent, "a renewal of the lease to be sent");
        const closing = journal.close();
        own.resume();
        await closing;
      } finally {
        own.resume();
        await nc.close();
      }
      assert.equal((await store.summarize("released-1")).holder, undefined, "the lease is gone at once, not after its TTL");
    });

    it("lets a lease whose holder stopped beating expire by itself", async () => {
      await addStream(runStreamConfig("EXPIRE", "expire"));
      const dying = await open("EXPIRE");
      await (await dying.create("orphan-1", metaPayload("orphan-1"))).append(2, assistantEntry(0, "half"));
      // The connection goes as a killed process's would: no close, no release.
      await dying.close();
      const other = await open("EXPIRE");
      await rejectsWith(other.open("orphan-1"), "ERR_LOCKED");
      let reopened;
      for (let tries = 0; reopened === undefined && tries < 100; tries++) {
        reopened = await other.open("orphan-1").catch((error: unknown) => {
          if (!isRunStateError(error, "ERR_LOCKED")) throw error;
          return new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 100));
        });
      }
      assert.ok(reopened !== undefined, "the lease expired");
      assert.equal(reopened.lastSeq, 2);
      await reopened.close();
    });

    it("treats a retry whose ack was lost as written, and another writer's record in the slot as ERR_LOCKED", async () => {
      await addStream(runStreamConfig("ACK", "ack"));
      const store = await open("ACK");
      const journal = await store.create("ack-1", metaPayload("ack-1"));
      // Our own record already in the slot (the ack never came back): published with our id.
      const nonce = (await store.slotMessageId("ack-1", 1))?.replace(/-1$/, "");
      await store.publishRecord("ack-1", 2, encodeRecord({ seq: 2, ...assistantEntry(0, "landed") } as JournalRecord), `${nonce}-2`);
      await journal.append(2, assistantEntry(0, "landed"));
      assert.equal(journal.lastSeq, 2);
      // Another writer's record in the next slot.
      await store.publishRecord("ack-1", 3, encodeRecord({ seq: 3, ...terminalEntry("completed") } as JournalRecord), "someone-else-3");
      await rejectsWith(journal.append(3, terminalEntry("completed")), "ERR_LOCKED");
      await journal.close();
    });
  });
});

type JetStreamManagerLike = Awaited<ReturnType<typeof jetstreamManager>>["streams"];

describe("jetstream credentials come from the environment", { skip }, () => {
  it("uses NATS_USER and NATS_PASSWORD, and says so in one line when they are wrong or missing", async () => {
    const guarded = await startNatsServer(["--user", "fisk", "--pass", "s3cret"]);
    try {
      const config = { backend: "jetstream" as const, servers: guarded.url, stream: "AUTH" };
      await rejectsWith(initRunStream(config, {}), "ERR_IO", /^cannot reach the NATS server at nats:\/\/127\.0\.0\.1:\d+: .*(auth|Authorization)/i);
      await rejectsWith(initRunStream(config, { NATS_USER: "fisk", NATS_PASSWORD: "wrong" }), "ERR_IO", /(auth|Authorization)/i);
      assert.deepEqual(await initRunStream(config, { NATS_USER: "fisk", NATS_PASSWORD: "s3cret" }), { created: true, prefix: "fisk-ai.runs" });
      const store = await connectJetStreamStore(config, { NATS_USER: "fisk", NATS_PASSWORD: "s3cret" });
      await (await store.create("auth-1", metaPayload("auth-1"))).close();
      assert.deepEqual(
        (await store.list()).map((summary) => summary.runId),
        ["auth-1"],
      );
      await store.close();
    } finally {
      await guarded.stop();
    }
  });

  it("uses NATS_TOKEN", async () => {
    const guarded = await startNatsServer(["--auth", "t0ken"]);
    try {
      const config = { backend: "jetstream" as const, servers: guarded.url, stream: "TOKEN" };
      await rejectsWith(initRunStream(config, { NATS_TOKEN: "nope" }), "ERR_IO", /(auth|Authorization)/i);
      assert.equal((await initRunStream(config, { NATS_TOKEN: "t0ken" })).created, true);
    } finally {
      await guarded.stop();
    }
  });

  it("refuses a NATS_CREDS file it cannot read, naming it", async () => {
    await rejectsWith(
      initRunStream({ backend: "jetstream", servers: "nats://127.0.0.1:1", stream: "X" }, { NATS_CREDS: "/nonexistent/fisk.creds" }),
      "ERR_IO",
      /^cannot read the NATS credentials file \/nonexistent\/fisk\.creds named by NATS_CREDS: /,
    );
  });
});
