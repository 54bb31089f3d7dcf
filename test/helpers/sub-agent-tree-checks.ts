// What the sub-agent tests check of a research tree (sub-agent-tree.ts) once it answered:
// every request valid, no child started twice, each journal verified and completed, and no
// more repeated model calls and tool calls than kills landed.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import type { JournalRecord } from "../../src/index.js";
import { PROTOCOLS } from "../../src/journal.js";
import { verifyJournal } from "../../src/runstate/views/journal-verify.js";
import { journalRecords } from "./journal-file.js";
import { CHILDREN, LEAD, NOTES, requestKey, type Tree } from "./sub-agent-tree.js";

export function terminals(records: readonly JournalRecord[]): string[] {
  return records.flatMap((record) => (record.protocol === PROTOCOLS.terminal ? [record.terminal.reason] : []));
}

/** How often each model call (by requestKey) reached the fake. */
export function callCounts(t: Tree): Map<string, number> {
  const counts = new Map<string, number>();
  for (const request of t.server.requests.filter((candidate) => candidate.accepted))
    counts.set(requestKey(request), (counts.get(requestKey(request)) ?? 0) + 1);
  return counts;
}

/** The runs of the research tree, by the prefix of their request keys. */
export const RUNS = [LEAD, "alpha", "beta"] as const;

/** Checks every promise of a research tree that ran to its answer, after `kills` kills. */
export function assertResearchTreeHeld(t: Tree, kills: number): void {
  assert.deepEqual(
    t.server.requests.filter((request) => !request.accepted).map((request) => request.rejection),
    [],
    "every request the CLI sent was one the API accepts",
  );
  assert.deepEqual(t.sessions().sort(), [LEAD, ...CHILDREN].sort(), "one lead and two children: no child was started twice");
  for (const id of [LEAD, ...CHILDREN]) {
    assert.deepEqual(verifyJournal(readFileSync(t.journal(id)), id).problems, [], `${id}'s journal verifies`);
    assert.equal(terminals(journalRecords(t.journal(id))).at(-1), "completed", `${id} completed`);
  }
  const counts = callCounts(t);
  for (const run of RUNS) {
    const keys = [...counts].filter(([key]) => key.startsWith(`${run}:`));
    const repeated = keys.reduce((sum, [, count]) => sum + count - 1, 0);
    // A model call repeats only when a kill landed inside it: its turn never reached the journal.
    assert.ok(repeated <= kills, `${run}: ${repeated} model calls made again after ${kills} kills (${JSON.stringify(keys)})`);
  }
  const effects = t.effects();
  for (const topic of ["alpha", "beta"]) {
    const lines = effects.filter((line) => line.startsWith(`${topic}-`));
    for (let step = 0; step < NOTES; step++) assert.ok(lines.includes(`${topic}-${step}`), `${topic}-${step} was noted`);
    // Each run in flight repeats at most the one tool call a kill cut short.
    assert.ok(lines.length - NOTES <= kills, `${topic}: ${lines.length - NOTES} repeated notes after ${kills} kills: ${lines.join(", ")}`);
  }
}
