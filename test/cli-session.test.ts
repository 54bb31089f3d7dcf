// covers: src/cli/session/table.ts, src/cli/session/export.ts, src/cli/session/fork.ts
// covers: src/cli/session/import.ts, src/cli/session/ls.ts, src/cli/session/rm.ts
// covers: src/cli/session/show.ts, src/cli/session/verify.ts, src/cli/context/session-context.ts
// covers: src/cli/text/session-list.ts, src/session/verify-session.ts, src/cli/context/resolve-session.ts, src/cli/text/session-show.ts
// covers: src/cli/context/stores.ts, src/transcript/transcript-entries.ts, src/backends/file/summary-cache.ts
// covers: src/runstate/records/journal-codec.ts
// process: shared
// `fisk-ai session ls|show|rm|verify|export|import|fork` and `run --continue|--resume`,
// end to end: the real CLI (spawned, the later calls of a session subcommand in this
// process) over a store of real sessions of every
// status (made by the offline script provider, suspended with SIGINT and killed with
// SIGKILL), beside journals planted byte by byte to be corrupt, torn or too new, and
// sessions held by a live (then SIGKILLed) process.
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import {
  chmodSync,
  copyFileSync,
  realpathSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { hostname, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { JournalRecord } from "../src/index.js";
import { encodeRecord, type MetaPayload } from "../src/journal.js";
import { timeText } from "../src/cli/text/session-list.js";
import { pendingLine } from "../src/cli/text/session-show.js";
import { SUMMARY_CACHE_NAME } from "../src/backends/file/summary-cache.js";
import { holdInChild } from "./helpers/run-holder.js";
import { CLI, startCli, type CliResult } from "./helpers/cli-harness.js";
import { assistantEntry, completedRun, journalOf, metaRecord, toolResultEntry } from "./helpers/record-builders.js";
import { withoutDurations } from "./helpers/durations.js";
import { commandsInProcess } from "./helpers/in-process-cli.js";
import { eventually } from "./helpers/eventually.js";
import { runShell } from "./helpers/run-shell.js";

const ROOT = mkdtempSync(join(tmpdir(), "fisk-ai-cli-session-"));
after(() => rmSync(ROOT, { recursive: true, force: true }));

/** The workspace: agent.yaml (whose session.state_dir is ./state) and its scripts. */
const WS = join(ROOT, "ws");
const STORE = join(WS, "state");
/** A directory with no agent.yaml, for commands that must find the store some other way. */
const ELSEWHERE = join(ROOT, "elsewhere");
const XDG = join(ROOT, "xdg");
const OPEN_GATE = join(WS, "gate");

const PROMPT = "Write two notes";
const ANSWER = "Final answer: two notes.";
const MODEL = "script-test";
/** The planted journals' meta, from the record builders. */
const PLANTED_MODEL = "claude-sonnet-4-5";
const PLANTED_PROMPT = "What is in the notes file?";

const ENV: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: ROOT,
  XDG_STATE_HOME: XDG,
  NO_COLOR: "1",
  // UPDATED and created are local times: pinned, so the test can say what they read.
  TZ: "UTC",
  GATE: OPEN_GATE,
  SIDE_LOG: join(WS, "side.log"),
};

// Turn 1 is a batch of two notes, turn 2 a ten-line result (to fold), turn 3 the answer.
const MAIN_SCRIPT = `turns:
  - text: Taking notes.
    tool_calls:
      - { name: note, input: { text: one } }
      - { name: note, input: { text: two } }
  - tool_calls:
      - { name: dump }
  - text: "${ANSWER}"
`;
/** One turn with a tool, then nothing: the run asks for a turn the script lacks. */
const SHORT_SCRIPT = `turns:
  - tool_calls:
      - { name: note, input: { text: one } }
`;

function configYaml(script: string, budget = ""): string {
  return `provider: script
model: ${MODEL}
script: ./${script}
system: You keep notes.
tools:
  - name: note
    description: Append a line to the side log
    # Logs the execution, then waits for the gate: a suspend can land mid-tool.
    command: [sh, -c, 'echo "$1" >> "$SIDE_LOG"; while [ ! -e "$GATE" ]; do sleep 0.02; done; echo "noted $1"', sh, "{text}"]
    input_schema: { type: object, properties: { text: { type: string } }, required: [text] }
  - name: dump
    description: Print ten lines
    command: [seq, "1", "10"]
session: { state_dir: ./state }
${budget}
`;
}

// ---------------------------------------------------------------------------------
// Small helpers

const cli = commandsInProcess(["session", "run"]);

function fisk(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; stdin?: string } = {}): Promise<CliResult> {
  return cli(args, { cwd: options.cwd ?? WS, env: { ...ENV, ...options.env }, stdin: options.stdin });
}

/** A fresh side log for one process, so each resume's tool executions can be counted. */
let logs = 0;
function sideLog(): { env: NodeJS.ProcessEnv; executions(): string[] } {
  const path = join(ROOT, `side-${++logs}.log`);
  return {
    env: { SIDE_LOG: path },
    executions: () =>
      existsSync(path)
        ? readFileSync(path, "utf8")
            .split("\n")
            .filter((line) => line !== "")
        : [],
  };
}

/**
 * `run --resume` in a fresh process with its own side log: it must complete with the
 * script's answer, having run exactly `notes` (the unanswered tools, nothing twice).
 */
async function resumeToAnswer(args: string[], dir: string, notes: string[], what: string): Promise<CliResult> {
  const log = sideLog();
  const result = await fisk(["run", ...args, "--state-dir", dir], { env: log.env });
  assert.deepEqual([result.code, result.stdout], [0, `${ANSWER}\n`], `${what}: ${result.stderr}`);
  assert.deepEqual(log.executions(), notes, `${what}: the tools it ran`);
  return result;
}

function journalPath(dir: string, runId: string): string {
  return join(dir, `${runId}.json`);
}

function journalBytes(dir: string, runId: string): Buffer {
  return readFileSync(journalPath(dir, runId));
}

function journalLines(dir: string, runId: string): string[] {
  return journalBytes(dir, runId)
    .toString("utf8")
    .split("\n")
    .filter((line) => line !== "");
}

function journalRecords(dir: string, runId: string): JournalRecord[] {
  return journalLines(dir, runId).map((line) => JSON.parse(line) as JournalRecord);
}

/** The origin record a fork or a renamed import ends its copied records with. */
function originRecord(through: number, runId: string, kind: "fork" | "import"): object {
  return { seq: through + 1, protocol: "io.choria.fisk-ai.v1.session.origin", origin: { run_id: runId, through_seq: through, kind } };
}

function metaOf(dir: string, runId: string): MetaPayload {
  return (JSON.parse(journalLines(dir, runId)[0] as string) as { meta: MetaPayload }).meta;
}

function kinds(records: readonly JournalRecord[]): string[] {
  return records.map((record) => record.protocol.split(".").at(-1) as string);
}

/** A journal written the way the store writes one: 0600 in a 0700 directory. */
function plant(dir: string, runId: string, bytes: string | Buffer): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(journalPath(dir, runId), bytes, { mode: 0o600 });
  chmodSync(journalPath(dir, runId), 0o600);
}

function encodeAll(records: readonly JournalRecord[]): string {
  return records.map(encodeRecord).join("");
}

/** A new store holding copies of some sessions of the shared one, for tests that change them. */
let stores = 0;
function storeWith(runIds: readonly string[]): string {
  const dir = join(ROOT, `store-${++stores}`);
  mkdirSync(dir, { mode: 0o700 });
  for (const runId of runIds) plant(dir, runId, journalBytes(STORE, runId));
  return dir;
}

/** A copy of a session with its lock file too (as a crashed run leaves it). */
function storeWithLock(runId: string): string {
  const dir = storeWith([runId]);
  copyFileSync(join(STORE, `${runId}.lock`), join(dir, `${runId}.lock`));
  return dir;
}

