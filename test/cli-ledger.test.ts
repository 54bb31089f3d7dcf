// covers: src/cli/session/du.ts, src/cli/session/prune.ts, src/cli/session/rename.ts
// covers: src/cli/session/search.ts, src/cli/session/stats.ts, src/cli/text/ledger.ts
// covers: src/cli/text/session-ledger.ts, src/cli/session/handlers/prune.ts, src/cli/session/handlers/search.ts
// covers: src/cli/session/handlers/stats.ts, src/cli/context/checked-title.ts, src/config/age.ts, src/backends/open-backend.ts
// covers: src/backends/file/file-store.ts, src/backends/jetstream/run-stream.ts
// process: shared
// `fisk-ai session stats|du|prune|rename|search`, `run --title` and titles in place of ids,
// end to end: the real CLI (spawned, the later calls of a session subcommand in this
// process) over file stores of planted sessions (the
// store's own writer, then mtimes set so ages are known) and over JetStream on a real
// nats-server, where a prune must purge the removed runs' messages.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { createStore, FileStore, type Store } from "../src/index.js";
import { initRunStream } from "../src/backends/jetstream/run-stream.js";
import type { CliResult } from "./helpers/cli-harness.js";
import { commandsInProcess } from "./helpers/in-process-cli.js";
import { startNatsServer, type NatsServer } from "./helpers/nats-server.js";
import { skipWithout } from "./helpers/programs.js";
import { assistantEntry, metaPayload, terminalEntry, titleEntry, toolResultEntry, userEntry } from "./helpers/record-builders.js";

const ROOT = mkdtempSync(join(tmpdir(), "fisk-ai-cli-ledger-"));
after(() => rmSync(ROOT, { recursive: true, force: true }));
const ENV: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: ROOT, XDG_STATE_HOME: join(ROOT, "xdg"), NO_COLOR: "1", TZ: "UTC" };
const DAY = 86_400_000;
/** What one assistantEntry costs at claude-sonnet-4-5's shipped price. */
const CALL_COST = (100 * 3 + 20 * 15 + 5 * 0.3 + 7 * 3.75) / 1_000_000;

let dirs = 0;
function freshDir(): string {
  const dir = join(ROOT, `ws-${++dirs}`);
  mkdirSync(dir);
  return dir;
}

const cli = commandsInProcess(["session", "run"]);

function fisk(args: string[], cwd: string, stdin?: string): Promise<CliResult> {
  return cli(args, { cwd, env: ENV, ...(stdin === undefined ? {} : { stdin }) });
}

function succeeded(result: CliResult, what: string): CliResult {
  assert.equal(result.code, 0, `${what}: ${result.stderr}`);
  return result;
}

/** One line on stderr, no stack trace, and the exit code. */
function failedWith(result: CliResult, code: number, message: RegExp): void {
  assert.equal(result.code, code, result.stderr);
  assert.equal(result.stderr.trimEnd().split("\n").length, 1, result.stderr);
  assert.match(result.stderr.trimEnd(), message);
  assert.doesNotMatch(result.stderr, /^\s+at /m);
}

interface Planted {
  runId: string;
  /** How the run ends; undefined leaves it open (its writer gone). */
  end?: "completed" | "suspended" | "error" | "awaiting_approval";
  calls?: number;
  model?: string;
  title?: string;
  daysAgo?: number;
  text?: string;
}

