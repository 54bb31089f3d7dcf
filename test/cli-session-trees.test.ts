// covers: src/transcript/child-sessions.ts, src/ledger/session-tree.ts, src/ledger/tree-ledger.ts, src/ledger/tree-removal.ts, src/transcript/session-name.ts
// covers: src/backends/file/file-store.ts
// process: shared
// Child sessions as the CLI shows, counts and removes them (docs/sub-agents.md, "Seeing and
// counting a tree"): the real CLI (spawned, the later calls of a session subcommand in
// this process) over file stores whose trees were
// written through the store's own writer, with the parent link a child's meta carries.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { FileStore } from "../src/index.js";
import type { CliResult } from "./helpers/cli-harness.js";
import { commandsInProcess } from "./helpers/in-process-cli.js";
import { terminalEntry, toolResultEntry, userEntry } from "./helpers/record-builders.js";
import { plantTree, surveyTree, turnEntry, waitingTree, type PlantedSession } from "./helpers/session-trees.js";

const ROOT = mkdtempSync(join(tmpdir(), "fisk-ai-trees-"));
after(() => rmSync(ROOT, { recursive: true, force: true }));
const ENV: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: ROOT, XDG_STATE_HOME: join(ROOT, "xdg"), NO_COLOR: "1", TZ: "UTC" };

let stores = 0;
/** A fresh store directory holding `sessions`. */
async function storeWith(sessions: readonly PlantedSession[]): Promise<string> {
  const dir = join(ROOT, `store-${++stores}`);
  mkdirSync(dir);
  await plantTree(new FileStore({ dir }), sessions);
  return dir;
}

const cli = commandsInProcess(["session", "run"]);

function fisk(args: string[], dir: string): Promise<CliResult> {
  return cli([...args, "--state-dir", dir], { cwd: ROOT, env: ENV });
}

async function ok(args: string[], dir: string): Promise<string> {
  const result = await fisk(args, dir);
  assert.equal(result.code, 0, `${args.join(" ")}: ${result.stderr}`);
  return result.stdout;
}

/** One line on stderr, no stack trace, and the exit code. */
function failedWith(result: CliResult, code: number, message: RegExp): void {
  assert.equal(result.code, code, result.stderr);
  assert.equal(result.stderr.trimEnd().split("\n").length, 1, result.stderr);
  assert.match(result.stderr.trimEnd(), message);
  assert.doesNotMatch(result.stderr, /^\s+at /m);
}

/** The first column of each row of a listing, its header left out, as printed (indentation kept). */
function idColumn(listing: string): string[] {
  const [header = "", ...rows] = listing.trimEnd().split("\n");
  return rows.map((row) => row.slice(0, header.indexOf("STATUS")).trimEnd());
}

interface Usage {
  calls: number;
  in_tokens: number;
  out_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
}
interface ShownLedger {
  cost_usd: number;
  models: (Usage & { model: string; cost_usd: number })[];
  tree?: {
    children: (Usage & { id: string; depth: number; cost_usd: number })[];
    shared_children: (Usage & { id: string })[];
    total: Usage & { sessions: number; cost_usd: number };
  };
}

const TIERS = ["calls", "in_tokens", "out_tokens", "cache_read_tokens", "cache_write_tokens"] as const;
const usageOf = (value: Usage) => Object.fromEntries(TIERS.map((tier) => [tier, value[tier]]));
function summed(usages: Usage[]): Record<string, number> {
  return Object.fromEntries(TIERS.map((tier) => [tier, usages.reduce((sum, usage) => sum + usage[tier], 0)]));
}

async function ledgerOfShow(runId: string, dir: string): Promise<ShownLedger> {
  return (JSON.parse(await ok(["session", "show", runId, "--json"], dir)) as { ledger: ShownLedger }).ledger;
}

/** A session's own tokens, its models' lines summed, as `show --json` gives them. */
async function ownUsage(runId: string, dir: string): Promise<Record<string, number>> {
  return summed((await ledgerOfShow(runId, dir)).models);
}