/** Sets the journals' mtimes one minute apart, oldest first: what `updated` reads. */
function ageInOrder(dir: string, oldestFirst: readonly string[]): void {
  oldestFirst.forEach((runId, index) => utimesSync(journalPath(dir, runId), agedTime(index), agedTime(index)));
}

function agedTime(index: number): Date {
  return new Date(Date.parse("2026-01-02T03:00:00Z") + index * 60_000);
}

/** How the CLI prints a time (local, TZ=UTC here, to the second). */
function localTime(iso: string | Date): string {
  return new Date(iso).toLocaleString("sv-SE", { timeZone: "UTC" });
}

function stderrLines(result: CliResult): string[] {
  return result.stderr.split("\n").filter((line) => line !== "");
}

/** Bad input: exactly one line on stderr naming the problem, nothing on stdout, no stack trace. */
function assertOneLineError(result: CliResult, code: number, message: RegExp, what: string): void {
  assert.doesNotMatch(result.stderr, /^\s+at /m, `${what}: no stack trace`);
  assert.equal(result.stdout, "", `${what}: nothing on stdout`);
  assert.deepEqual(stderrLines(result).length, 1, `${what}: one line, got:\n${result.stderr}`);
  assert.match(stderrLines(result)[0] as string, message, what);
  assert.match(stderrLines(result)[0] as string, /^fisk-ai: /, what);
  assert.equal(result.code, code, `${what}: exit code; stderr: ${result.stderr}`);
}

function assertSucceeded(result: CliResult, what: string): void {
  assert.equal(result.code, 0, `${what}: ${result.stderr}`);
  assert.doesNotMatch(result.stderr, /^\s+at /m, what);
}

/** `session ls` table rows, split on the two-space column gaps. */
function lsRows(result: CliResult): string[][] {
  assertSucceeded(result, "session ls");
  const [header, ...rows] = result.stdout
    .trimEnd()
    .split("\n")
    .map((line) => line.split(/ {2,}/));
  assert.deepEqual(header, ["ID", "STATUS", "MODEL", "UPDATED", "TITLE/PROMPT"]);
  return rows;
}

interface ListedJson {
  id: string;
  status: string;
  holder: { pid: number; host: string; started: string } | null;
  [field: string]: unknown;
}

/** `session show` fields: `name  value` lines up to the first blank line. */
function showFields(result: CliResult): Map<string, string> {
  assertSucceeded(result, "session show");
  const head = result.stdout.split("\n\n")[0] as string;
  return new Map(
    head
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => {
        const match = /^(\S+(?: \S+)*?) {2,}(.*)$/.exec(line);
        assert.ok(match !== null, `not a field line: ${JSON.stringify(line)}`);
        return [match[1] as string, match[2] as string];
      }),
  );
}

async function sigkill(child: ChildProcess): Promise<void> {
  const exited = once(child, "exit");
  child.kill("SIGKILL");
  await exited;
}

// ---------------------------------------------------------------------------------
// The shared store: one session of every status, built once.

/** Oldest first; `session ls` must print them the other way round. */
const GOOD = ["done", "paused", "crashed", "broke", "spent", "capped"] as const;
const PLANTED = ["interior", "torn", "future"] as const;
const ALL = [...GOOD, ...PLANTED];

async function startSession(runId: string, config: string, env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return fisk(["run", "--config", config, "--checkpoint", "--name", runId, PROMPT], { env });
}

/** SIGINT while the first note waits on its gate: the batch finishes, then `suspended`. */
async function suspendSession(runId: string): Promise<void> {
  const log = sideLog();
  const gate = join(ROOT, `gate-${runId}`);
  const run = startCli(["run", "--checkpoint", "--name", runId, PROMPT], { cwd: WS, env: { ...ENV, ...log.env, GATE: gate } });
  await eventually(() => log.executions().includes("one"), "the first note to start");
  run.child.kill("SIGINT");
  await run.stderrIncludes("suspending at the next step");
  writeFileSync(gate, "");
  const result = await run.done;
  assert.equal(result.code, 3, result.stderr);
}

/** Journals no run would write: a bad interior line, a torn final write, a newer version. */
function plantBadJournals(dir: string): void {
  const interior = encodeAll(completedRun("interior")).split("\n");
  interior[2] = "{not json";
  plant(dir, "interior", interior.join("\n"));
  const torn = completedRun("torn");
  plant(dir, "torn", encodeAll(torn.slice(0, -1)) + encodeRecord(torn.at(-1) as JournalRecord).slice(0, 25));
  plant(dir, "future", encodeAll([metaRecord("future", { version: 6 }), ...completedRun("future").slice(1)]));
}

before(async () => {
  mkdirSync(WS);
  mkdirSync(ELSEWHERE);
  mkdirSync(join(ROOT, "broken-config"));
  writeFileSync(join(ROOT, "broken-config", "agent.yaml"), "tools: {nonsense\n");
  writeFileSync(OPEN_GATE, "");
  writeFileSync(join(WS, "main.script.yaml"), MAIN_SCRIPT);
  writeFileSync(join(WS, "short.script.yaml"), SHORT_SCRIPT);
  writeFileSync(join(WS, "agent.yaml"), configYaml("main.script.yaml"));
  writeFileSync(join(WS, "short.yaml"), configYaml("short.script.yaml"));
  writeFileSync(join(WS, "budget.yaml"), configYaml("main.script.yaml", "budget: { max_tokens: 10 }"));
  writeFileSync(join(WS, "capped.yaml"), configYaml("main.script.yaml", "budget: { max_iterations: 1 }"));

  const done = await startSession("done", "agent.yaml");
  assert.deepEqual([done.code, done.stdout], [0, `${ANSWER}\n`], done.stderr);
  await suspendSession("paused");
  // Killed between the two results of the first batch: open, with a pending batch.
  const crashed = await startSession("crashed", "agent.yaml", { FISK_AI_TEST_CRASH_AT: "after-tool:1" });
  assert.equal(crashed.signal, "SIGKILL", crashed.stderr);
  assert.equal((await startSession("broke", "short.yaml")).code, 1);
  assert.equal((await startSession("spent", "budget.yaml")).code, 4);
  assert.equal((await startSession("capped", "capped.yaml")).code, 5);
  plantBadJournals(STORE);
  ageInOrder(STORE, ALL);
});

// ---------------------------------------------------------------------------------