/** Writes runs through the store's own writer, then dates them (`updated` is the journal's mtime on the file store). */
async function plant(store: Store, runs: Planted[], dir?: string): Promise<void> {
  for (const run of runs) {
    const meta = metaPayload(run.runId, run.model === undefined ? {} : { fingerprint: { ...metaPayload(run.runId).fingerprint, model: run.model } });
    const journal = await store.create(run.runId, meta);
    let seq = 2;
    if (run.title !== undefined) await journal.append(seq++, titleEntry(run.title));
    const calls = run.calls ?? 1;
    for (let call = 0; call < calls; call++) {
      if (call > 0) await journal.append(seq++, userEntry(`follow-up ${call}`));
      await journal.append(
        seq++,
        assistantEntry(call, `${run.text ?? "answer"} ${call}`, run.end === "awaiting_approval" && call === calls - 1 ? ["t-wait"] : []),
      );
    }
    if (run.end === "awaiting_approval") {
      await journal.append(seq++, {
        protocol: "io.choria.fisk-ai.v1.session.approval_request",
        approval_request: { tool_use_id: "t-wait", name: "note", input: { text: "t-wait" }, kind: "approval", requested_at: "2026-12-01T10:00:00.000Z" },
      });
    }
    if (run.end !== undefined) await journal.append(seq++, terminalEntry(run.end));
    await journal.close();
    if (dir !== undefined) {
      const when = new Date(Date.now() - (run.daysAgo ?? 0) * DAY);
      utimesSync(join(dir, `${run.runId}.json`), when, when);
    }
  }
}

/** The bytes of every file in a store directory but the summary cache, which is derived. */
function storeBytes(dir: string): number {
  return readdirSync(dir)
    .filter((name) => name !== ".summaries")
    .reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);
}

const SESSIONS: Planted[] = [
  { runId: "new-done", end: "completed", daysAgo: 1 },
  { runId: "old-done", end: "completed", daysAgo: 40, calls: 3 },
  { runId: "old-error", end: "error", daysAgo: 35 },
  { runId: "old-suspended", end: "suspended", daysAgo: 50 },
  { runId: "old-open", daysAgo: 60 },
  { runId: "old-waiting", end: "awaiting_approval", daysAgo: 41 },
];

async function prunableStore(): Promise<{ ws: string; dir: string }> {
  const ws = freshDir();
  const dir = join(ws, "state");
  await plant(new FileStore({ dir }), SESSIONS, dir);
  return { ws, dir };
}

interface PruneJson {
  dry_run: boolean;
  removed: { id: string; bytes: number }[];
  bytes: number;
  protected: { id: string; status: string }[];
}

