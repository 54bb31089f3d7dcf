// covers: src/agent/tree-tally.ts, src/runstate/records/records.ts
// process: shared
// A parent's max_tokens bounds its whole tree (docs/sub-agents.md), through the real CLI
// against the strict Anthropic fake: the children's tokens count against the lead's budget,
// so a tree whose children together pass it stops as a session over its budget does (exit 4,
// `budget`), also when the process was SIGKILLed and the lead resumed: what the children
// spent before the kill is read back from their journals.
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import type { JournalRecord } from "../src/index.js";
import { PROTOCOLS } from "../src/journal.js";
import { startCli } from "./helpers/cli-harness.js";
import { journalRecords } from "./helpers/journal-file.js";
import { CALL_TOKENS, CHILDREN, LEAD, NOTES, PROMPTS, requestKey, startTree, type Tree } from "./helpers/sub-agent-tree.js";
import { commandsInProcess } from "./helpers/in-process-cli.js";
import { eventually } from "./helpers/eventually.js";

/** The file's first call spawned, the later ones in this process (test/helpers/in-process-cli.ts). */
const cli = commandsInProcess(["session", "run"]);

let tree: Tree | undefined;
afterEach(async () => {
  await tree?.close();
  tree = undefined;
});

// The lead's call and alpha's four fit (550 tokens); beta's first passes 600.
const LEAD_MAX = 600;
const [ALPHA, BETA] = CHILDREN as [string, string];
const START = ["run", "--config", "lead.yaml", "--checkpoint", "--name", LEAD, PROMPTS.research];
const RESUME = ["run", "--config", "lead.yaml", "--resume", LEAD];

function terminals(records: readonly JournalRecord[]): { reason: string; message?: string }[] {
  return records.flatMap((record) => (record.protocol === PROTOCOLS.terminal ? [record.terminal] : []));
}

function acceptedKeys(t: Tree): string[] {
  return t.server.requests.filter((request) => request.accepted).map(requestKey);
}

/** The tree stopped by the lead's budget: alpha completed inside it, beta stopped after its first call, the lead before its second. */
function assertStoppedByLeadBudget(t: Tree, result: { code: number | null; stderr: string }): void {
  assert.equal(result.code, 4, result.stderr);
  const spent = CALL_TOKENS * (1 + (NOTES + 1) + 1);
  assert.match(
    result.stderr,
    new RegExp(`token budget reached: ${spent} of ${LEAD_MAX} tokens used \\(${spent - CALL_TOKENS} of them by its child sessions\\)`),
  );
  assert.deepEqual(
    terminals(journalRecords(t.journal(LEAD))).map((terminal) => terminal.reason),
    ["budget"],
  );
  assert.deepEqual(
    terminals(journalRecords(t.journal(ALPHA))).map((terminal) => terminal.reason),
    ["completed"],
  );
  assert.deepEqual(terminals(journalRecords(t.journal(BETA))), [
    { reason: "budget", message: `token budget of session ${LEAD} reached: ${spent} of ${LEAD_MAX} tokens used by it and the sessions below it` },
  ]);
  assert.deepEqual(
    t.server.requests.filter((request) => !request.accepted).map((request) => request.rejection),
    [],
    "every request was one the API accepts",
  );
  assert.deepEqual(
    t.effects().filter((line) => line.startsWith("beta-")),
    [],
    "beta stopped before running its tool",
  );
}

describe("a parent's max_tokens bounds its tree", () => {
  it("stops the tree once the children together pass the lead's budget: the child in flight and the lead end `budget`", async () => {
    tree = await startTree({ parallel: false, leadMaxTokens: LEAD_MAX });
    const result = await cli(START, { cwd: tree.dir, env: tree.env });
    assertStoppedByLeadBudget(tree, result);
    assert.deepEqual(acceptedKeys(tree), [`${LEAD}:0`, "alpha:0", "alpha:1", "alpha:2", "alpha:3", "beta:0"]);
  });

  // Killed where alpha's spending is still to come, and where it is all in its journal: the resume counts it from there.
  for (const point of [
    { name: "mid-tool in the first child", hold: (t: Tree) => t.holdTool("alpha-1"), reached: (t: Tree) => t.effects().includes("alpha-1"), again: [] },
    { name: "in the second child's first model call", hold: (t: Tree) => t.holdCall("beta:0"), reached: (t: Tree) => t.called("beta:0"), again: ["beta:0"] },
  ]) {
    it(`stops the same way after a SIGKILL ${point.name} and a resume of the lead`, async () => {
      tree = await startTree({ parallel: false, leadMaxTokens: LEAD_MAX });
      const t = tree;
      point.hold(t);
      const run = startCli(START, { cwd: t.dir, env: t.env });
      await eventually(() => point.reached(t), point.name);
      run.child.kill("SIGKILL");
      assert.equal((await run.done).signal, "SIGKILL");
      t.releaseAll();
      const resumed = await cli(RESUME, { cwd: t.dir, env: t.env });
      assertStoppedByLeadBudget(t, resumed);
      const keys = acceptedKeys(t);
      const repeated = keys.filter((key, index) => keys.indexOf(key) !== index);
      assert.deepEqual(repeated, point.again, "only the model call in flight at the kill was made again");
      assert.deepEqual([...new Set(keys)].sort(), [`${LEAD}:0`, "alpha:0", "alpha:1", "alpha:2", "alpha:3", "beta:0"].sort());
    });
  }

  it("stops children running side by side once their tokens together pass the lead's budget", async () => {
    tree = await startTree({ parallel: true, leadMaxTokens: LEAD_MAX });
    const result = await cli(START, { cwd: tree.dir, env: tree.env });
    assert.equal(result.code, 4, result.stderr);
    assert.deepEqual(
      terminals(journalRecords(tree.journal(LEAD))).map((terminal) => terminal.reason),
      ["budget"],
    );
    const childCalls = acceptedKeys(tree).filter((key) => !key.startsWith(`${LEAD}:`)).length;
    // Each child checks the tree before each call: past 550 tokens none starts, and at most both were in flight at once.
    assert.ok(childCalls >= 5 && childCalls <= 6, `${childCalls} model calls by the children`);
    const reasons = CHILDREN.map((id) => terminals(journalRecords(tree?.journal(id) ?? "")).at(-1)?.reason);
    assert.ok(reasons.includes("budget"), `the children ended ${reasons.join(", ")}`);
  });
});