describe("fisk-ai session ls", () => {
  it("lists every session newest first: ID, STATUS (terminal reason, open, corrupt), MODEL, UPDATED, TITLE/PROMPT, as session --help says", async () => {
    const help = await fisk(["session", "--help"]);
    assert.match(help.stdout, /newest first: ID, STATUS, MODEL, UPDATED, TITLE\/PROMPT/);
    const rows = lsRows(await fisk(["session", "ls"]));
    const expected = new Map<string, string[]>([
      ["done", ["completed", MODEL, PROMPT]],
      ["paused", ["suspended", MODEL, PROMPT]],
      // Open, and no worker pool entry for it: an orphan `worker --adopt` would take.
      ["crashed", ["open (orphaned)", MODEL, PROMPT]],
      ["broke", ["error", MODEL, PROMPT]],
      ["spent", ["budget", MODEL, PROMPT]],
      ["capped", ["max_iterations", MODEL, PROMPT]],
      // ls's digest reads every record: a bad interior line makes the session corrupt, naming the line.
      ["interior", ["corrupt", "-", "session interior: line 3 is not valid JSON"]],
      // The torn final write is left out: the last complete record is an assistant turn.
      ["torn", ["open (orphaned)", PLANTED_MODEL, PLANTED_PROMPT]],
    ]);
    assert.deepEqual(
      rows.map((row) => row[0]),
      [...ALL].reverse(),
      "newest first",
    );
    ALL.forEach((runId, index) => {
      const row = rows.find((candidate) => candidate[0] === runId) as string[];
      assert.equal(row[3], localTime(agedTime(index)), `${runId} UPDATED`);
      if (runId === "future") {
        // Unreadable: the problem, naming both versions, stands where the prompt would.
        assert.deepEqual(row.slice(1, 3), ["corrupt", "-"]);
        assert.match(row[4] as string, /record version 6, newer than the version 5/);
      } else {
        assert.deepEqual([row[1], row[2], row[4]], expected.get(runId), runId);
      }
    });
  });

  it("--json prints an array with the documented field names and values, newest first", async () => {
    const result = await fisk(["session", "ls", "--json"]);
    assertSucceeded(result, "ls --json");
    const listed = JSON.parse(result.stdout) as ListedJson[];
    assert.deepEqual(
      listed.map((entry) => entry.id),
      [...ALL].reverse(),
    );
    for (const entry of listed) {
      assert.deepEqual(Object.keys(entry), [
        "id",
        "status",
        "holder",
        "provider",
        "model",
        "created",
        "updated",
        "last_seq",
        "prompt",
        "cwd",
        "problem",
        "title",
        "origin",
        "bytes",
        "parent",
        "orphaned",
      ]);
    }
    const done = listed.find((entry) => entry.id === "done") as ListedJson;
    const records = journalRecords(STORE, "done");
    assert.deepEqual(done, {
      id: "done",
      status: "completed",
      holder: null,
      provider: "script",
      model: MODEL,
      created: metaOf(STORE, "done").created,
      updated: agedTime(0).toISOString(),
      last_seq: records.length,
      prompt: PROMPT,
      cwd: realpathSync(WS),
      problem: null,
      title: null,
      origin: null,
      bytes: statSync(join(STORE, "done.json")).size,
      parent: null,
      orphaned: false,
    });
    const future = listed.find((entry) => entry.id === "future") as ListedJson;
    assert.deepEqual([future.status, future.model, future.prompt, future.last_seq], ["corrupt", null, null, 0]);
    assert.match(String(future.problem), /version 6/);
  });

  it("says so when the store is empty, and --json prints []", async () => {
    // No agent.yaml here, no flag: the XDG default, which does not exist yet.
    const empty = await fisk(["session", "ls"], { cwd: ELSEWHERE });
    assertSucceeded(empty, "ls");
    assert.equal(empty.stdout, `No sessions in ${join(XDG, "fisk-ai", "runs")}.\n`);
    const json = await fisk(["session", "ls", "--json"], { cwd: ELSEWHERE });
    assert.deepEqual([json.code, json.stdout], [0, "[]\n"]);
  });

  it("finds the store by the config's session.state_dir (./agent.yaml or --config) or --state-dir, and --state-dir wins", async () => {
    const [byCwd, byConfig, byFlag, flagWins] = await Promise.all([
      fisk(["session", "ls"]),
      // Relative to the config file, not to where the command runs.
      fisk(["session", "ls", "--config", join(WS, "agent.yaml")], { cwd: ELSEWHERE }),
      fisk(["session", "ls", "--state-dir", STORE], { cwd: ELSEWHERE }),
      fisk(["session", "ls", "--state-dir", join(ROOT, "nothing-here")]),
    ]);
    assert.equal(lsRows(byCwd).length, ALL.length);
    assert.equal(byConfig.stdout, byCwd.stdout);
    assert.equal(byFlag.stdout, byCwd.stdout);
    assert.equal(flagWins.stdout, `No sessions in ${join(ROOT, "nothing-here")}.\n`);
  });
});