describe("fisk-ai session prune", () => {
  it("--dry-run prints what would go and its bytes, and the real prune removes exactly that and frees exactly those bytes", async () => {
    const { ws, dir } = await prunableStore();
    const before = storeBytes(dir);
    const dry = JSON.parse(
      succeeded(await fisk(["session", "prune", "--older-than", "30d", "--dry-run", "--json", "--state-dir", dir], ws), "dry run").stdout,
    ) as PruneJson;
    assert.deepEqual(
      dry.removed.map((entry) => entry.id),
      ["old-done", "old-error"],
      "largest first",
    );
    assert.deepEqual(dry.protected.map((entry) => entry.id).sort(), ["old-open", "old-suspended", "old-waiting"]);
    assert.equal(storeBytes(dir), before, "a dry run removes nothing");
    const real = JSON.parse(succeeded(await fisk(["session", "prune", "--older-than", "30d", "--json", "--state-dir", dir], ws), "prune").stdout) as PruneJson;
    assert.deepEqual(real.removed, dry.removed);
    assert.equal(real.bytes, dry.bytes);
    assert.equal(before - storeBytes(dir), real.bytes, "the bytes reported are the bytes freed");
    assert.deepEqual(
      readdirSync(dir)
        .filter((name) => name.endsWith(".json"))
        .sort(),
      ["new-done.json", "old-open.json", "old-suspended.json", "old-waiting.json"],
    );
  });

  it("prints the same in text: each session, then the total, then what it kept and how to remove it", async () => {
    const { ws, dir } = await prunableStore();
    const dry = succeeded(await fisk(["session", "prune", "--older-than", "30d", "--dry-run", "--state-dir", dir], ws), "dry run").stdout;
    const real = succeeded(await fisk(["session", "prune", "--older-than", "30d", "--state-dir", dir], ws), "prune").stdout;
    assert.match(dry, /^would remove {2}old-done +completed +1\.\d KiB +What is in the notes file\?$/m);
    assert.match(dry, /^would remove 2 sessions, (\d+) bytes/m);
    assert.equal(/removed 2 sessions, (\d+) bytes .* freed/.exec(real)?.[1], /would remove 2 sessions, (\d+) bytes/.exec(dry)?.[1]);
    assert.match(
      real,
      /^kept 3 matching sessions that can still go on or be repaired \((suspended|open|awaiting_approval),.*\): name their status in --status to remove them$/m,
    );
  });

  it("removes a session that can still go on only when --status names its status", async () => {
    const { ws, dir } = await prunableStore();
    const named = JSON.parse(
      succeeded(await fisk(["session", "prune", "--status", "suspended,open", "--json", "--state-dir", dir], ws), "prune").stdout,
    ) as PruneJson;
    assert.deepEqual(named.removed.map((entry) => entry.id).sort(), ["old-open", "old-suspended"]);
    const waiting = JSON.parse(
      succeeded(await fisk(["session", "prune", "--status", "awaiting_approval", "--json", "--state-dir", dir], ws), "prune").stdout,
    ) as PruneJson;
    assert.deepEqual(
      waiting.removed.map((entry) => entry.id),
      ["old-waiting"],
    );
    assert.deepEqual(
      readdirSync(dir)
        .filter((name) => name.endsWith(".json"))
        .sort(),
      ["new-done.json", "old-done.json", "old-error.json"],
    );
  });

  it("--keep-last N keeps the N newest, and every filter must match", async () => {
    const { ws, dir } = await prunableStore();
    const kept = JSON.parse(
      succeeded(await fisk(["session", "prune", "--keep-last", "2", "--status", "completed,error", "--dry-run", "--json", "--state-dir", dir], ws), "prune")
        .stdout,
    ) as PruneJson;
    assert.deepEqual(
      kept.removed.map((entry) => entry.id),
      ["old-done"],
      "new-done and old-error are the two newest",
    );
    const all = JSON.parse(
      succeeded(await fisk(["session", "prune", "--keep-last", "0", "--status", "completed", "--older-than", "2d", "--json", "--state-dir", dir], ws), "prune")
        .stdout,
    ) as PruneJson;
    assert.deepEqual(
      all.removed.map((entry) => entry.id),
      ["old-done"],
    );
  });

  it("takes its filters from session.retention without flags, and flags replace them", async () => {
    const { ws, dir } = await prunableStore();
    writeFileSync(join(ws, "agent.yaml"), "session: { state_dir: ./state, retention: { older_than: 30d, status: [completed, error, suspended] } }\n");
    const byConfig = JSON.parse(succeeded(await fisk(["session", "prune", "--dry-run", "--json"], ws), "prune").stdout) as PruneJson;
    assert.deepEqual(
      byConfig.removed.map((entry) => entry.id),
      ["old-done", "old-suspended", "old-error"],
      "largest first",
    );
    const byFlags = JSON.parse(succeeded(await fisk(["session", "prune", "--older-than", "45d", "--dry-run", "--json"], ws), "prune").stdout) as PruneJson;
    assert.deepEqual(
      byFlags.removed.map((entry) => entry.id),
      [],
      "only old-suspended (50d) and old-open (60d) are older, and neither is named",
    );
    assert.equal(readdirSync(dir).filter((name) => name.endsWith(".json")).length, SESSIONS.length, "dry runs remove nothing");
  });

  it("refuses to run without a filter or a retention block, and bad filters, removing nothing", async () => {
    const { ws, dir } = await prunableStore();
    const before = storeBytes(dir);
    const state = ["--state-dir", dir];
    failedWith(
      await fisk(["session", "prune", ...state], ws),
      2,
      /^fisk-ai: session prune removes nothing without a filter: give --older-than AGE, --status LIST or --keep-last N, or set session.retention in agent.yaml$/,
    );
    failedWith(
      await fisk(["session", "prune", "--older-than", "3 days", ...state], ws),
      2,
      /--older-than "3 days": expected a number and a unit: 30m, 12h, 7d or 2w/,
    );
    failedWith(
      await fisk(["session", "prune", "--status", "finished", ...state], ws),
      2,
      /--status: 'finished' is not a status; give a comma-separated list of completed, error/,
    );
    failedWith(await fisk(["session", "prune", "--keep-last", "-1", ...state], ws), 2, /option --keep-last needs a value/);
    failedWith(await fisk(["session", "prune", "--keep-last", "two", ...state], ws), 2, /--keep-last takes a number of sessions, 0 or more, not 'two'/);
    writeFileSync(join(ws, "agent.yaml"), "session: { retention: { older_than: soon } }\n");
    failedWith(await fisk(["session", "prune", ...state], ws), 2, /agent.yaml: session.retention.older_than: expected an age/);
    assert.equal(storeBytes(dir), before);
  });
});

