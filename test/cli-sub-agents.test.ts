// covers: src/runstate/records/records.ts, src/runstate/records/run-id.ts
// process: shared
// Sub-agents as child sessions (docs/sub-agents.md), through the real CLI against the strict
// Anthropic fake: a tree completes; a SIGKILL anywhere in it resumes every run where its
// journal ends (no child restarts, at most one tool call repeats in each run in flight);
// Ctrl-C suspends every run of the tree once; an approval in a child parks the tree; the
// depth limit and a failing child are error results the parent's model sees.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, it } from "node:test";
import type { MetaRecord } from "../src/index.js";
import { childRunId, PROTOCOLS, type MetaPayload } from "../src/journal.js";
import { startCli } from "./helpers/cli-harness.js";

import { journalRecords } from "./helpers/journal-file.js";
import { CHILDREN, LEAD, LEAD_CALLS, NOTES, PROMPTS, RESEARCH_ANSWER, startTree, type Tree } from "./helpers/sub-agent-tree.js";
import { assertResearchTreeHeld, callCounts, terminals } from "./helpers/sub-agent-tree-checks.js";
import { commandsInProcess } from "./helpers/in-process-cli.js";
import { eventually } from "./helpers/eventually.js";

/** The file's first call spawned, the later ones in this process (test/helpers/in-process-cli.ts). */
const cli = commandsInProcess(["session", "run"]);

const REPO = new URL("../../", import.meta.url).pathname;
const EXAMPLE = join(REPO, "examples/sub-agents/agent.yaml");

