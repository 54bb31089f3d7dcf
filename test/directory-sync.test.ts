// The file store syncs every directory level it makes into its parent, so the first run on
// a machine survives a power cut: the state dir's parents as well as the state dir itself.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fileStoreWithSeams } from "../src/backends/file/file-store.js";
import { FileQueue, fileQueueDir } from "../src/backends/file/file-queue.js";
import { countingFileSystem } from "./helpers/counting-file-system.js";
import { metaPayload } from "./helpers/record-builders.js";

const ROOT = mkdtempSync(join(tmpdir(), "fisk-ai-dir-sync-"));
after(() => rmSync(ROOT, { recursive: true, force: true }));

describe("directories synced as made", () => {
  it("syncs each level the store creates into its parent, deepest first, then the state dir for the new journal", async () => {
    const fs = countingFileSystem();
    const dir = join(ROOT, "xdg", "fisk-ai", "runs");
    const store = fileStoreWithSeams({ dir, fileSystem: fs });
    const journal = await store.create("first", metaPayload("first"));
    await journal.close();
    assert.deepEqual(fs.syncedDirs, [join(ROOT, "xdg", "fisk-ai"), join(ROOT, "xdg"), ROOT, dir]);
  });

  it("syncs only the state dir when every level exists already", async () => {
    const fs = countingFileSystem();
    const store = fileStoreWithSeams({ dir: join(ROOT, "xdg", "fisk-ai", "runs"), fileSystem: fs });
    const journal = await store.create("second", metaPayload("second"));
    await journal.close();
    assert.deepEqual(fs.syncedDirs, [join(ROOT, "xdg", "fisk-ai", "runs")]);
  });

  it("syncs the queue's directory into the runs' directory when the first entry makes it, then the queue's for the entry", async () => {
    const fs = countingFileSystem();
    const dir = join(ROOT, "pool", "runs");
    const store = fileStoreWithSeams({ dir, fileSystem: fs });
    const meta = metaPayload("queued");
    await (await store.create("queued", meta)).close();
    fs.reset();
    const queue = new FileQueue({ dir: fileQueueDir(store.dir), store });
    await queue.enqueue({
      runId: "queued",
      queued: new Date().toISOString(),
      fingerprint: meta.fingerprint,
      version: meta.version,
      afterSeq: 1,
      state: "queued",
    });
    assert.deepEqual(fs.syncedDirs, [dir, join(dir, "queue")]);
  });
});