describe("fisk-ai session du and stats", () => {
  it("du lists each session's bytes, largest first, and the total the files take", async () => {
    const { ws, dir } = await prunableStore();
    const du = JSON.parse(succeeded(await fisk(["session", "du", "--json", "--state-dir", dir], ws), "du").stdout) as {
      sessions: { id: string; bytes: number }[];
      total_bytes: number;
    };
    for (const entry of du.sessions) assert.equal(entry.bytes, statSync(join(dir, `${entry.id}.json`)).size, entry.id);
    assert.deepEqual(
      du.sessions.map((entry) => entry.bytes),
      [...du.sessions.map((entry) => entry.bytes)].sort((a, b) => b - a),
    );
    assert.equal(du.total_bytes, storeBytes(dir));
    const text = succeeded(await fisk(["session", "du", "--state-dir", dir], ws), "du").stdout;
    assert.match(text, /^SIZE +ID +STATUS +TITLE\/PROMPT$/m);
    assert.match(text, new RegExp(`total \\(6 sessions, ${du.total_bytes} bytes\\)$`, "m"));
  });

  it("stats sums tokens and cost over the store, by model, with no price for a model without one", async () => {
    const ws = freshDir();
    const dir = join(ws, "state");
    const store = new FileStore({ dir });
    await plant(
      store,
      [
        { runId: "a", calls: 2, end: "completed" },
        { runId: "b", calls: 1, end: "completed", model: "llama3.2" },
        { runId: "c", calls: 3, end: "suspended", daysAgo: 10 },
      ],
      dir,
    );
    const stats = JSON.parse(succeeded(await fisk(["session", "stats", "--by", "model", "--json", "--state-dir", dir], ws), "stats").stdout) as {
      groups: { key: string; sessions: number; calls: number; in_tokens: number; cost_usd: number | null }[];
      total: { sessions: number; calls: number; cost_usd: number; unpriced: string[] };
    };
    assert.deepEqual(
      stats.groups.map((group) => [group.key, group.sessions, group.calls, group.in_tokens]),
      [
        ["claude-sonnet-4-5", 2, 5, 500],
        ["llama3.2", 1, 1, 100],
      ],
    );
    assert.ok(Math.abs((stats.groups[0]?.cost_usd ?? 0) - 5 * CALL_COST) < 1e-12);
    assert.equal(stats.groups[1]?.cost_usd, null, "no price, not a guessed one");
    assert.deepEqual([stats.total.sessions, stats.total.calls, stats.total.unpriced], [3, 6, ["llama3.2"]]);
    const recent = JSON.parse(succeeded(await fisk(["session", "stats", "--since", "7d", "--json", "--state-dir", dir], ws), "stats").stdout) as typeof stats;
    assert.deepEqual([recent.total.sessions, recent.total.calls], [2, 3], "c was last written ten days ago");
    const text = succeeded(await fisk(["session", "stats", "--by", "model", "--state-dir", dir], ws), "stats").stdout;
    assert.match(text, /^llama3\.2 +1 +1 +100 +20 +5 +7 +no price$/m);
    assert.match(text, /^total +3 +6 .*\$0\.0031 \+ no price for llama3\.2$/m);
    assert.match(text, /^prices as of \d{4}-\d{2}-\d{2}/m);

    // agent.yaml prices a local model and replaces a shipped price.
    writeFileSync(
      join(ws, "agent.yaml"),
      "pricing:\n  llama3.2: { input: 0, output: 0, cache_read: 0, cache_write: 0 }\n  claude-sonnet-4-5: { input: 1, output: 1, cache_read: 1, cache_write: 1 }\n",
    );
    const priced = JSON.parse(succeeded(await fisk(["session", "stats", "--json", "--state-dir", dir], ws), "stats").stdout) as typeof stats;
    assert.deepEqual(priced.total.unpriced, []);
    assert.ok(Math.abs(priced.total.cost_usd - (5 * 132) / 1_000_000) < 1e-12, String(priced.total.cost_usd));
  });

  it("stats --by day and --by cwd group the sessions; bad flags are refused", async () => {
    const ws = freshDir();
    const dir = join(ws, "state");
    await plant(
      new FileStore({ dir }),
      [
        { runId: "a", end: "completed" },
        { runId: "b", end: "completed", daysAgo: 3 },
      ],
      dir,
    );
    const byDay = JSON.parse(succeeded(await fisk(["session", "stats", "--by", "day", "--json", "--state-dir", dir], ws), "stats").stdout) as {
      groups: { key: string; sessions: number }[];
    };
    assert.equal(byDay.groups.length, 2);
    assert.ok((byDay.groups[0]?.key ?? "") > (byDay.groups[1]?.key ?? ""), "newest day first");
    const byCwd = JSON.parse(succeeded(await fisk(["session", "stats", "--by", "cwd", "--json", "--state-dir", dir], ws), "stats").stdout) as {
      groups: { key: string; sessions: number }[];
    };
    assert.deepEqual(byCwd.groups, [{ ...byCwd.groups[0], key: "-", sessions: 2 }], "planted sessions record no cwd");
    failedWith(await fisk(["session", "stats", "--by", "week", "--state-dir", dir], ws), 2, /--by is model, day or cwd, not 'week'/);
    failedWith(await fisk(["session", "stats", "--since", "yesterday", "--state-dir", dir], ws), 2, /--since "yesterday": expected a number and a unit/);
  });

  it("show gives the session's cost by model, and --json every call priced", async () => {
    const ws = freshDir();
    const dir = join(ws, "state");
    await plant(new FileStore({ dir }), [{ runId: "shown", calls: 2, end: "completed" }], dir);
    const text = succeeded(await fisk(["session", "show", "shown", "--state-dir", dir], ws), "show").stdout;
    assert.match(text, /^cost claude-sonnet-4-5 +\$0\.0013 for 2 calls: in 200, out 40, cache read 10, cache write 14$/m);
    assert.match(text, /^cost +\$0\.0013$/m);
    const json = JSON.parse(succeeded(await fisk(["session", "show", "shown", "--json", "--state-dir", dir], ws), "show").stdout) as {
      ledger: { cost_usd: number; calls: { seq: number; cost_usd: number }[] };
    };
    assert.deepEqual(
      json.ledger.calls.map((call) => call.seq),
      [2, 4],
    );
    assert.ok(Math.abs(json.ledger.cost_usd - 2 * CALL_COST) < 1e-12);
  });
});

