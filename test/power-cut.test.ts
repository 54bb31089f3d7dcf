// covers: src/backends/file/file-journal.ts, src/backends/file/file-store.ts
// covers: src/backends/file/file-system.ts
// start: first
// The power-cut test (docs/durability.md, Power cuts): each scenario runs once on a file
// system that records every write, sync and name it makes; then every disk state a power
// cut after any of those ops can leave is put on disk, and verify, ls and a resume run on
// it. No acknowledged record may be lost, no journal may be corrupt beyond a torn tail, at
// most one tool call may repeat, and no tool may start before its call's turn was durable.
//
// Sampling, deterministic and seeded: every crash point (after each op) is visited; at a
// crash point whose choices (see power-cut-states.ts: which unsynced writes survive, where
// the first lost one tears, which unsynced names happened) combine to more than CAP states,
// the one where nothing unsynced survived, the one where everything did, and CAP - 2 drawn
// from a PRNG seeded by the crash point are taken; identical states are checked once; past
// MAX_STATES distinct states a scenario checks MAX_STATES drawn with SEED.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import type { FsOp } from "./helpers/power-cut-recorder.js";
import { explorePowerCuts, removePowerCutBase, type Scenario } from "./helpers/power-cut-explorer.js";
import { crashStates, type Snapshot } from "./helpers/power-cut-states.js";
import { chat, compaction, fork, imported, move, oneShot, park, pooled, pruned, subAgent } from "./helpers/power-cut-scenarios.js";

const CAP = 60;
const MAX_STATES = 400;
const SEED = 38;

after(removePowerCutBase);

const SCENARIOS: Scenario[] = [oneShot, chat, compaction, park, fork, imported, move, pruned, pooled, subAgent];

describe("the states a power cut leaves", () => {
  const root = "/r";
  const empty: Snapshot = { tree: new Map([["d", null]]), inodes: new Map() };
  const write = (position: number, text: string): FsOp => ({ kind: "write", dir: "/r/d", path: "/r/d/f", ino: 7, position, bytes: Buffer.from(text) });
  const shown = (ops: FsOp[], at: number) =>
    [...crashStates(root, empty, ops, 100)]
      .filter((state) => state.crashPoint === at)
      .map((state) => (state.tree.get("d/f") as Buffer | undefined)?.toString() ?? "-");

  it("loses a new name until its directory is synced, and unsynced bytes whole, torn at the first, middle or last byte, or kept", () => {
    const created: FsOp[] = [{ kind: "create", dir: "/r/d", name: "f", ino: 7 }, write(0, "abcd")];
    assert.deepEqual(shown(created, 2), ["-", "", "-", "a", "-", "ab", "-", "abc", "-", "abcd"]);
    const synced: FsOp[] = [...created, { kind: "fsync", dir: "/r/d", path: "/r/d/f", ino: 7 }, { kind: "dirsync", dir: "/r/d" }, write(4, "ef")];
    assert.deepEqual(shown(synced, 5), ["abcd", "abcde", "abcdef"]);
  });

  it("takes a file's unsynced writes in order: a later one is kept only with every one before it", () => {
    const ops: FsOp[] = [{ kind: "create", dir: "/r/d", name: "f", ino: 7 }, { kind: "dirsync", dir: "/r/d" }, write(0, "ab"), write(2, "cd")];
    assert.deepEqual(shown(ops, 4), ["", "a", "ab", "abc", "abcd"]);
  });
});

describe("power cuts at the file-system seam", () => {
  for (const scenario of SCENARIOS) {
    it(`${scenario.name}: every state a power cut leaves reads, lists and resumes with nothing acknowledged lost`, async (t) => {
      const report = await explorePowerCuts(scenario, { cap: CAP, maxStates: MAX_STATES, seed: SEED });
      t.diagnostic(
        `${scenario.name}: ${report.ops} ops, ${report.crashPoints} crash points (${report.sampledPoints} sampled), ${report.states} distinct states, ${report.checked} checked, ${report.violations.length} violations`,
      );
      assert.deepEqual(report.violations, []);
      assert.ok(report.checked > 0);
    });
  }
});