describe("fisk-ai session show", () => {
  /** Token totals straight from the journal's assistant records. */
  function tokensOf(runId: string): string {
    let inTokens = 0;
    let outTokens = 0;
    for (const record of journalRecords(STORE, runId)) {
      if (record.protocol === "io.choria.fisk-ai.v1.session.assistant") {
        inTokens += record.assistant.in_tokens;
        outTokens += record.assistant.out_tokens;
      }
    }
    return `in ${inTokens}, out ${outTokens}, cache read 0, cache write 0`;
  }

  const expected: Record<(typeof GOOD)[number], { status: string | RegExp; next: number; modelCalls: number; toolCalls: number; pending?: string }> = {
    done: { status: "completed", next: 3, modelCalls: 3, toolCalls: 3 },
    paused: { status: "suspended (suspended by the operator)", next: 1, modelCalls: 1, toolCalls: 2 },
    crashed: {
      status: "open",
      next: 1,
      modelCalls: 1,
      toolCalls: 1,
      pending: "2 tool calls, 1 answered; unanswered: note (toolu_script_1_2, on_crash: rerun)",
    },
    broke: {
      status: /^error \(model call failed: script .*short\.script\.yaml has 1 turns and the run asked for turn 2/,
      next: 1,
      modelCalls: 1,
      toolCalls: 1,
    },
    // Stopped before the turn's tools ran: they are left pending.
    spent: {
      status: /^budget \(token budget reached: \d+ of 10 tokens used\)$/,
      next: 1,
      modelCalls: 1,
      toolCalls: 0,
      pending: "2 tool calls, 0 answered; unanswered: note (toolu_script_1_1, on_crash: rerun), note (toolu_script_1_2, on_crash: rerun)",
    },
    capped: { status: "max_iterations (iteration cap reached: 1 model calls)", next: 1, modelCalls: 1, toolCalls: 2 },
  };

  it("shows status, provider, model, created, updated, next iteration, counters, token tiers, pending batch and prompt, for every status", async () => {
    const results = await Promise.all(GOOD.map((runId) => fisk(["session", "show", runId])));
    GOOD.forEach((runId, index) => {
      const fields = showFields(results[index] as CliResult);
      const want = expected[runId];
      assert.deepEqual(
        [...fields.keys()],
        [
          "session",
          "status",
          "provider",
          "model",
          "created",
          "updated",
          "next iteration",
          "model calls",
          "tool calls",
          "tokens",
          `cost ${MODEL}`,
          "cost",
          ...(want.pending === undefined ? [] : ["pending"]),
          "prompt",
        ],
        runId,
      );
      const { status, ...rest } = Object.fromEntries(fields);
      if (typeof want.status === "string") assert.equal(status, want.status, runId);
      else assert.match(status as string, want.status, runId);
      assert.deepEqual(
        rest,
        {
          session: runId,
          provider: "script",
          model: MODEL,
          created: localTime(metaOf(STORE, runId).created),
          updated: localTime(agedTime(index)),
          "next iteration": String(want.next),
          "model calls": String(want.modelCalls),
          "tool calls": String(want.toolCalls),
          tokens: tokensOf(runId),
          // The script provider's model has no price: its tokens, and no made-up cost.
          [`cost ${MODEL}`]: `no price for ${want.modelCalls} call${want.modelCalls === 1 ? "" : "s"}: ${tokensOf(runId)}`,
          cost: "no price",
          ...(want.pending === undefined ? {} : { pending: want.pending }),
          prompt: PROMPT,
        },
        runId,
      );
    });
  });

  it("shows the on_crash policy of each pending call by the config's tools (--config, else the recorded one, else ./agent.yaml), and none where no config is found", async () => {
    writeFileSync(
      join(WS, "never.yaml"),
      configYaml("main.script.yaml").replace(
        "    input_schema: { type: object, properties: { text: { type: string } }, required: [text] }",
        "$&\n    on_crash: never",
      ),
    );
    // A copy whose recorded agent.yaml is gone.
    const moved = storeWith([]);
    const [metaLine, ...rest] = journalLines(STORE, "crashed");
    const record = JSON.parse(metaLine as string) as { meta: MetaPayload };
    plant(moved, "crashed", [JSON.stringify({ ...record, meta: { ...record.meta, config: join(ROOT, "gone", "agent.yaml") } }), ...rest, ""].join("\n"));
    const [never, recorded, noConfig, brokenLocal] = await Promise.all([
      fisk(["session", "show", "crashed", "--config", "never.yaml"]),
      fisk(["session", "show", "crashed", "--state-dir", STORE], { cwd: ELSEWHERE }),
      fisk(["session", "show", "crashed", "--state-dir", moved], { cwd: ELSEWHERE }),
      fisk(["session", "show", "crashed", "--state-dir", moved], { cwd: join(ROOT, "broken-config") }),
    ]);
    assert.equal(showFields(never).get("pending"), "2 tool calls, 1 answered; unanswered: note (toolu_script_1_2, on_crash: never)");
    assert.equal(
      showFields(recorded).get("pending"),
      "2 tool calls, 1 answered; unanswered: note (toolu_script_1_2, on_crash: rerun)",
      "the agent.yaml the session recorded, from anywhere",
    );
    assert.equal(showFields(noConfig).get("pending"), "2 tool calls, 1 answered; unanswered: note (toolu_script_1_2)");
    assert.equal(
      pendingLine([{ name: "note", id: "toolu_1" }], new Set(), () => undefined),
      "1 tool call, 0 answered; unanswered: note (toolu_1)",
    );
    assert.equal(
      showFields(brokenLocal).get("pending"),
      "2 tool calls, 1 answered; unanswered: note (toolu_script_1_2)",
      "an agent.yaml that does not load is not the session's to show",
    );
    assertOneLineError(
      await fisk(["session", "show", "crashed", "--state-dir", STORE, "--config", "missing.yaml"]),
      2,
      /cannot read config missing\.yaml/,
      "an explicit --config must load",
    );
  });

  it("--transcript prints the conversation with long tool results folded to four lines, and --full prints them whole", async () => {
    const [folded, full] = await Promise.all([fisk(["session", "show", "done", "--transcript"]), fisk(["session", "show", "done", "--transcript", "--full"])]);
    assertSucceeded(folded, "--transcript");
    const conversation = (result: CliResult) => withoutDurations(result.stdout.slice(result.stdout.indexOf("\n\n") + 2));
    assert.equal(
      conversation(folded),
      [
        `› ${PROMPT}`,
        "Taking notes.",
        '→ note {"text":"one"}',
        '→ note {"text":"two"}',
        "← note: noted one",
        "← note: noted two",
        "→ dump {}",
        "← dump: 1",
        "  2",
        "  3",
        "  4",
        "  … 6 more lines (--full shows them)",
        ANSWER,
        "",
      ].join("\n"),
    );
    assertSucceeded(full, "--transcript --full");
    assert.doesNotMatch(full.stdout, /more lines/);
    assert.match(conversation(full), /← dump: 1\n *2\n *3\n *4\n *5\n *6\n *7\n *8\n *9\n *10\nFinal answer/);
  });

  it("--transcript of a session killed mid-batch shows the pending turn and the results it has", async () => {
    const result = await fisk(["session", "show", "crashed", "--transcript"]);
    assertSucceeded(result, "show crashed --transcript");
    assert.match(
      withoutDurations(result.stdout),
      /\n\n› Write two notes\nTaking notes\.\n→ note \{"text":"one"\}\n→ note \{"text":"two"\}\n← note: noted one\n$/,
    );
  });

  it("--json prints the folded state: the ls fields plus next_iteration, counters, pending, approvals, terminal, fingerprint, compactions, ledger, then messages", async () => {
    const [crashed, capped] = await Promise.all([fisk(["session", "show", "crashed", "--json"]), fisk(["session", "show", "capped", "--json"])]);
    assertSucceeded(crashed, "show --json");
    const state = JSON.parse(crashed.stdout) as Record<string, unknown>;
    assert.deepEqual(Object.keys(state), [
      "id",
      "status",
      "holder",
      "provider",
      "model",
      "created",
      "updated",
      "last_seq",
      "prompt",
      "cwd",
      "problem",
      "title",
      "origin",
      "bytes",
      "parent",
      "next_iteration",
      "counters",
      "pending",
      "approvals",
      "uncounted_decisions",
      "terminal",
      "fingerprint",
      "compactions",
      "ledger",
      "foreign",
      "messages",
    ]);
    assert.deepEqual([state.uncounted_decisions, state.foreign], [[], null]);
    assert.equal(state.status, "open");
    assert.equal(state.next_iteration, 1);
    assert.deepEqual(Object.keys(state.counters as object), [
      "model_calls",
      "tool_calls",
      "remote_tool_calls",
      "in_tokens",
      "out_tokens",
      "cache_read_tokens",
      "cache_create_tokens",
      "compaction_calls",
      "compaction_in_tokens",
      "compaction_out_tokens",
    ]);
    assert.deepEqual(state.compactions, []);
    const counters = state.counters as Record<string, number>;
    assert.deepEqual([counters.model_calls, counters.tool_calls, counters.remote_tool_calls], [1, 1, 0]);
    assert.deepEqual(state.pending, {
      seq: 2,
      tool_uses: [
        { id: "toolu_script_1_1", name: "note", input: { text: "one" } },
        { id: "toolu_script_1_2", name: "note", input: { text: "two" } },
      ],
      answered: ["toolu_script_1_1"],
    });
    assert.equal(state.terminal, null);
    assert.equal((state.fingerprint as { provider: string }).provider, "script");
    // The committed prefix only: the prompt; the pending turn is not part of it yet.
    assert.deepEqual(state.messages, [{ role: "user", content: [{ type: "text", text: PROMPT }] }]);
    const cappedState = JSON.parse(capped.stdout) as { terminal: unknown; pending: unknown; messages: unknown[] };
    assert.deepEqual(cappedState.terminal, { reason: "max_iterations", message: "iteration cap reached: 1 model calls" });
    assert.deepEqual([cappedState.pending, cappedState.messages.length], [null, 3]);
  });

  it("shows a session whose final write is torn, from its complete records", async () => {
    const fields = showFields(await fisk(["session", "show", "torn"]));
    assert.deepEqual([fields.get("status"), fields.get("model calls"), fields.get("tool calls")], ["open", "2", "2"]);
  });
});

describe("fisk-ai session verify", () => {
  it("passes every clean session, of every status, with exit 0", async () => {
    const result = await fisk(["session", "verify", ...GOOD]);
    assertSucceeded(result, "verify");
    assert.equal(result.stdout, GOOD.map((runId) => `${runId}: ok, ${journalLines(STORE, runId).length} records\n`).join(""));
  });

  describe("over journals with every kind of problem", () => {
    let dir: string;
    let result: CliResult;
    let problemsOf: (runId: string) => string[];
    before(async () => {
      dir = storeWith(["torn", "interior", "future", "done"]);
      const badSchema = journalOf("schema", assistantEntry(0, "Looking.", ["toolu_1"])).map(encodeRecord);
      badSchema[1] = (badSchema[1] as string).replace('"in_tokens":100', '"in_tokens":"many"');
      plant(dir, "schema", badSchema.join(""));
      // A repeated seq: the fold fails on line 3, whose record says seq 2.
      const repeated = journalOf("refold", assistantEntry(0, "Looking.", ["toolu_1"]));
      plant(dir, "refold", encodeAll([...repeated, { ...(repeated[1] as JournalRecord) }]));
      // Newer versions only add records or optional fields (SPEC 2): one that did.
      const added = metaRecord("added", { version: 6 });
      plant(dir, "added", encodeAll([{ ...added, meta: { ...added.meta, added_in_v3: true } } as JournalRecord, ...completedRun("added").slice(1)]));
      result = await fisk(["session", "verify", "torn", "interior", "schema", "refold", "future", "done", "--state-dir", dir]);
      problemsOf = (runId) => result.stdout.split("\n").filter((line) => line.startsWith(`${runId}: `));
    });

    it("reports a torn tail (repairable), bad JSON and a schema violation at their lines, one line a problem, goes on to the clean one, exits 8", () => {
      assert.doesNotMatch(result.stderr, /^\s+at /m);
      assert.deepEqual(problemsOf("torn"), [
        `torn: torn_tail: line 6 is a torn final write (25 bytes): it is cut when the session is next resumed (repairable)`,
      ]);
      assert.deepEqual(problemsOf("interior"), ["interior: invalid_json: line 3 is not valid JSON"]);
      assert.equal(problemsOf("schema").length, 1);
      assert.match(problemsOf("schema")[0] as string, /^schema: invalid_record: line 2 is not a valid record: .*in_tokens/);
      assert.deepEqual(problemsOf("done"), [`done: ok, ${journalLines(STORE, "done").length} records`]);
      assert.deepEqual([problemsOf("refold").length, problemsOf("future").length], [1, 1]);
      assert.equal(result.code, 8);
    });

    it("reports a fold error and a newer version with their lines too", () => {
      assert.match(problemsOf("refold")[0] ?? "", /^refold: fold: .*line 3\b/);
      assert.match(problemsOf("future")[0] ?? "", /^future: version: .*line 1\b.*version 6.*version 5/);
    });

    it("takes a newer version that adds a field for a newer version, not for a corrupt journal (verify, show, import)", async () => {
      const file = join(ROOT, "added.jsonl");
      writeFileSync(file, journalBytes(dir, "added"));
      const [verify, show, imported] = await Promise.all([
        fisk(["session", "verify", "added", "--state-dir", dir]),
        fisk(["session", "show", "added", "--state-dir", dir]),
        fisk(["session", "import", file, "--state-dir", join(ROOT, "added-store")]),
      ]);
      assert.equal(verify.code, 8);
      assert.match(verify.stdout, /^added: version: .*version 6.*version 5/);
      assertOneLineError(show, 8, /record version 6, newer than the version 5/, "show of a newer version");
      assertOneLineError(imported, 8, /record version 6, newer than the version 5/, "import of a newer version");
    });
  });

  it("goes on past an unknown or invalid id, each reported on one stderr line", async () => {
    const result = await fisk(["session", "verify", "nope", "done", "../x"]);
    assert.equal(result.stdout, `done: ok, ${journalLines(STORE, "done").length} records\n`);
    assert.deepEqual(stderrLines(result).length, 2, result.stderr);
    assert.match(result.stderr, /^fisk-ai: no session nope: .*\nfisk-ai: invalid session id "\.\.\/x": /);
    assert.doesNotMatch(result.stderr, /^\s+at /m);
    assert.notEqual(result.code, 0);
  });
});

describe("journals made by hand or by a hostile party: every reader refuses what verify reports", () => {
  let dir: string;
  before(() => {
    dir = join(ROOT, "hostile");
    const pending = (runId: string) => encodeAll(journalOf(runId, assistantEntry(0, "Looking.", ["toolu_1"])));
    // 100,000 levels inside a tool input: built as text, as JSON.stringify itself would overflow.
    const depth = 100_000;
    plant(dir, "deep", pending("deep").replace('"input":{"text":"toolu_1"}', `"input":${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`));
    const lines = encodeAll(journalOf("badutf8", assistantEntry(0, "Looking.", ["toolu_1"]), toolResultEntry("toolu_1", "cafe")));
    const [head, tail] = lines.split("cafe") as [string, string];
    plant(dir, "badutf8", Buffer.concat([Buffer.from(head), Buffer.from([0x63, 0x61, 0x66, 0xff]), Buffer.from(tail)]));
    plant(dir, "misnamed", pending("other"));
    plant(dir, "halfver", encodeAll(journalOf("halfver", assistantEntry(0, "Looking.", ["toolu_1"]))).replace('"version":2', '"version":2.5'));
  });

  const expected: [string, string, RegExp][] = [
    ["deep", "invalid_record", /line 2 is not a valid record: it nests deeper than 1000 levels/],
    ["badutf8", "invalid_json", /line 3 is not valid UTF-8/],
    ["misnamed", "misnamed", /holds session other, not misnamed: rename it back, or import it under a new name/],
    ["halfver", "invalid_record", /line 1 is not a valid record: .*version/],
  ];

  it("verify reports each problem at its line and exits 8", async () => {
    const result = await fisk(["session", "verify", ...expected.map(([runId]) => runId), "--state-dir", dir]);
    assert.equal(result.code, 8, result.stderr);
    for (const [runId, kind, message] of expected) {
      const lines = result.stdout.split("\n").filter((line) => line.startsWith(`${runId}: `));
      assert.equal(lines.length, 1, `${runId}: ${result.stdout}`);
      assert.ok(lines[0]?.startsWith(`${runId}: ${kind}: `), lines[0]);
      assert.match(lines[0] as string, message);
    }
  });

  it("show, export and run --resume refuse each in one line naming the session (8), and ls lists each as corrupt", async () => {
    for (const [runId, , message] of expected) {
      const [show, exported, resumed] = await Promise.all([
        fisk(["session", "show", runId, "--state-dir", dir]),
        fisk(["session", "export", runId, "--state-dir", dir]),
        fisk(["run", "--resume", runId, "--state-dir", dir]),
      ]);
      for (const [what, result] of [
        ["show", show],
        ["export", exported],
        ["resume", resumed],
      ] as const) {
        assertOneLineError(result, 8, message, `${what} ${runId}`);
        assert.match(result.stderr, new RegExp(`session ${runId}\\b`), `${what} ${runId} names the session`);
      }
    }
    const listed = await fisk(["session", "ls", "--json", "--state-dir", dir]);
    assertSucceeded(listed, "ls");
    const statuses = Object.fromEntries((JSON.parse(listed.stdout) as { id: string; status: string }[]).map(({ id, status }) => [id, status]));
    assert.deepEqual(statuses, { deep: "corrupt", badutf8: "corrupt", misnamed: "corrupt", halfver: "corrupt" });
  });
});

describe("session times", () => {
  it("are local time to the second, as the sv-SE locale writes them, in any zone", () => {
    const zone = process.env.TZ;
    try {
      for (const tz of ["UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata"]) {
        process.env.TZ = tz;
        for (const iso of ["2026-01-02T03:04:05.678Z", "2026-07-15T23:59:59.999Z", "1999-12-31T18:30:00Z"]) {
          assert.equal(timeText(iso), new Date(iso).toLocaleString("sv-SE"), `${iso} in ${tz}`);
        }
      }
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });
});

describe("fisk-ai session rm", () => {
  it("removes sessions of every status, unreadable ones too, journal and lock, and ls no longer lists them", async () => {
    const dir = storeWith(ALL);
    const result = await fisk(["session", "rm", ...ALL, "--state-dir", dir]);
    assertSucceeded(result, "rm");
    assert.equal(result.stdout, ALL.map((runId) => `removed ${runId}\n`).join(""));
    // rm lists the store to find child sessions: the summary cache that leaves is derived, not a session's.
    assert.deepEqual(
      readdirSync(dir).filter((name) => name !== ".summaries"),
      [],
    );
    assert.equal((await fisk(["session", "ls", "--state-dir", dir])).stdout, `No sessions in ${dir}.\n`);
  });

  it("an unknown or invalid id does not stop the others: each is one stderr line, and the exit code is 1 (partly failed)", async () => {
    const dir = storeWith(["done", "paused"]);
    const result = await fisk(["session", "rm", "done", "nope", "../x", "paused", "--state-dir", dir]);
    assert.equal(result.stdout, "removed done\nremoved paused\n");
    assert.deepEqual(
      readdirSync(dir).filter((name) => name !== ".summaries"),
      [],
    );
    assert.deepEqual(stderrLines(result).length, 2, result.stderr);
    assert.match(result.stderr, /^fisk-ai: no session nope: .*\nfisk-ai: invalid session id "\.\.\/x": /);
    assert.doesNotMatch(result.stderr, /^\s+at /m);
    assert.equal(result.code, 1, "some ids were removed, some failed: exit 1 (see exit-codes.ts: a command partly failed)");
  });
});

describe("a session held by another process", () => {
  it("while a live process holds it: ls and show say running PID@HOST, rm and resume are refused (7) naming the pid, reads still work", async () => {
    const dir = storeWith(["crashed"]);
    const { child, pid } = await holdInChild(dir, "crashed");
    try {
      const state = ["--state-dir", dir];
      const [ls, lsJson, show, rm, resume, resumeLatest, verify, exported] = await Promise.all([
        fisk(["session", "ls", ...state]),
        fisk(["session", "ls", "--json", ...state]),
        fisk(["session", "show", "crashed", ...state]),
        fisk(["session", "rm", "crashed", ...state]),
        fisk(["run", "--resume", "crashed", ...state]),
        fisk(["run", "--continue", ...state]),
        fisk(["session", "verify", "crashed", ...state]),
        fisk(["session", "export", "crashed", ...state]),
      ]);
      const holder = `${pid}@${hostname()}`;
      assert.deepEqual(
        lsRows(ls).map((row) => row.slice(0, 2)),
        [["crashed", `running ${holder}`]],
      );
      const [listed] = JSON.parse(lsJson.stdout) as ListedJson[];
      assert.deepEqual([listed?.status, listed?.holder?.pid, listed?.holder?.host], ["running", pid, hostname()]);
      assert.equal(showFields(show).get("status"), `running ${holder}`);
      const inUse = new RegExp(`session crashed is in use by pid ${pid} on ${hostname()}`);
      assertOneLineError(rm, 7, inUse, "rm of a held session");
      assertOneLineError(resume, 7, inUse, "resume of a held session");
      // A running session is not one --continue may take.
      assertOneLineError(resumeLatest, 6, /no session to continue/, "--continue with only a running session");
      assertSucceeded(verify, "verify of a held session");
      assertSucceeded(exported, "export of a held session");
      assert.ok(Buffer.from(exported.stdout).equals(journalBytes(STORE, "crashed")));
      assert.ok(existsSync(journalPath(dir, "crashed")), "the refused rm removed nothing");
    } finally {
      await sigkill(child);
    }
  });

  it("once that process is SIGKILLed the lock dies with it: ls shows the real status, resume completes, rm removes", async () => {
    const dir = storeWith(["crashed"]);
    const { child, pid } = await holdInChild(dir, "crashed");
    await sigkill(child);
    // The dead holder's note is still in the lock file: only the kernel's lock decides.
    assert.equal((JSON.parse(readFileSync(join(dir, "crashed.lock"), "utf8")) as { pid: number }).pid, pid);
    const state = ["--state-dir", dir];
    assert.deepEqual(
      lsRows(await fisk(["session", "ls", ...state])).map((row) => row.slice(0, 2)),
      [["crashed", "open (orphaned)"]],
    );
    assert.equal(showFields(await fisk(["session", "show", "crashed", ...state])).get("status"), "open");
    await resumeToAnswer(["--resume", "crashed"], dir, ["two"], "resume after the holder died");
    const removed = await fisk(["session", "rm", "crashed", ...state]);
    assert.deepEqual([removed.code, removed.stdout], [0, "removed crashed\n"], removed.stderr);
  });

  it("the session a SIGKILLed run left behind (its lock note naming the dead pid) is open, not running", async () => {
    const note = JSON.parse(readFileSync(join(STORE, "crashed.lock"), "utf8")) as { pid: number };
    assert.ok(note.pid > 0, "the killed run left its note");
    const [row] = lsRows(await fisk(["session", "ls", "--state-dir", storeWithLock("crashed")])).map((cells) => cells[1]);
    assert.equal(row, "open (orphaned)", "open, and nobody holds it: an orphan worker --adopt would take");
  });
});

describe("fisk-ai session export and import", () => {
  it("export -o writes the journal byte for byte, 0600; without -o it goes to stdout", async () => {
    const file = join(ROOT, "paused.export.jsonl");
    const [toFile, toStdout] = await Promise.all([fisk(["session", "export", "paused", "-o", file]), fisk(["session", "export", "crashed"])]);
    assertSucceeded(toFile, "export -o");
    assert.deepEqual([toFile.stdout, toFile.stderr], ["", ""]);
    assert.ok(readFileSync(file).equals(journalBytes(STORE, "paused")), "the file is the journal");
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assertSucceeded(toStdout, "export");
    assert.ok(Buffer.from(toStdout.stdout).equals(journalBytes(STORE, "crashed")));
  });

  it("export leaves out a torn final write, saying so on stderr", async () => {
    const result = await fisk(["session", "export", "torn"]);
    assertSucceeded(result, "export torn");
    assert.equal(result.stdout, encodeAll(completedRun("torn").slice(0, -1)));
    assert.match(result.stderr, /^fisk-ai: left out the torn final line of session torn\n$/);
  });

  it("export -o onto a directory fails in one line naming FILE, and leaves no temporary file beside it", async () => {
    const target = join(ROOT, "export-target");
    mkdirSync(target);
    const result = await fisk(["session", "export", "done", "-o", target]);
    assert.notEqual(result.code, 0);
    // The journal holds the prompts: a copy of it must not be left lying around.
    assert.deepEqual(
      readdirSync(ROOT).filter((name) => name.startsWith("export-target.")),
      [],
      "no temporary file left",
    );
    assert.equal(stderrLines(result).length, 1, result.stderr);
    assert.doesNotMatch(result.stderr, /^\s+at /m);
    assert.doesNotMatch(result.stderr, /\.tmp-\d+/, "the error names FILE, not a temporary file");
  });

  it("export then import into another --state-dir round-trips byte for byte, and both resume to the same answer and records", async () => {
    const original = storeWith(["crashed"]);
    const other = join(ROOT, "imported-store");
    const file = join(ROOT, "crashed.export.jsonl");
    assertSucceeded(await fisk(["session", "export", "crashed", "-o", file, "--state-dir", original]), "export");
    const imported = await fisk(["session", "import", file, "--state-dir", other]);
    assertSucceeded(imported, "import");
    assert.equal(imported.stdout, `imported session crashed; resume with: ${resumeHint("crashed", other)}\n`);
    const originalBytes = journalBytes(original, "crashed");
    assert.ok(journalBytes(other, "crashed").subarray(0, originalBytes.length).equals(originalBytes), "the imported journal starts with the original's bytes");
    assert.equal(JSON.parse(journalLines(other, "crashed").at(-1) as string).protocol, "io.choria.fisk-ai.v1.session.imported", "then its import mark");
    assert.equal(statSync(journalPath(other, "crashed")).mode & 0o777, 0o600);

    // Imported, its meta unsigned: foreign (docs/security.md). It resumes with the configuration
    // named, and the call its batch was cut at waits for a decision signed here before it runs.
    await resumeToAnswer(["--resume", "crashed"], original, ["two"], "the original");
    const config = ["--config", join(WS, "agent.yaml")];
    const parked = await fisk(["run", "--resume", "crashed", ...config, "--state-dir", other]);
    assert.equal(parked.code, 10, parked.stderr);
    assert.match(parked.stderr, /waits for a decision on 1 call:\n +toolu_script_1_2 +note/);
    assertSucceeded(await fisk(["session", "approve", "crashed", "--state-dir", other]), "approve");
    await resumeToAnswer(["--resume", "crashed", ...config], other, ["two"], "the imported copy");
  });

  it("import --name stores the session under the new id, its meta record changed and an origin record added, and it resumes; '-' reads stdin", async () => {
    const dir = join(ROOT, "renamed-store");
    const file = join(ROOT, "paused.rename.jsonl");
    assertSucceeded(await fisk(["session", "export", "paused", "-o", file]), "export");
    const imported = await fisk(["session", "import", file, "--name", "copy-1", "--state-dir", dir]);
    assertSucceeded(imported, "import --name");
    assert.deepEqual(journalLines(dir, "copy-1").slice(1, -2), journalLines(STORE, "paused").slice(1));
    const pausedSeqs = journalLines(STORE, "paused").length;
    assert.deepEqual(
      JSON.parse(journalLines(dir, "copy-1").at(-2) as string),
      originRecord(pausedSeqs, "paused", "import"),
      "a copy says whose records it holds",
    );
    const mark = JSON.parse(journalLines(dir, "copy-1").at(-1) as string) as { seq: number; imported: { file: string } };
    assert.deepEqual([mark.seq, mark.imported.file], [pausedSeqs + 2, file], "and that it was imported, from what file");
    assert.deepEqual(metaOf(dir, "copy-1"), { ...metaOf(STORE, "paused"), run_id: "copy-1" });
    await resumeToAnswer(["--resume", "copy-1", "--config", join(WS, "agent.yaml")], dir, [], "the renamed import");
    // '-' reads the journal from stdin.
    const piped = await fisk(["session", "import", "-", "--name", "copy-2", "--state-dir", dir], { stdin: readFileSync(file, "utf8") });
    assertSucceeded(piped, "import -");
    assert.deepEqual(metaOf(dir, "copy-2"), { ...metaOf(STORE, "paused"), run_id: "copy-2" });
  });

  it("import refuses a corrupt file (8), a torn one (8), a newer version (8), an existing id (9), a missing file or bad --name (2), and leaves nothing half-imported", async () => {
    const dir = storeWith(["crashed"]);
    const existing = journalBytes(dir, "crashed");
    const fileOf = (label: string, bytes: Buffer) => {
      const file = join(ROOT, `import-${label}.jsonl`);
      writeFileSync(file, bytes);
      return file;
    };
    const state = ["--state-dir", dir];
    const [corrupt, torn, future, exists, renamedOntoExisting, missing, badName] = await Promise.all([
      fisk(["session", "import", fileOf("interior", journalBytes(STORE, "interior")), ...state]),
      fisk(["session", "import", fileOf("torn", journalBytes(STORE, "torn")), ...state]),
      fisk(["session", "import", fileOf("future", journalBytes(STORE, "future")), ...state]),
      fisk(["session", "import", fileOf("crashed", existing), ...state]),
      fisk(["session", "import", fileOf("paused", journalBytes(STORE, "paused")), "--name", "crashed", ...state]),
      fisk(["session", "import", join(ROOT, "no-such-file.jsonl"), ...state]),
      fisk(["session", "import", fileOf("done", journalBytes(STORE, "done")), "--name", "../x", ...state]),
    ]);
    assertOneLineError(corrupt, 8, /line 3 is not valid JSON/, "import of a corrupt file");
    assertOneLineError(torn, 8, /line 6/, "import of a torn file");
    assertOneLineError(future, 8, /version 6.*version 5/, "import of a newer version");
    assertOneLineError(exists, 9, /session crashed already exists/, "import of an existing id");
    assertOneLineError(renamedOntoExisting, 9, /session crashed already exists/, "import --name of an existing id");
    assertOneLineError(missing, 2, /no such file/, "import of a missing file");
    assertOneLineError(badName, 2, /invalid session id "\.\.\/x"/, "import --name ../x");
    assert.deepEqual(
      lsRows(await fisk(["session", "ls", ...state])).map((row) => row[0]),
      ["crashed"],
      "ls shows no refused import",
    );
    assert.ok(journalBytes(dir, "crashed").equals(existing), "the existing session is untouched");
    const leftovers = readdirSync(dir).filter((name) => !name.startsWith("crashed.") && name !== SUMMARY_CACHE_NAME);
    assert.deepEqual(leftovers, [], "no file of a refused import is left in the store");
  });
});

describe("fisk-ai session fork", () => {
  it("after npm link the hint names fisk-ai, as the docs do, and works pasted as printed", async () => {
    const dir = storeWith(["crashed"]);
    // What `npm link` makes: PREFIX/bin/fisk-ai -> ../lib/node_modules/fisk-ai/dist/cli/main.js, and that package a link to the checkout.
    const prefix = join(ROOT, "npm-prefix");
    mkdirSync(join(prefix, "lib", "node_modules"), { recursive: true });
    mkdirSync(join(prefix, "bin"), { recursive: true });
    symlinkSync(join(CLI, "..", "..", ".."), join(prefix, "lib", "node_modules", "fisk-ai"));
    symlinkSync("../lib/node_modules/fisk-ai/dist/cli/main.js", join(prefix, "bin", "fisk-ai"));
    const env = { PATH: `${join(prefix, "bin")}:${dirname(process.execPath)}:/usr/bin:/bin` };
    const forked = await fisk(["session", "fork", "crashed", "--name", "linked", "--state-dir", dir], { env });
    assertSucceeded(forked, "fork");
    const hint = /resume with: (.*)\n$/.exec(forked.stdout)?.[1];
    assert.equal(hint, `fisk-ai run --resume linked --state-dir ${dir}`);
    const shown = await runShell(`${hint?.replace("run --resume", "session show")}`, { cwd: ROOT, env: { ...ENV, ...env } });
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /linked/);
  });

  it("the fork and the original each resume to completion on their own, neither touching the other's journal", async () => {
    const dir = storeWith(["crashed"]);
    const state = ["--state-dir", dir];
    const forked = await fisk(["session", "fork", "crashed", "--name", "branch", ...state]);
    assertSucceeded(forked, "fork");
    const lastSeq = journalLines(dir, "crashed").length;
    assert.equal(forked.stdout, `forked crashed at seq ${lastSeq} as branch; resume with: ${resumeHint("branch", dir)}\n`);
    assert.deepEqual(journalLines(dir, "branch").slice(1, -1), journalLines(dir, "crashed").slice(1), "the fork repeats the original's records");
    assert.deepEqual(JSON.parse(journalLines(dir, "branch").at(-1) as string), originRecord(lastSeq, "crashed", "fork"), "then says where they came from");
    const [forkMeta, originalMeta] = [metaOf(dir, "branch"), metaOf(dir, "crashed")];
    assert.deepEqual(forkMeta, { ...originalMeta, run_id: "branch", created: forkMeta.created }, "only the id and creation time of the meta differ");
    assert.ok(Date.parse(forkMeta.created) > Date.parse(originalMeta.created), "the fork was created now");

    const before = journalBytes(dir, "crashed");
    await resumeToAnswer(["--resume", "branch"], dir, ["two"], "the fork");
    assert.ok(journalBytes(dir, "crashed").equals(before), "the fork's resume left the original untouched");

    const forkAfter = journalBytes(dir, "branch");
    // The original's pending note runs in its own resume too: the fork's run was not its.
    await resumeToAnswer(["--resume", "crashed"], dir, ["two"], "the original");
    assert.ok(journalBytes(dir, "branch").equals(forkAfter), "the original's resume left the fork untouched");
    for (const runId of ["crashed", "branch"]) {
      const records = journalRecords(dir, runId);
      assert.deepEqual(kinds(records).slice(-2), ["assistant", "terminal"], runId);
      assert.ok(
        records.every((record, index) => record.seq === index + 1),
        `${runId}: its own seqs, 1 to ${records.length}`,
      );
    }
    const withoutOrigin = journalRecords(dir, "branch").filter((record) => record.protocol !== "io.choria.fisk-ai.v1.session.origin");
    assert.deepEqual(kinds(withoutOrigin), kinds(journalRecords(dir, "crashed")), "each journal holds the whole run");
  });

  it("--at SEQ keeps the records up to SEQ, and the fork resumes from there", async () => {
    const dir = storeWith(["paused"]);
    const state = ["--state-dir", dir];
    const original = journalBytes(dir, "paused");
    const forked = await fisk(["session", "fork", "paused", "--at", "2", "--name", "early", ...state]);
    assertSucceeded(forked, "fork --at 2");
    assert.deepEqual(kinds(journalRecords(dir, "early")), ["meta", "assistant", "origin"]);
    assert.equal(journalLines(dir, "early")[1], journalLines(dir, "paused")[1]);
    // Cut right after the first turn: the fork answers that turn's whole batch itself.
    await resumeToAnswer(["--resume", "early"], dir, ["one", "two"], "the fork at seq 2");
    assert.ok(journalBytes(dir, "paused").equals(original), "the original is untouched");
  });

  it("a fork with no --name gets a new KSUID, and a torn tail is left out of it", async () => {
    const dir = storeWith(["torn"]);
    const forked = await fisk(["session", "fork", "torn", "--state-dir", dir]);
    assertSucceeded(forked, "fork torn");
    const match = /^forked torn at seq 5 as ([0-9A-Za-z]{27}); resume with: (.*)\n$/.exec(forked.stdout);
    assert.ok(match !== null, forked.stdout);
    assert.equal(match[2], resumeHint(match[1] as string, dir));
    assert.deepEqual(journalLines(dir, match[1] as string).slice(1, -2), journalLines(dir, "torn").slice(1, 5));
    assert.deepEqual(JSON.parse(journalLines(dir, match[1] as string).at(-2) as string), originRecord(5, "torn", "fork"));
    // Cut at rest (no call unanswered) where no terminal record stopped the run: the fork is suspended, not a crashed run.
    const suspended = { seq: 7, protocol: "io.choria.fisk-ai.v1.session.terminal", terminal: { reason: "suspended", message: "forked from torn at seq 5" } };
    assert.deepEqual(JSON.parse(journalLines(dir, match[1] as string).at(-1) as string), suspended);
  });

  it("refuses a bad --at (2), an existing --name (9), and an invalid --name (2)", async () => {
    const state = ["--state-dir", storeWith(["paused", "done"])];
    const results = await Promise.all([
      fisk(["session", "fork", "paused", "--at", "0", ...state]),
      fisk(["session", "fork", "paused", "--at", "99", ...state]),
      fisk(["session", "fork", "paused", "--at", "two", ...state]),
      fisk(["session", "fork", "paused", "--name", "done", ...state]),
      fisk(["session", "fork", "paused", "--name", "../x", ...state]),
    ]);
    const expected: [number, RegExp][] = [
      [2, /--at takes a seq of session paused, from 1 to 5/],
      [2, /--at takes a seq/],
      [2, /--at takes a seq/],
      [9, /session done already exists/],
      [2, /invalid session id "\.\.\/x"/],
    ];
    results.forEach((result, index) => assertOneLineError(result, ...(expected[index] as [number, RegExp]), `fork case ${index}`));
  });
});

describe("fisk-ai run --continue and --resume without an id", () => {
  it("--continue resumes the most recently updated session that is not completed, then the next, then says there is none", async () => {
    const dir = storeWith(["paused", "crashed", "done", "future"]);
    // done and the unreadable future are newer, but neither can be continued.
    ageInOrder(dir, ["paused", "crashed", "done", "future"]);
    const state = ["--state-dir", dir];
    const first = await resumeToAnswer(["--continue"], dir, ["two"], "the first --continue");
    assert.match(first.stderr, /^resuming crashed$/m);
    const second = await resumeToAnswer(["--continue"], dir, [], "the second --continue");
    assert.match(second.stderr, /^resuming paused$/m);
    const none = await fisk(["run", "--continue", ...state]);
    assertOneLineError(none, 6, /there is no session to continue/, "--continue with every session completed");
    assertOneLineError(
      await fisk(["run", "--continue", "--state-dir", join(ROOT, "empty-store")]),
      6,
      /no session to continue/,
      "--continue on an empty store",
    );
  });

  it("--resume with no id and no terminal is a usage error (2): one line pointing to session ls and --continue", async () => {
    // Even with resumable sessions there: the picker needs a terminal to ask on.
    assertOneLineError(await fisk(["run", "--resume"]), 2, /--resume needs a session id when there is no terminal.*session ls.*--continue/, "bare --resume");
  });

  const hasScript = spawnSync("script", ["--version"]).status === 0;
  it("--resume with no id on a terminal offers the resumable sessions, newest first, and resumes the one chosen", {
    skip: hasScript ? false : "util-linux script(1) is not installed",
  }, async () => {
    const dir = storeWith(["paused", "crashed", "done"]);
    ageInOrder(dir, ["paused", "crashed", "done"]);
    const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
    const command = [process.execPath, new URL("../../dist/cli/main.js", import.meta.url).pathname, "run", "--resume", "--state-dir", dir].map(quote).join(" ");
    // script(1) gives the CLI a pseudo-terminal for stdin and stderr; its output comes back merged.
    const child = spawn("script", ["-qec", command, "/dev/null"], { cwd: WS, env: ENV, stdio: ["pipe", "pipe", "pipe"] });
    let output = "";
    // A terminal ends its lines in \r\n.
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString().replaceAll("\r", "")));
    const exited = once(child, "exit");
    let code: number | null;
    try {
      await eventually(() => output.includes("Resume which session? [1-2]"), "the picker's question");
      child.stdin.write("2\n");
      [code] = (await exited) as [number | null];
    } finally {
      if (child.exitCode === null && child.signalCode === null) await sigkill(child);
      child.stdin.end();
    }
    assert.equal(code, 0, output);
    assert.match(output, /^1 {2}crashed {2}open +\S.*\n2 {2}paused {3}suspended /m, "newest first, done left out");
    assert.match(output, /resuming paused/);
    assert.match(output, new RegExp(ANSWER));
    const statuses = lsRows(await fisk(["session", "ls", "--state-dir", dir])).map((row) => `${row[0]} ${row[1]}`);
    assert.deepEqual(statuses.sort(), ["crashed open (orphaned)", "done completed", "paused completed"]);
  });
});