describe("prices of one session", () => {
  /** The cost show gives for `runId`, run in `cwd`, and the input tokens it is for. */
  async function shownCost(runId: string, state: string, cwd: string, extra: string[] = []): Promise<{ cost: string; inTokens: number }> {
    const text = succeeded(await fisk(["session", "show", runId, "--state-dir", state, ...extra], cwd), "show").stdout;
    const [, cost, inTokens] = /^cost script-test +(no price|\$\S+) for 1 call: in (\d+),/m.exec(text) ?? assert.fail(text);
    return { cost: cost as string, inTokens: Number(inTokens) };
  }
  const pricing = (input: number) => `pricing:\n  script-test: { input: ${input}, output: 0, cache_read: 0, cache_write: 0 }\n`;

  it("come from the session's own agent.yaml wherever show runs, then --config's, never the working directory's", async () => {
    const ws = freshDir();
    writeFileSync(join(ws, "answer.script.yaml"), "turns:\n  - text: Done here.\n");
    writeFileSync(join(ws, "agent.yaml"), `provider: script\nmodel: script-test\nscript: ./answer.script.yaml\n${pricing(1_000_000)}`);
    const state = join(ws, "state");
    succeeded(await fisk(["run", "--checkpoint", "--name", "priced", "--state-dir", state, "what does it cost?"], ws), "run");
    // Elsewhere, with an agent.yaml of other prices in the working directory and in --config.
    const elsewhere = freshDir();
    writeFileSync(join(elsewhere, "answer.script.yaml"), "turns:\n  - text: Done here.\n");
    writeFileSync(join(elsewhere, "agent.yaml"), `provider: script\nmodel: script-test\nscript: ./answer.script.yaml\n${pricing(2_000_000)}`);
    const here = await shownCost("priced", state, ws);
    assert.equal(here.cost, `$${here.inTokens.toFixed(2)}`, "a dollar a token, as the session's agent.yaml says");
    assert.deepEqual(await shownCost("priced", state, elsewhere), here, "the same from another directory");
    assert.deepEqual(
      await shownCost("priced", state, elsewhere, ["--config", join(elsewhere, "agent.yaml")]),
      here,
      "the session's own prices before --config's",
    );
    // Its agent.yaml gone: --config's prices, and without --config none (script-test is in no shipped table).
    rmSync(join(ws, "agent.yaml"));
    assert.equal((await shownCost("priced", state, elsewhere, ["--config", join(elsewhere, "agent.yaml")])).cost, `$${(2 * here.inTokens).toFixed(2)}`);
    assert.equal((await shownCost("priced", state, elsewhere)).cost, "no price");
  });
});

