// A file store and a JetStream store (on a nats-server of their own, on loopback) in one
// scratch directory, for the benches that measure the two side by side.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createStore } from "../src/backends/open-backend.js";
import { initRunStream } from "../src/backends/jetstream/run-stream.js";
import type { Store } from "../src/runstate/store/store.js";
import { startNatsServer } from "../test/helpers/nats-server.js";

export interface SideBySideStores {
  /** The scratch directory: the file store's runs are under it, and the bench may keep its own files there. */
  scratch: string;
  stores: Record<"file" | "jetstream", Store>;
  /** Closes both stores, stops the server and removes the scratch directory. */
  close(): Promise<void>;
}

/** `name` names the scratch directory; `stream` the JetStream stream, made here. */
export async function sideBySideStores(name: string, stream: string): Promise<SideBySideStores> {
  const scratch = mkdtempSync(join(tmpdir(), `fisk-ai-bench-${name}-`));
  const server = await startNatsServer();
  const jetstream = { backend: "jetstream" as const, servers: server.url, stream };
  await initRunStream(jetstream);
  const stores = { file: await createStore({ backend: "file", dir: join(scratch, "runs") }), jetstream: await createStore(jetstream) };
  return {
    scratch,
    stores,
    close: async () => {
      for (const store of Object.values(stores)) await store.close();
      await server.stop();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}