describe("session ls with child sessions", () => {
  it("sets each child under its parent, indented by depth, by default", async () => {
    const dir = await storeWith(surveyTree());
    assert.deepEqual(idColumn(await ok(["session", "ls"], dir)), ["survey", "  survey-r1", "    survey-r1-s1", "  survey-r2"]);
  });

  it("draws the tree with --tree, and lists one row a session, newest first and unindented, with --flat", async () => {
    const dir = await storeWith(surveyTree());
    assert.deepEqual(idColumn(await ok(["session", "ls", "--tree"], dir)), ["survey", "├─ survey-r1", "│  └─ survey-r1-s1", "└─ survey-r2"]);
    const flat = idColumn(await ok(["session", "ls", "--flat"], dir));
    assert.deepEqual([...flat].sort(), ["survey", "survey-r1", "survey-r1-s1", "survey-r2"]);
    const byUpdate = (JSON.parse(await ok(["session", "ls", "--json"], dir)) as { id: string }[]).map((row) => row.id);
    assert.deepEqual(flat, byUpdate, "--flat is the order of ls --json: newest first, as before children");
  });

  it("names each session's parent in --json, and nests children with --json --tree", async () => {
    const dir = await storeWith(surveyTree());
    const rows = JSON.parse(await ok(["session", "ls", "--json"], dir)) as { id: string; parent: unknown }[];
    assert.deepEqual(Object.fromEntries(rows.map((row) => [row.id, row.parent])), {
      survey: null,
      "survey-r1": { run_id: "survey", call_id: "toolu_r1", depth: 1 },
      "survey-r2": { run_id: "survey", call_id: "toolu_r2", depth: 1 },
      "survey-r1-s1": { run_id: "survey-r1", call_id: "toolu_s1", depth: 2 },
    });
    type Nested = { id: string; children: Nested[] };
    const shape = (node: Nested): unknown => ({ [node.id]: node.children.map(shape) });
    assert.deepEqual((JSON.parse(await ok(["session", "ls", "--json", "--tree"], dir)) as Nested[]).map(shape), [
      { survey: [{ "survey-r1": [{ "survey-r1-s1": [] }] }, { "survey-r2": [] }] },
    ]);
  });

  it("refuses --tree with --flat in one line, exit 2", async () => {
    const dir = await storeWith(surveyTree());
    failedWith(
      await fisk(["session", "ls", "--tree", "--flat"], dir),
      2,
      /^fisk-ai: session ls lays children out as a tree \(--tree\) or not at all \(--flat\): give one of them$/,
    );
  });
});