describe("titles", () => {
  const SCRIPT = "turns:\n  - text: Done here.\n";
  function scriptWorkspace(): string {
    const ws = freshDir();
    writeFileSync(join(ws, "answer.script.yaml"), SCRIPT.repeat(1));
    writeFileSync(join(ws, "agent.yaml"), "provider: script\nmodel: script-test\nscript: ./answer.script.yaml\nsession: { state_dir: ./state }\n");
    return ws;
  }

  it("run --title names a new session; ls shows the title, else the prompt; rename and show take the title", async () => {
    const ws = scriptWorkspace();
    succeeded(await fisk(["run", "--checkpoint", "--name", "one", "--title", "Budget review", "first prompt"], ws), "run --title");
    succeeded(await fisk(["run", "--checkpoint", "--name", "two", "second prompt"], ws), "run");
    const ls = succeeded(await fisk(["session", "ls"], ws), "ls").stdout;
    assert.match(ls, /^one +completed .*Budget review$/m);
    assert.match(ls, /^two +completed .*second prompt$/m);
    assert.match(succeeded(await fisk(["session", "show", "budget review"], ws), "show by title").stdout, /^session +one$/m);
    assert.equal(succeeded(await fisk(["session", "rename", "two", "Budget forecast"], ws), "rename").stdout, 'session two is titled "Budget forecast"\n');
    const renamed = JSON.parse(succeeded(await fisk(["session", "ls", "--json"], ws), "ls").stdout) as { id: string; title: string | null; status: string }[];
    assert.deepEqual(renamed.map((entry) => [entry.id, entry.title, entry.status]).sort(), [
      ["one", "Budget review", "completed"],
      ["two", "Budget forecast", "completed"],
    ]);
    // A title that names both is refused, listing them; an exact title is not ambiguous.
    failedWith(
      await fisk(["session", "show", "budget"], ws),
      12,
      /^fisk-ai: "budget" names more than one session: two \("Budget forecast"\), one \("Budget review"\); give the session's id$/,
    );
    assert.match(succeeded(await fisk(["session", "show", "Budget forecast"], ws), "show").stdout, /^session +two$/m);
    failedWith(await fisk(["run", "--resume", "budget", "go on"], ws), 12, /names more than one session/);
    failedWith(await fisk(["session", "show", "no such title"], ws), 2, /invalid session id "no such title"/);
    failedWith(await fisk(["session", "show", "nosuch"], ws), 6, /^fisk-ai: no session nosuch/);
  });

  it("the title survives a follow-up resumed by title, an export and an import, and a fork", async () => {
    const ws = scriptWorkspace();
    writeFileSync(join(ws, "answer.script.yaml"), SCRIPT + SCRIPT.slice("turns:\n".length));
    succeeded(await fisk(["run", "--checkpoint", "--name", "kept", "--title", "Keep me", "first"], ws), "run");
    succeeded(await fisk(["run", "--resume", "Keep me", "and a follow-up"], ws), "resume by title");
    const file = join(ws, "kept.jsonl");
    succeeded(await fisk(["session", "export", "kept", "-o", file], ws), "export");
    const other = join(ws, "other");
    succeeded(await fisk(["session", "import", file, "--state-dir", other], ws), "import");
    succeeded(await fisk(["session", "fork", "kept", "--name", "kept-fork", "--state-dir", other], ws), "fork");
    const listed = JSON.parse(succeeded(await fisk(["session", "ls", "--json", "--state-dir", other], ws), "ls").stdout) as {
      id: string;
      title: string;
      last_seq: number;
    }[];
    assert.deepEqual(listed.map((entry) => [entry.id, entry.title]).sort(), [
      ["kept", "Keep me"],
      ["kept-fork", "Keep me"],
    ]);
    assert.ok((listed.find((entry) => entry.id === "kept")?.last_seq ?? 0) >= 6, "the title is at seq 2, the follow-up after it");
  });

  it("refuses an empty, multi-line or too long title, and --title without --checkpoint", async () => {
    const ws = scriptWorkspace();
    succeeded(await fisk(["run", "--checkpoint", "--name", "t", "go"], ws), "run");
    failedWith(await fisk(["session", "rename", "t", " "], ws), 2, /the title is empty/);
    failedWith(await fisk(["session", "rename", "t", "a\nb"], ws), 2, /the title is more than one line/);
    failedWith(await fisk(["session", "rename", "t", "x".repeat(201)], ws), 2, /the title is 201 characters: a title is at most 200/);
    failedWith(await fisk(["session", "rename", "t"], ws), 2, /session rename takes a session \(its id or title\) and the new title/);
    failedWith(await fisk(["run", "--title", "x", "go"], ws), 2, /--title names a checkpointed session: add --checkpoint/);
  });
});

