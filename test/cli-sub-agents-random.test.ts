// covers: src/agent/agent-loop.ts, src/agent/agent-tool.ts
// tier: full
// A lead running two researchers side by side (docs/sub-agents.md), SIGKILLed and Ctrl-C'd at
// seeded random points through the real CLI against the strict Anthropic fake. A point is a
// model call or a tool call of any run of the tree, held open until the signal lands in it.
// Each kill round kills the tree one to three times (the first run, then resumes) before a
// last resume: every request valid, no child restarted, per kill at most one model call and
// one tool call repeated in each run, the expected answer. Each Ctrl-C round: every run not
// done is suspended once, and the resume repeats nothing. FISK_AI_TREE_SEED=N reproduces a run.
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { startCli, type CliRun } from "./helpers/cli-harness.js";
import { journalRecords } from "./helpers/journal-file.js";
import { mulberry32 } from "./helpers/simulated-runs.js";
import { LEAD, NOTES, PROMPTS, RESEARCH_ANSWER, startTree, type Tree } from "./helpers/sub-agent-tree.js";
import { assertResearchTreeHeld, callCounts, terminals } from "./helpers/sub-agent-tree-checks.js";
import { commandsInProcess } from "./helpers/in-process-cli.js";
import { eventually } from "./helpers/eventually.js";

/** The file's first call spawned, the later ones in this process (test/helpers/in-process-cli.ts). */
const cli = commandsInProcess(["session", "run"]);

const SEED = Number(process.env.FISK_AI_TREE_SEED ?? Math.floor(Math.random() * 2 ** 31));
const ROUNDS = 3;
const START = ["run", "--config", "lead.yaml", "--checkpoint", "--name", LEAD, PROMPTS.research];
const RESUME = ["run", "--config", "lead.yaml", "--resume", LEAD];
const TOPICS = ["alpha", "beta"] as const;
const steps = (count: number) => Array.from({ length: count }, (_, step) => step);

interface Point {
  name: string;
  hold(t: Tree): void;
  reached(t: Tree): boolean;
}

/** Every point of the research tree: each run's model calls, and each researcher's tool calls. */
const POINTS: Point[] = [
  ...[`${LEAD}:0`, `${LEAD}:1`, ...TOPICS.flatMap((topic) => steps(NOTES + 1).map((step) => `${topic}:${step}`))].map(
    (key): Point => ({ name: `model call ${key}`, hold: (t) => t.holdCall(key), reached: (t) => t.called(key) }),
  ),
  ...TOPICS.flatMap((topic) => steps(NOTES).map((step) => `${topic}-${step}`)).map(
    (line): Point => ({ name: `tool call ${line}`, hold: (t) => t.holdTool(line), reached: (t) => t.effects().includes(line) }),
  ),
];

/** One or two points the run has not passed yet, held open. */
function holdRandomPoints(t: Tree, random: () => number, exclude: readonly string[] = []): Point[] {
  const open = POINTS.filter((point) => !point.reached(t) && !exclude.includes(point.name));
  const picked: Point[] = [];
  for (let count = random() < 0.5 ? 1 : 2; count > 0 && open.length > 0; count--) picked.push(...open.splice(Math.floor(random() * open.length), 1));
  for (const point of picked) point.hold(t);
  return picked;
}

/** Waits until the run is inside one of `points` (or, failing the test, exited first). */
async function untilInside(t: Tree, run: CliRun, points: readonly Point[]): Promise<void> {
  let exited = false;
  void run.done.then(() => (exited = true));
  const names = points.map((point) => point.name).join(" or ");
  await eventually(() => exited || points.some((point) => point.reached(t)), names);
  assert.equal(exited, false, `the run exited before reaching ${names}: ${run.stderr()}`);
}

/** What the tree has done so far: each model call (by key) and each tool line, with how often. */
interface Done {
  calls: Map<string, number>;
  lines: Map<string, number>;
}

function doneSoFar(t: Tree): Done {
  const lines = new Map<string, number>();
  for (const line of t.effects()) lines.set(line, (lines.get(line) ?? 0) + 1);
  return { calls: callCounts(t), lines };
}

/**
 * What one process repeated of what was done before it, by run: a model call or tool line
 * done before (or twice in it) counts each time it is done again.
 */