describe("bad input: one clear line on stderr, the documented exit code, no stack trace", () => {
  const cases: [string[], number, RegExp][] = [
    // Unknown and invalid ids, for every command that takes one.
    ...["show", "verify", "export", "fork", "rm"].flatMap((command): [string[], number, RegExp][] => [
      [["session", command, "nope"], 6, /^fisk-ai: no session nope: 'fisk-ai session ls' lists/],
      [["session", command, "../x"], 2, /^fisk-ai: invalid session id "\.\.\/x": /],
    ]),
    [["run", "--resume", "nope"], 6, /no session nope/],
    // Unreadable journals, for every command that reads one whole.
    ...["show", "export", "fork"].flatMap((command): [string[], number, RegExp][] => [
      [["session", command, "interior"], 8, /line 3 is not valid JSON/],
      [["session", command, "future"], 8, /record version 6, newer than the version 5/],
    ]),
    [["run", "--resume", "interior"], 8, /line 3 is not valid JSON/],
    [["run", "--resume", "future"], 8, /record version 6, newer than the version 5/],
    // Command lines that make no sense.
    [["session", "show"], 2, /session show needs a session id/],
    [["session", "show", "done", "paused"], 2, /session show takes one session id/],
    [["session", "ls", "extra"], 2, /session ls takes no arguments/],
    [["session", "ls", "--bogus"], 2, /Unknown option '--bogus'/],
    // An option value that starts with '-': node's parser says it in three lines, we in one.
    [["session", "show", "done", "--state-dir", "-x"], 2, /option --state-dir needs a value \(a value that starts with '-' is written --state-dir=-VALUE\)/],
    [["session", "show", "-x"], 2, /Unknown option '-x'/],
    [["session", "ls", "--state-dir"], 2, /argument missing/],
    [["session", "import"], 2, /session import takes one file/],
    [["session", "frob"], 2, /unknown session command 'frob'/],
  ];
  it(`${cases.length} cases: unknown id 6, invalid id 2, corrupt or newer journal 8, bad usage 2`, async () => {
    const results = await Promise.all(cases.map(([args]) => fisk(args)));
    cases.forEach(([args, code, message], index) => assertOneLineError(results[index] as CliResult, code, message, args.join(" ")));
  });
});

/** The resume command the CLI prints for a session of the store in `dir` (given with --state-dir): node and the CLI by path, as fisk-ai is not on this PATH. */
function resumeHint(runId: string, dir: string): string {
  return `${process.execPath} ${CLI} run --resume ${runId} --state-dir ${dir}`;
}