describe("fisk-ai session search", () => {
  it("finds the title, prompt, text and tool results, newest first, with the line cut to the width", async () => {
    const ws = freshDir();
    const dir = join(ws, "state");
    const store = new FileStore({ dir });
    await plant(
      store,
      [
        { runId: "older", end: "completed", daysAgo: 2, text: "the kafka consumer lag is 4200" },
        { runId: "newer", end: "completed", title: "Kafka upgrade", daysAgo: 1 },
        { runId: "other", end: "completed", text: "nothing here" },
      ],
      dir,
    );
    const journal = await store.open("other");
    await journal.append(journal.lastSeq + 1, userEntry("check the logs"));
    await journal.append(journal.lastSeq + 1, assistantEntry(1, "looking", ["t1"]));
    await journal.append(journal.lastSeq + 1, toolResultEntry("t1", "line 1\nERROR kafka broker 3 unreachable\nline 3"));
    await journal.close();
    const found = JSON.parse(succeeded(await fisk(["session", "search", "kafka", "--json", "--state-dir", dir], ws), "search").stdout) as {
      id: string;
      field: string;
      line: string;
    }[];
    assert.deepEqual(
      found.map((hit) => [hit.id, hit.field, hit.line]),
      [
        ["other", "tool_result", "ERROR kafka broker 3 unreachable"],
        ["newer", "title", "Kafka upgrade"],
        ["older", "assistant", "the kafka consumer lag is 4200 0"],
      ],
    );
    const exact = JSON.parse(succeeded(await fisk(["session", "search", "Kafka", "--json", "--state-dir", dir], ws), "search").stdout) as { id: string }[];
    assert.deepEqual(
      exact.map((hit) => hit.id),
      ["newer"],
      "a capital matches exactly",
    );
    const text = succeeded(await fisk(["session", "search", "unreachable", "--state-dir", dir], ws), "search").stdout;
    assert.match(
      text,
      /^other {2}\d{4}-\d\d-\d\d \d\d:\d\d:\d\d {2}What is in the notes file\?\n {2}tool_result \(seq \d+\): ERROR kafka broker 3 unreachable\n$/,
    );
    assert.equal(succeeded(await fisk(["session", "search", "zebra", "--state-dir", dir], ws), "search").stdout, 'No session holds "zebra".\n');
    failedWith(await fisk(["session", "search", "--state-dir", dir], ws), 2, /session search takes the text to find/);
  });
});