function repeatedSince(t: Tree, before: Done): Map<string, number> {
  const now = doneSoFar(t);
  const repeated = new Map<string, number>();
  const add = (what: string, count: number) => repeated.set(what, (repeated.get(what) ?? 0) + count);
  for (const [key, count] of now.calls) add(`${key.slice(0, key.lastIndexOf(":"))} model calls`, Math.max(0, count - Math.max(1, before.calls.get(key) ?? 0)));
  for (const [line, count] of now.lines)
    add(`${line.slice(0, line.lastIndexOf("-"))} tool calls`, Math.max(0, count - Math.max(1, before.lines.get(line) ?? 0)));
  return repeated;
}

let tree: Tree | undefined;
afterEach(async () => {
  await tree?.close();
  tree = undefined;
});

describe("a tree of sessions at seeded random points", () => {
  for (const round of steps(ROUNDS)) {
    it(`SIGKILL round ${round}: resumes to the expected answer, no child restarted, at most one call repeated per run per kill`, async (context) => {
      context.diagnostic(`seed ${SEED} (FISK_AI_TREE_SEED=${SEED} reproduces it)`);
      const random = mulberry32(SEED * 31 + round);
      tree = await startTree();
      const t = tree;
      const kills = 1 + Math.floor(random() * 3);
      let landed = 0;
      let before: Done | undefined;
      for (; landed < kills; landed++) {
        const points = holdRandomPoints(t, random);
        if (points.length === 0) break;
        const run = startCli(landed === 0 ? START : RESUME, { cwd: t.dir, env: t.env });
        await untilInside(t, run, points);
        run.child.kill("SIGKILL");
        assert.equal((await run.done).signal, "SIGKILL");
        if (before !== undefined) assertAtMostOneRepeat(repeatedSince(t, before), `kill ${landed} (${points.map((point) => point.name).join(", ")})`);
        before = doneSoFar(t);
        t.releaseAll();
      }
      const resumed = await cli(RESUME, { cwd: t.dir, env: t.env });
      assert.equal(resumed.code, 0, `seed ${SEED}: ${resumed.stderr}`);
      assert.equal(resumed.stdout, RESEARCH_ANSWER);
      if (before !== undefined) assertAtMostOneRepeat(repeatedSince(t, before), "the last resume");
      assertResearchTreeHeld(t, landed);
    });
  }

  for (const round of steps(ROUNDS)) {
    it(`SIGINT round ${round}: every run not done suspended once, the resume repeating nothing`, async (context) => {
      context.diagnostic(`seed ${SEED} (FISK_AI_TREE_SEED=${SEED} reproduces it)`);
      const random = mulberry32(SEED * 37 + round);
      tree = await startTree();
      const t = tree;
      // Inside the lead's last call the tree is all but done: its answer completes it.
      const points = holdRandomPoints(t, random, [`model call ${LEAD}:1`]);
      const run = startCli(START, { cwd: t.dir, env: t.env });
      await untilInside(t, run, points);
      run.child.kill("SIGINT");
      await run.stderrIncludes("suspending at the next step");
      t.releaseAll();
      const suspended = await run.done;
      assert.equal(suspended.code, 3, `seed ${SEED}, inside ${points.map((point) => point.name).join(", ")}: ${suspended.stderr}`);
      for (const id of t.sessions()) {
        const ended = terminals(journalRecords(t.journal(id)));
        assert.ok(ended.join() === "suspended" || ended.join() === "completed", `${id} ended ${ended.join(", ")}: once, suspended or done`);
      }
      assert.deepEqual(terminals(journalRecords(t.journal(LEAD))), ["suspended"]);
      const resumed = await cli(RESUME, { cwd: t.dir, env: t.env });
      assert.equal(resumed.code, 0, `seed ${SEED}: ${resumed.stderr}`);
      assert.equal(resumed.stdout, RESEARCH_ANSWER);
      assertResearchTreeHeld(t, 0);
      for (const [key, count] of callCounts(t)) assert.equal(count, 1, `${key} was called once`);
      assert.equal(t.effects().length, 2 * NOTES, "each note written once");
    });
  }
});

function assertAtMostOneRepeat(repeated: Map<string, number>, after: string): void {
  for (const [what, count] of repeated) assert.ok(count <= 1, `seed ${SEED}: ${count} ${what} repeated after ${after}`);
}