/** The README's sub-agents commands, each as the arguments after `node dist/cli/main.js`. */
function readmeCommands(): string[][] {
  const readme = readFileSync(join(REPO, "README.md"), "utf8");
  const block = /\*\*Sub-agents\.\*\*[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
  return block
    .split("\n")
    .filter((line) => line.startsWith("node dist/cli/main.js "))
    .map((line) => (line.replace(/\s+#.*$/, "").match(/"[^"]*"|\S+/g) ?? []).slice(2).map((word) => word.replace(/^"|"$/g, "")));
}

let tree: Tree | undefined;
afterEach(async () => {
  await tree?.close();
  tree = undefined;
});

const START = (prompt: string) => ["run", "--config", "lead.yaml", "--checkpoint", "--name", LEAD, prompt];
const RESUME = ["run", "--config", "lead.yaml", "--resume", LEAD];

function metaOf(t: Tree, id: string): MetaPayload {
  const first = journalRecords(t.journal(id))[0];
  assert.equal(first?.protocol, PROTOCOLS.meta);
  return (first as MetaRecord).meta;
}

describe("sub-agents through the CLI", () => {
  it("runs the example of docs/sub-agents.md and the README: two researchers as child sessions, listed under the lead, offline and unpriced", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fisk-ai-sub-agents-example-"));
    try {
      const env = { PATH: process.env.PATH, HOME: dir, XDG_STATE_HOME: join(dir, "state"), NO_COLOR: "1" };
      const commands = readmeCommands();
      assert.deepEqual(
        commands.map((args) => args.slice(0, 2)),
        [
          ["run", "--config"],
          ["session", "ls"],
          ["session", "show"],
        ],
        "the README's commands",
      );
      const [run, ls, show] = commands.map((args) => args.map((word) => (word === "examples/sub-agents/agent.yaml" ? EXAMPLE : word))) as [
        string[],
        string[],
        string[],
      ];
      const result = await cli(run, { cwd: dir, env });
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, "Both researchers noted their findings in research.txt.\n");
      assert.equal(readFileSync(join(dir, "research.txt"), "utf8"), "a finding\na finding\n");
      const listed = (await cli(ls, { cwd: dir, env })).stdout.split("\n").slice(1, -1);
      assert.deepEqual(
        listed.map((line) => line.split(/ +/).slice(0, 3)),
        [
          ["research", "completed", "script-demo"],
          ["", "research-7a6873d731f9a2183f73e871", "completed"],
          ["", "research-a9323bb36573241a1d7899fa", "completed"],
        ],
        "the lead, its children indented under it",
      );
      const shown = (await cli(show, { cwd: dir, env })).stdout;
      assert.match(shown, /\nown cost +no price\n/);
      assert.equal(shown.split("\n").filter((line) => /^child +research-[0-9a-f]{24} \(completed\): no price for 2 calls/.test(line)).length, 2);
      assert.match(shown, /\ntotal cost +no price for 6 calls: .* over this session and 2 child sessions\n/);
      assert.doesNotMatch(shown, /claude|\$/, "an offline example names no hosted model and no price");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a fork of a child prints a resume line that works as pasted where the lead's agent.yaml is", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fisk-ai-sub-agents-fork-"));
    try {
      for (const name of ["agent.yaml", "lead.script.yaml", "researcher.yaml", "researcher.script.yaml"]) {
        copyFileSync(join(REPO, "examples/sub-agents", name), join(dir, name));
      }
      const env = { PATH: process.env.PATH, HOME: dir, XDG_STATE_HOME: join(dir, "state"), NO_COLOR: "1" };
      assert.equal((await cli(["run", "--checkpoint", "--name", "research", "Research prices"], { cwd: dir, env })).code, 0);
      const child = childRunId("research", "toolu_script_1_1");
      const forked = await cli(["session", "fork", child, "--at", "3"], { cwd: dir, env });
      assert.equal(forked.code, 0, forked.stderr);
      const line = /resume with: (.*)\n$/.exec(forked.stdout)?.[1] ?? "";
      assert.doesNotMatch(line, /--config/, "the child's own agent.yaml applies, not the lead's in this directory");
      const resumed = spawnSync("sh", ["-c", line], { cwd: dir, env, encoding: "utf8" });
      assert.equal(resumed.status, 0, resumed.stderr);
      assert.equal(resumed.stdout, "Noted one finding.\n");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("runs two researchers side by side as child sessions of the lead, each linked to its call, and reports their answers", async () => {
    tree = await startTree();
    const result = await cli(START(PROMPTS.research), { cwd: tree.dir, env: tree.env });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, RESEARCH_ANSWER);
    assertResearchTreeHeld(tree, 0);
    for (const [index, id] of CHILDREN.entries()) {
      const meta = metaOf(tree, id);
      assert.equal(meta.version, 5, "a child's meta is version 5, which older readers refuse");
      assert.deepEqual(meta.parent, { run_id: LEAD, call_id: LEAD_CALLS[index], depth: 1 });
    }
    assert.equal(metaOf(tree, LEAD).version, 2, "the top-level session stays version 2");
    assert.equal(metaOf(tree, LEAD).parent, undefined);
    assert.equal(tree.server.requests.length, 2 + 2 * (NOTES + 1), "each run made each of its model calls once");
  });

  // Each point holds one or two calls open, waits until they are in flight, and kills there.
  const KILL_POINTS: { name: string; hold(t: Tree): void; reached(t: Tree): boolean }[] = [
    { name: "mid-tool in one researcher", hold: (t) => t.holdTool("alpha-1"), reached: (t) => t.effects().includes("alpha-1") },
    { name: "mid-model-call in one researcher", hold: (t) => t.holdCall("beta:2"), reached: (t) => t.called("beta:2") },
    {
      name: "mid-tool in one researcher and mid-model-call in the other",
      hold: (t) => (t.holdTool("alpha-2"), t.holdCall("beta:1")),
      reached: (t) => t.effects().includes("alpha-2") && t.called("beta:1"),
    },
    { name: "in the lead's last model call, both researchers done", hold: (t) => t.holdCall(`${LEAD}:1`), reached: (t) => t.called(`${LEAD}:1`) },
    { name: "as the first researcher starts", hold: (t) => t.holdCall("alpha:0"), reached: (t) => t.called("alpha:0") },
  ];

  for (const point of KILL_POINTS) {
    it(`resumes a tree SIGKILLed ${point.name}: no child restarts, at most one call repeats per run`, async () => {
      tree = await startTree();
      const t = tree;
      point.hold(t);
      const run = startCli(START(PROMPTS.research), { cwd: t.dir, env: t.env });
      await eventually(() => point.reached(t), point.name);
      run.child.kill("SIGKILL");
      assert.equal((await run.done).signal, "SIGKILL");
      const before = callCounts(t);
      t.releaseAll();
      const resumed = await cli(RESUME, { cwd: t.dir, env: t.env });
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.equal(resumed.stdout, RESEARCH_ANSWER);
      assertResearchTreeHeld(t, 1);
      // The resume made no model call a journal already held: only those that never ran, or the one in flight.
      for (const [key, count] of callCounts(t))
        assert.ok(count - (before.get(key) ?? 0) <= 1, `${key} was called again ${count - (before.get(key) ?? 0)} times by the resume`);
    });
  }

  it("suspends every run of the tree once on Ctrl-C, and resumes it repeating nothing", async () => {
    tree = await startTree();
    const t = tree;
    t.holdTool("alpha-1");
    t.holdCall("beta:1");
    const run = startCli(START(PROMPTS.research), { cwd: t.dir, env: t.env });
    await eventually(() => t.effects().includes("alpha-1") && t.called("beta:1"), "a tool of alpha and a model call of beta in flight");
    run.child.kill("SIGINT");
    await run.stderrIncludes("suspending at the next step");
    t.releaseAll();
    const suspended = await run.done;
    assert.equal(suspended.code, 3, suspended.stderr);
    for (const id of [LEAD, ...CHILDREN]) assert.deepEqual(terminals(journalRecords(t.journal(id))), ["suspended"], `${id} suspended once`);
    const resumed = await cli(RESUME, { cwd: t.dir, env: t.env });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(resumed.stdout, RESEARCH_ANSWER);
    assertResearchTreeHeld(t, 0);
    for (const [key, count] of callCounts(t)) assert.equal(count, 1, `${key} was called once`);
    assert.equal(t.effects().length, 2 * NOTES, "each note written once");
  });

  it("parks the tree at a child's call that needs approval; session pending shows its path from the root; approving and resuming the root goes down the tree", async () => {
    tree = await startTree();
    const t = tree;
    const parked = await cli(START(PROMPTS.publish), { cwd: t.dir, env: t.env });
    assert.equal(parked.code, 10, parked.stderr);
    const child = childRunId(LEAD, LEAD_CALLS[0]);
    assert.deepEqual(terminals(journalRecords(t.journal(child))), ["awaiting_approval"]);
    assert.deepEqual(terminals(journalRecords(t.journal(LEAD))), ["awaiting_approval"]);
    const pending = await cli(["session", "pending", "--state-dir", "state", "--json"], { cwd: t.dir, env: t.env });
    assert.equal(pending.code, 0, pending.stderr);
    const calls = JSON.parse(pending.stdout) as { session_id: string; tool_use_id: string; name: string; path?: string[] }[];
    assert.deepEqual(
      calls.map((call) => [call.session_id, call.tool_use_id, call.name, call.path]),
      [[child, "toolu_publish", "publish", [LEAD, child]]],
    );
    const table = await cli(["session", "pending", "--state-dir", "state"], { cwd: t.dir, env: t.env });
    assert.match(table.stdout, new RegExp(`PATH[\\s\\S]*${LEAD} > ${child}`));
    // Resuming the root before anyone decided parks it again, and journals nothing new.
    const lengths = [LEAD, child].map((id) => journalRecords(t.journal(id)).length);
    const again = await cli(RESUME, { cwd: t.dir, env: t.env });
    assert.equal(again.code, 10, again.stderr);
    assert.deepEqual(
      [LEAD, child].map((id) => journalRecords(t.journal(id)).length),
      lengths,
    );
    const approved = await cli(["session", "approve", child, "toolu_publish", "--state-dir", "state"], { cwd: t.dir, env: t.env });
    assert.equal(approved.code, 0, approved.stderr);
    const resumed = await cli(RESUME, { cwd: t.dir, env: t.env });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(resumed.stdout, "Report: publish-gamma: published\n");
    assert.deepEqual(t.effects(), ["published publish-gamma"]);
  });

  it("forks a child as a session of its own: no parent in its meta, listed as a root, resumed alone, and left by the parent's rm", async () => {
    tree = await startTree();
    const t = tree;
    const [alpha] = CHILDREN as [string, string];
    assert.equal((await cli(START(PROMPTS.research), { cwd: t.dir, env: t.env })).code, 0);
    // Forked after its first note's result: the fork goes on from there, on its own.
    const firstResult = journalRecords(t.journal(alpha)).find((record) => record.protocol === PROTOCOLS.tool_result);
    const at = String(firstResult?.seq);
    const session = (args: string[]) => cli(["session", ...args, "--state-dir", "state"], { cwd: t.dir, env: t.env });
    const forked = await session(["fork", alpha, "--at", at, "--name", "alpha-fork"]);
    assert.equal(forked.code, 0, forked.stderr);
    const meta = metaOf(t, "alpha-fork");
    assert.equal(meta.parent, undefined, "a fork is no child of the child's parent");
    assert.equal(meta.version, 5, "it keeps the child's version: its journal is a child's");
    const rows = JSON.parse((await session(["ls", "--json"])).stdout) as { id: string; parent: unknown }[];
    assert.equal(rows.find((row) => row.id === "alpha-fork")?.parent, null);
    // Resumed on its own, with the agent.yaml the child ran (its meta names it).
    const resumed = await cli(["run", "--resume", "alpha-fork", "--state-dir", "state"], { cwd: t.dir, env: t.env });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(resumed.stdout, `alpha: found ${NOTES} notes\n`);
    assert.deepEqual(terminals(journalRecords(t.journal(alpha))), ["completed"], "the child it came from is untouched");
    const removed = await session(["rm", LEAD]);
    assert.equal(removed.stdout, `removed ${LEAD} and its 2 child sessions\n`, removed.stderr);
    assert.deepEqual(t.sessions(), ["alpha-fork"]);
  });

  it("answers a call past the depth limit with an error result, starting no session for it", async () => {
    tree = await startTree();
    const t = tree;
    const result = await cli(START(PROMPTS.deeper), { cwd: t.dir, env: t.env });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^Report: deeper-delta: researcher was not run: its session would be 2 deep, past the limit of 1 \(max_depth\)/);
    assert.deepEqual(t.sessions().sort(), [LEAD, childRunId(LEAD, LEAD_CALLS[0])].sort());
  });

  it("answers the call of a child that failed with an error result naming how it ended and its session", async () => {
    tree = await startTree();
    const t = tree;
    const result = await cli(START(PROMPTS.fail), { cwd: t.dir, env: t.env });
    assert.equal(result.code, 0, result.stderr);
    const child = childRunId(LEAD, LEAD_CALLS[0]);
    assert.match(result.stdout, new RegExp(`^Report: researcher stopped without an answer \\(error: model call failed: .*\\); its session is ${child}\\n$`));
    assert.deepEqual(terminals(journalRecords(t.journal(child))), ["error"]);
    assert.ok(existsSync(t.journal(child)));
  });
});