describe("on JetStream", { skip: skipWithout("nats-server") }, () => {
  let server: NatsServer;
  let store: Store;
  let url: string;
  const STREAM = "CLILEDGER";

  before(async () => {
    server = await startNatsServer();
    const config = { backend: "jetstream" as const, servers: server.url, stream: STREAM, leaseTtlMs: 1000 };
    await initRunStream(config);
    store = await createStore(config);
    url = `${server.url.replace(/^nats:\/\//, "nats://")}/${STREAM}`;
    await plant(store, [
      { runId: "js-done", end: "completed", calls: 2, text: "the answer is forty-two" },
      { runId: "js-paused", end: "suspended", title: "Paused on the stream" },
    ]);
  });
  after(async () => {
    await store.close();
    await server.stop();
  });

  async function streamMessages(): Promise<number> {
    const nc = await connect({ servers: server.url });
    try {
      return (await (await jetstreamManager(nc)).streams.info(STREAM)).state.messages;
    } finally {
      await nc.close();
    }
  }

  it("search, du and stats read the stream's sessions", async () => {
    const ws = freshDir();
    const found = JSON.parse(succeeded(await fisk(["session", "search", "forty-two", "--json", "--store", url], ws), "search").stdout) as {
      id: string;
      field: string;
    }[];
    assert.deepEqual(
      found.map((hit) => [hit.id, hit.field]),
      [["js-done", "assistant"]],
    );
    const titled = JSON.parse(succeeded(await fisk(["session", "search", "stream", "--json", "--store", url], ws), "search").stdout) as {
      id: string;
      field: string;
    }[];
    assert.deepEqual(
      titled.map((hit) => [hit.id, hit.field]),
      [["js-paused", "title"]],
    );
    const du = JSON.parse(succeeded(await fisk(["session", "du", "--json", "--store", url], ws), "du").stdout) as { total_bytes: number };
    assert.equal(du.total_bytes, (await store.readJournal("js-done")).byteLength + (await store.readJournal("js-paused")).byteLength);
    const stats = JSON.parse(succeeded(await fisk(["session", "stats", "--json", "--store", url], ws), "stats").stdout) as { total: { calls: number } };
    assert.equal(stats.total.calls, 3);
  });

  it("prune purges the removed runs' messages and keeps the suspended one unless named", async () => {
    const ws = freshDir();
    const before = await streamMessages();
    const doneRecords = Buffer.from(await store.readJournal("js-done"))
      .toString()
      .trimEnd()
      .split("\n").length;
    const dry = JSON.parse(
      succeeded(await fisk(["session", "prune", "--status", "completed", "--dry-run", "--json", "--store", url], ws), "dry run").stdout,
    ) as PruneJson;
    const real = JSON.parse(succeeded(await fisk(["session", "prune", "--older-than", "0m", "--json", "--store", url], ws), "prune").stdout) as PruneJson;
    assert.deepEqual(
      real.removed.map((entry) => entry.id),
      ["js-done"],
    );
    assert.equal(real.bytes, dry.bytes);
    assert.deepEqual(
      real.protected.map((entry) => entry.id),
      ["js-paused"],
    );
    assert.equal(await streamMessages(), before - doneRecords, "every message of the removed run was purged");
    const listed = JSON.parse(succeeded(await fisk(["session", "ls", "--json", "--store", url], ws), "ls").stdout) as { id: string }[];
    assert.deepEqual(
      listed.map((entry) => entry.id),
      ["js-paused"],
    );
  });
});
