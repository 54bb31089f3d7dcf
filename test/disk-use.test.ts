// covers: src/session/disk-use.ts
// process: shared
// `diskUse` is the data `session du` prints: each session's bytes, largest first, and the total.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "node:test";
import { diskUse, FileStore } from "../src/index.js";
import { metaPayload, userEntry } from "./helpers/record-builders.js";

test("diskUse gives each session's bytes, largest first, and their total", async () => {
  const dir = mkdtempSync(join(tmpdir(), "fisk-disk-use-"));
  try {
    const store = new FileStore({ dir });
    await (await store.create("small", metaPayload("small"))).close();
    const big = await store.create("big", metaPayload("big"));
    await big.append(2, userEntry("a longer conversation than the other session's"));
    await big.close();
    const { sessions, totalBytes } = await diskUse(store);
    assert.deepEqual(
      sessions.map(({ summary }) => summary.runId),
      ["big", "small"],
    );
    for (const { summary, bytes } of sessions) assert.equal(bytes, statSync(join(dir, `${summary.runId}.json`)).size, summary.runId);
    assert.equal(
      totalBytes,
      sessions.reduce((sum, { bytes }) => sum + bytes, 0),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