describe("session show of a tree: its cost rolled up, its children's work folded in", () => {
  it("prints the parent's own cost, each child's by depth, and the total over the tree", async () => {
    const dir = await storeWith(surveyTree());
    const lines = (await ok(["session", "show", "survey"], dir)).split("\n");
    const field = (name: string) => lines.filter((line) => line.startsWith(`${name} `)).map((line) => line.slice(name.length).trim());
    assert.deepEqual(field("own cost"), ["$0.0090"]);
    assert.deepEqual(field("child"), [
      "survey-r1 (completed): $0.0019 for 2 calls: in 460, out 38, cache read 0, cache write 0",
      "survey-r1-s1 (completed): $0.0003 for 1 call: in 90, out 5, cache read 0, cache write 0",
      "survey-r2 (completed): $0.0006 for 1 call: in 150, out 9, cache read 0, cache write 0",
    ]);
    const column = (id: string) => (lines.find((line) => line.startsWith("child ") && line.includes(` ${id} (`)) ?? "").indexOf(`${id} (`);
    assert.equal(column("survey-r1-s1"), column("survey-r1") + 2, "a grandchild is indented under its parent");
    assert.deepEqual(field("total cost"), ["$0.0119 for 6 calls: in 3000, out 192, cache read 0, cache write 0 over this session and 3 child sessions"]);
    assert.deepEqual(field("parent"), []);
    const child = (await ok(["session", "show", "survey-r1-s1"], dir)).split("\n");
    assert.ok(
      child.some((line) => /^parent +survey-r1, started by its call toolu_s1 \(depth 2\)$/.test(line)),
      child.join("\n"),
    );
    assert.ok(
      child.some((line) => /^cost {2,}\$0\.0003$/.test(line)),
      "a session with no children shows its cost as before",
    );
  });

  it("the ledger of a tree equals the sum of its sessions, exactly, also after a fork; stats counts each session once", async () => {
    const dir = await storeWith(surveyTree());
    const ids = ["survey", "survey-r1", "survey-r2", "survey-r1-s1"];
    const parts = await Promise.all(ids.map((id) => ownUsage(id, dir)));
    const tree = (await ledgerOfShow("survey", dir)).tree ?? assert.fail("no tree ledger");
    assert.deepEqual(usageOf(tree.total), summed(parts as unknown as Usage[]));
    assert.equal(tree.total.sessions, 4);
    const stats = () =>
      ok(["session", "stats", "--json"], dir).then((text) => (JSON.parse(text) as { total: Usage & { sessions: number; cost_usd: number } }).total);
    assert.deepEqual(usageOf(await stats()), usageOf(tree.total));
    assert.equal((await stats()).sessions, 4);
    assert.equal((await stats()).cost_usd, tree.total.cost_usd);

    // A fork copies the calls that started the children: it shares them, and counts none of them again.
    assert.match(await ok(["session", "fork", "survey", "--name", "survey-fork"], dir), /^forked survey at seq 6 as survey-fork/);
    const forkShown = await ledgerOfShow("survey-fork", dir);
    assert.deepEqual(
      forkShown.tree?.shared_children.map((child) => child.id),
      ["survey-r1", "survey-r1-s1", "survey-r2"],
    );
    assert.deepEqual(forkShown.tree?.children, []);
    assert.equal(forkShown.tree?.total.calls, 0);
    // The fork goes on and starts a child of its own.
    const store = new FileStore({ dir });
    const journal = await store.open("survey-fork");
    let seq = journal.lastSeq + 1;
    await journal.append(seq++, userEntry("And notes C?"));
    await journal.append(seq++, turnEntry(2, "A researcher for C.", [{ id: "toolu_f1", tool: "researcher", prompt: "Read notes C" }], { in: 1500, out: 60 }));
    await journal.append(seq++, toolResultEntry("toolu_f1", "notes C say green"));
    await journal.append(seq++, turnEntry(3, "C says green.", [], { in: 1600, out: 12 }));
    await journal.append(seq++, terminalEntry("completed"));
    await journal.close();
    await plantTree(store, [
      {
        runId: "survey-fork-r1",
        parent: { runId: "survey-fork", callId: "toolu_f1", depth: 1 },
        prompt: "Read notes C",
        created: "2026-12-02T12:00:00Z",
        entries: [turnEntry(0, "notes C say green", [], { in: 120, out: 6 }), terminalEntry("completed")],
      },
    ]);
    const forkTree = (await ledgerOfShow("survey-fork", dir)).tree ?? assert.fail("no tree ledger for the fork");
    assert.deepEqual(
      forkTree.children.map((child) => child.id),
      ["survey-fork-r1"],
    );
    assert.deepEqual(
      forkTree.shared_children.map((child) => child.id),
      ["survey-r1", "survey-r1-s1", "survey-r2"],
    );
    assert.deepEqual(usageOf(forkTree.total), summed([await ownUsage("survey-fork", dir), await ownUsage("survey-fork-r1", dir)] as unknown as Usage[]));
    assert.deepEqual(usageOf(forkTree.total), { calls: 3, in_tokens: 3220, out_tokens: 78, cache_read_tokens: 0, cache_write_tokens: 0 });
    // The store: both trees, each session once.
    const total = await stats();
    assert.equal(total.sessions, 6);
    assert.deepEqual(usageOf(total), summed([tree.total, forkTree.total]));
    const shown = await ok(["session", "show", "survey-fork"], dir);
    assert.match(shown, /^shared child +survey-r1 \(completed\), counted in the session this was forked from: \$0\.0019 for 2 calls/m);
    assert.match(shown, /^total cost +\$0\.0108 for 3 calls: in 3220, out 78, cache read 0, cache write 0 over this session and 1 child session$/m);
  });

  it("folds each child's work after the call that started it, and opens it (and its children's) with --full", async () => {
    const dir = await storeWith(surveyTree());
    const folded = await ok(["session", "show", "survey", "--transcript", "--no-tui"], dir);
    assert.match(
      folded,
      /^→ researcher \{"prompt":"Read notes A"\}\n⤷ researcher: child session survey-r1 \(completed\) \(--full shows its work\)\n→ researcher/m,
    );
    assert.doesNotMatch(folded, /Summarize notes A/);
    const full = await ok(["session", "show", "survey", "--transcript", "--no-tui", "--full"], dir);
    const work = full.slice(full.indexOf("⤷ researcher: child session survey-r1 (completed)\n"));
    assert.ok(
      work.startsWith(
        [
          "⤷ researcher: child session survey-r1 (completed)",
          "│ › Read notes A",
          "│ A summarizer for A.",
          '│ → summarizer {"prompt":"Summarize notes A"}',
          "│ ⤷ summarizer: child session survey-r1-s1 (completed)",
          "│ │ › Summarize notes A",
          "│ │ red, in short",
          "│ ← summarizer: red, in short",
          "│ notes A say red",
          '→ researcher {"prompt":"Read notes B"}',
        ].join("\n"),
      ),
      work,
    );
  });
});

