// covers: src/ledger/tree-budget.ts, src/backends/file/file-store.ts
// covers: src/backends/memory/memory-store.ts
// process: shared
// The tree's budget rule (docs/sub-agents.md): what a session's children spent, read from the
// store, counts against its max_tokens beside its own.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { FileStore, MemoryStore } from "../src/index.js";
import { childTokens } from "../src/ledger/tree-budget.js";
import { plantTree, surveyTree } from "./helpers/session-trees.js";

const ROOT = mkdtempSync(join(tmpdir(), "fisk-tree-budget-"));
after(() => rmSync(ROOT, { recursive: true, force: true }));

describe("the tree's token budget", () => {
  for (const [name, make] of [
    ["a file store (digests kept)", () => new FileStore({ dir: join(ROOT, "runs") })],
    ["a memory store", () => new MemoryStore()],
  ] as const) {
    it(`counts every session below a session, all tiers, from ${name}`, async () => {
      const store = make();
      await plantTree(store, surveyTree());
      // survey-r1 460 + 38, its summarizer 90 + 5, survey-r2 150 + 9.
      assert.equal(await childTokens(store, "survey"), 752);
      assert.equal(await childTokens(store, "survey-r1"), 95);
      assert.equal(await childTokens(store, "survey-r2"), 0);
      assert.equal(await childTokens(store, "no-such-session"), 0);
      await store.close();
    });
  }
});
