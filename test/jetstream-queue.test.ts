// The JetStream queue passes the queue conformance suite on a real nats-server: each
// case's two queues are two connections, as two worker processes would have.
import { after } from "node:test";
import { runQueueConformance } from "../src/conformance/index.js";
import { JetStreamQueue } from "../src/queue/jetstream-queue.js";
import { createStore } from "../src/runstate/backends/create-store.js";
import type { JetStreamStore } from "../src/runstate/backends/jetstream/jetstream-store.js";
import { initRunStream } from "../src/runstate/backends/jetstream/run-stream.js";
import { startNatsServer, type NatsServer } from "./helpers/nats-server.js";

const LEASE_TTL_MS = 1500;
let server: NatsServer | undefined;
after(() => server?.stop());

async function over(url: string): Promise<{ store: JetStreamStore; queue: JetStreamQueue }> {
  const store = (await createStore({ backend: "jetstream", servers: url, stream: "QUEUED", leaseTtlMs: LEASE_TTL_MS })) as JetStreamStore;
  return { store, queue: new JetStreamQueue(store) };
}

runQueueConformance("jetstream", {
  setup: async () => {
    server = await startNatsServer();
    await initRunStream({ backend: "jetstream", servers: server.url, stream: "QUEUED", leaseTtlMs: LEASE_TTL_MS });
  },
  makeQueue: async () => over((server as NatsServer).url),
  again: async () => over((server as NatsServer).url),
  takeoverMs: LEASE_TTL_MS,
});