describe("session rm of a tree", () => {
  it("removes a parent's children with it, saying how many", async () => {
    const dir = await storeWith([...surveyTree(), ...waitingTree()]);
    assert.equal(await ok(["session", "rm", "survey"], dir), "removed survey and its 3 child sessions\n");
    assert.deepEqual(idColumn(await ok(["session", "ls"], dir)), ["waiting", "  waiting-r1"]);
  });

  it("refuses a child its parent can still resume into, in one line with exit 15, and removes it with --force", async () => {
    const dir = await storeWith([...surveyTree(), ...waitingTree()]);
    failedWith(
      await fisk(["session", "rm", "waiting-r1"], dir),
      15,
      /^fisk-ai: session waiting-r1 is a child of session waiting, whose call toolu_w1 can still resume into it: remove waiting \(which removes its children\), or this child alone with --force$/,
    );
    assert.ok(idColumn(await ok(["session", "ls"], dir)).includes("  waiting-r1"), "still there");
    assert.equal(await ok(["session", "rm", "waiting-r1", "--force"], dir), "removed waiting-r1\n");
    // A child whose call the parent has answered is the parent's past: it goes alone, with what is below it.
    assert.equal(await ok(["session", "rm", "survey-r1"], dir), "removed survey-r1 and its 1 child session\n");
    assert.deepEqual(idColumn(await ok(["session", "ls"], dir)), ["waiting", "survey", "  survey-r2"]);
  });

  it("removes a child with its parent when both are named, in either order", async () => {
    const dir = await storeWith(waitingTree());
    assert.equal(await ok(["session", "rm", "waiting-r1", "waiting"], dir), "removed waiting and its 1 child session\n");
    assert.match(await ok(["session", "ls"], dir), /^No sessions/);
  });
});

describe("session prune never splits a tree", () => {
  /** The survey tree with one child left open (its writer gone): the tree can still go on. */
  const unfinished = () => surveyTree().map((session) => (session.runId === "survey-r2" ? { ...session, entries: session.entries.slice(0, -1) } : session));

  it("removes a tree whole when its root matches, and keeps it whole while any session of it can go on", async () => {
    const dir = await storeWith(surveyTree());
    const removed = await ok(["session", "prune", "--status", "completed"], dir);
    assert.deepEqual(
      removed
        .trim()
        .split("\n")
        .slice(0, 4)
        .map((line) => line.split(/\s+/)[1]),
      ["survey", "survey-r1", "survey-r1-s1", "survey-r2"],
    );
    assert.match(removed, /^removed 4 sessions, \d+ bytes/m);
    assert.match(await ok(["session", "ls"], dir), /^No sessions/);

    const open = await storeWith(unfinished());
    const kept = await ok(["session", "prune", "--status", "completed"], open);
    assert.match(kept, /^removed 0 sessions, 0 bytes/m);
    assert.match(kept, /^kept 4 matching sessions that can still go on or be repaired \(open\): name their status in --status to remove them$/m);
    // The open child alone is not a tree's root: naming its status does not take it from its parent.
    assert.match(await ok(["session", "prune", "--status", "open"], open), /^removed 0 sessions/m);
    assert.equal(idColumn(await ok(["session", "ls"], open)).length, 4);
    assert.match(await ok(["session", "prune", "--status", "completed,open"], open), /^removed 4 sessions/m);
  });

  it("counts a tree once in --keep-last", async () => {
    const dir = await storeWith([...surveyTree(), ...waitingTree()]);
    const plan = JSON.parse(await ok(["session", "prune", "--keep-last", "1", "--status", "completed,open", "--dry-run", "--json"], dir)) as {
      removed: { id: string }[];
    };
    const removed = plan.removed.map((row) => row.id).sort();
    // The newest tree (written last) is kept whole; the other goes whole.
    assert.deepEqual(removed, ["survey", "survey-r1", "survey-r1-s1", "survey-r2"]);
  });
});

describe("a tree the sub-agent runtime made, end to end", () => {
  it("lists the lead's researchers under it, rolls their cost up, and removes them with it", async () => {
    const { startTree, LEAD, CHILDREN, PROMPTS, RESEARCH_ANSWER } = await import("./helpers/sub-agent-tree.js");
    const tree = await startTree();
    try {
      const fisk = (args: string[]) => cli([...args, "--config", "lead.yaml"], { cwd: tree.dir, env: tree.env });
      const run = await fisk(["run", "--checkpoint", "--name", LEAD, PROMPTS.research]);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, RESEARCH_ANSWER);
      const listed = await fisk(["session", "ls", "--tree"]);
      // The researchers ran side by side: listed in the order they were created, either first.
      const [lead, ...researchers] = idColumn(listed.stdout);
      assert.equal(lead, LEAD);
      assert.deepEqual(
        researchers.map((row) => row.slice(0, 3)),
        ["├─ ", "└─ "],
      );
      assert.deepEqual(researchers.map((row) => row.slice(3)).sort(), [...CHILDREN].sort());
      const shown = (await fisk(["session", "show", LEAD])).stdout;
      // The fake answers every call with 100 input and 10 output tokens: the lead's 2 calls, each researcher's 4.
      assert.match(shown, /^total cost +\$0\.0045 for 10 calls: in 1000, out 100, cache read 0, cache write 0 over this session and 2 child sessions$/m);
      assert.equal((await fisk(["session", "rm", LEAD])).stdout, `removed ${LEAD} and its 2 child sessions\n`);
      assert.deepEqual(tree.sessions(), []);
    } finally {
      await tree.close();
    }
  });
});
