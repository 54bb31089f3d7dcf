// Run as a child process: a file queue with a worker's watch and a run's watch open, both
// woken by an enqueue (so their watchers are live), then let go of as `how` says ("queue":
// the queue closed with its watches open; "watches": each watch closed, the queue never).
// Nothing else is pending then: the process exits by itself only if no watcher is left.
import { FileStore } from "../../src/backends/file/file-store.js";
import { FileQueue, fileQueueDir } from "../../src/backends/file/file-queue.js";
import { metaPayload } from "../../src/conformance/index.js";

const [dir, how] = process.argv.slice(2) as [string, "queue" | "watches"];
const store = new FileStore({ dir });
const queue = new FileQueue({ dir: fileQueueDir(dir), store });
const meta = metaPayload("watched");
await (await store.create("watched", meta)).close();
const watches = [queue.watch(), queue.watch("watched")];
// A wait long past the parent's patience: one not woken by the enqueue fails the test too.
const woken = watches.map((watch) => watch.next(600_000));
await queue.enqueue({ runId: "watched", queued: new Date().toISOString(), fingerprint: meta.fingerprint, version: meta.version, afterSeq: 1, state: "queued" });
await Promise.all(woken);
if (how === "queue") await queue.close();
else for (const watch of watches) watch.close();
await store.close();
process.stdout.write("let go\n");
