// covers: src/cli/session/compact.ts, src/cli/text/compaction.ts, src/cli/session/handlers/compact.ts
// covers: src/runstate/records/records.ts, src/runstate/views/fold.ts
// process: shared
// Compaction through the real CLI against the strict fake Anthropic server with a context
// window: auto compaction in a checkpointed run, `session show` (lines, --json, --transcript),
// stream-json's compaction event, `session compact ID [--undo]`, `/compact` in a chat, fork
// from before a compaction, agent.yaml's window rule, and SIGKILL at each step of a compaction.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it, type TestContext } from "node:test";
import { fold } from "../src/index.js";
import { PROTOCOLS } from "../src/journal.js";
import type { CliResult } from "./helpers/cli-harness.js";
import { startFakeAnthropic, type FakeServer } from "./helpers/fake-anthropic-server.js";
import { growingChat, isSummarizing, type GrowingChat } from "./helpers/growing-chat.js";
import { journalRecords } from "./helpers/journal-file.js";
import { withoutDurations } from "./helpers/durations.js";
import { commandsInProcess } from "./helpers/in-process-cli.js";

/** The file's first call spawned, the later ones in this process (test/helpers/in-process-cli.ts). */
const cli = commandsInProcess(["session", "run"]);

const API_KEY = "sk-ant-test-compaction";
const WINDOW = 6000;
const root = realpathSync(mkdtempSync(join(tmpdir(), "fisk-ai-cli-compaction-")));
after(() => rmSync(root, { recursive: true, force: true }));

let workspaces = 0;
/** A workspace whose fetch tool prints about 4 KB, against a fake of its own with a 6,000-token window. */
async function workspace(t: TestContext, chat: GrowingChat, compaction = `{ window: ${WINDOW}, keep_recent: 4 }`) {
  const server = await startFakeAnthropic((request) => chat.respond(request), { apiKey: API_KEY, contextWindow: WINDOW });
  t.after(() => server.close());
  const dir = join(root, `ws-${++workspaces}`);
  mkdirSync(dir);
  writeFileSync(
    join(dir, "agent.yaml"),
    `provider: anthropic
model: claude-test-window
system: You read pages.
tools:
  - name: fetch
    description: Fetch a page
    command: [sh, -c, 'printf "page %s: " "$1"; head -c 4000 /dev/zero | tr "\\\\0" x', sh, "{page}"]
    input_schema: { type: object, properties: { page: { type: number } }, required: [page] }
compaction: ${compaction}
retry: { max_attempts: 2, base_delay: 10ms }
session: { state_dir: ${join(dir, "state")} }
`,
  );
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: dir, ANTHROPIC_API_KEY: API_KEY, ANTHROPIC_BASE_URL: server.url, NO_COLOR: "1" };
  const records = (runId: string) => journalRecords(join(dir, "state", `${runId}.json`));
  return {
    dir,
    server,
    records,
    compactions: (runId: string) => records(runId).filter((record) => record.protocol === PROTOCOLS.compaction),
    fisk: (args: string[], options: { stdin?: string; env?: NodeJS.ProcessEnv } = {}) =>
      cli(args, { cwd: dir, env: { ...env, ...options.env }, stdin: options.stdin }),
  };
}

function assertDone(result: CliResult, code: number, what: string): void {
  assert.equal(result.code, code, `${what}: ${result.stderr}`);
  assert.doesNotMatch(result.stderr, /^\s+at /m, `${what}: no stack trace`);
}

function assertEveryRequestValid(server: FakeServer): void {
  for (const request of server.requests) assert.ok(request.accepted, `the fake refused a request: ${request.rejection ?? `status ${request.status}`}`);
}

describe("fisk-ai run: auto compaction", () => {
  it("compacts before the calls that would pass the threshold; session show lists them, --json and --transcript show them", async (t) => {
    const chat = growingChat({ toolCalls: 10 });
    const ws = await workspace(t, chat);
    const run = await ws.fisk(["run", "--checkpoint", "--name", "auto1", "read the pages"]);
    assertDone(run, 0, "the run");
    assertEveryRequestValid(ws.server);
    assert.match(run.stderr, /compaction at seq \d+ \(auto\): records 1-\d+ summarized by claude-test-window; about \d+ -> \d+ tokens/);
    const compactions = ws.compactions("auto1");
    assert.ok(compactions.length >= 2, `${compactions.length} compactions`);
    assert.equal(chat.summaries, compactions.length);

    const show = await ws.fisk(["session", "show", "auto1"]);
    assertDone(show, 0, "show");
    assert.equal(show.stdout.match(/^compaction +compaction at seq \d+ \(auto\)/gm)?.length, compactions.length);
    assert.match(
      show.stdout,
      new RegExp(`^summarizing calls +${compactions.length}: tokens in \\d+, out ${20 * compactions.length} \\(apart from the model calls above\\)$`, "m"),
    );

    const json = JSON.parse((await ws.fisk(["session", "show", "auto1", "--json"])).stdout) as {
      counters: Record<string, number>;
      compactions: { seq: number; from_seq: number; through_seq: number; trigger: string; tokens_before: number; tokens_after: number; undone: boolean }[];
    };
    assert.equal(json.counters.compaction_calls, compactions.length);
    assert.deepEqual(
      json.compactions.map(({ seq, trigger, undone }) => ({ seq, trigger, undone })),
      compactions.map((record) => ({ seq: record.seq, trigger: "auto", undone: false })),
    );
    for (const entry of json.compactions) assert.ok(entry.tokens_after < entry.tokens_before);
    assert.equal(json.compactions[1]?.from_seq, (json.compactions[0]?.through_seq ?? 0) + 1);

    const transcript = await ws.fisk(["session", "show", "auto1", "--transcript"]);
    assertDone(transcript, 0, "transcript");
    // The whole history, page 1 included, with a marker and its summary where each compaction was journaled.
    assert.match(transcript.stdout, /^› read the pages$/m);
    assert.match(withoutDurations(transcript.stdout), /← fetch: page 1: x+/);
    assert.equal(transcript.stdout.match(/^── compacted: records \d+ to \d+ summarized \(\d+ → \d+ tokens\) ──$/gm)?.length, compactions.length);
    assert.match(transcript.stdout, /^── compacted: records \d+ to \d+ summarized \(\d+ → \d+ tokens\) ──\n {2}Summary 2: /m);
  });

  it("stream-json emits a compaction event for each, and counts the summarizing calls in the terminal event", async (t) => {
    const chat = growingChat({ toolCalls: 10 });
    const ws = await workspace(t, chat);
    const run = await ws.fisk(["run", "--output-format", "stream-json", "read the pages"]);
    assertDone(run, 0, "the run");
    const events = run.stdout
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const compactions = events.filter((event) => event.type === "compaction");
    assert.equal(compactions.length, chat.summaries);
    assert.deepEqual(Object.keys(compactions[0] ?? {}), [
      "type",
      "seq",
      "from_seq",
      "through_seq",
      "trigger",
      "model",
      "summary",
      "tokens_before",
      "tokens_after",
      "in_tokens",
      "out_tokens",
      "trimmed",
    ]);
    assert.equal(compactions[0]?.trigger, "auto");
    const terminal = events.at(-1) as { type: string; counters: Record<string, number> };
    assert.equal(terminal.type, "terminal");
    assert.equal(terminal.counters.compaction_calls, chat.summaries);
  });

  it("a model whose window fisk-ai does not know needs compaction.window: one line, exit 2", async (t) => {
    const ws = await workspace(t, growingChat({ toolCalls: 1 }), "{ auto: true }");
    const run = await ws.fisk(["run", "read"]);
    assertDone(run, 2, "the run");
    assert.equal(
      run.stderr,
      `fisk-ai: agent.yaml: compaction.window: the context window of model claude-test-window is not known to fisk-ai: give it in tokens (window: 128000), or turn compaction off (auto: false)\n`,
    );
  });
});

describe("fisk-ai session compact", () => {
  it("compacts a stored session by hand, --undo reverts it, and a fork from before the compaction has none", async (t) => {
    const chat = growingChat({ toolCalls: 100 });
    const ws = await workspace(t, chat, "{ auto: false, window: 100000, keep_recent: 2 }");
    const run = await ws.fisk(["run", "--checkpoint", "--name", "byhand", "read the pages"]);
    assert.equal(run.code, 1, "the fake's window ends the run: auto is off");
    const lastSeq = ws.records("byhand").length;

    const compact = await ws.fisk(["session", "compact", "byhand"]);
    assertDone(compact, 0, "compact");
    assert.match(
      compact.stdout,
      new RegExp(`^compaction at seq ${lastSeq + 1} \\(manual\\): records 1-\\d+ summarized by claude-test-window; about \\d+ -> \\d+ tokens\\n$`),
    );
    assert.equal(compact.stderr, "", "its progress line is for a terminal only");
    assert.equal(chat.summaries, 1);

    const undo = await ws.fisk(["session", "compact", "byhand", "--undo"]);
    assertDone(undo, 0, "undo");
    assert.equal(
      undo.stdout,
      `undid the compaction at seq ${lastSeq + 1} (record seq ${lastSeq + 2}): the next model call is sent the conversation it replaced\n`,
    );
    const again = await ws.fisk(["session", "compact", "byhand", "--undo"]);
    assertDone(again, 2, "a second undo");
    assert.equal(again.stderr, "fisk-ai: session byhand has no compaction in effect to undo\n");
    const shown = await ws.fisk(["session", "show", "byhand"]);
    assert.match(shown.stdout, new RegExp(`^compaction +compaction at seq ${lastSeq + 1} \\(manual\\): .*, undone at seq ${lastSeq + 2}$`, "m"));
    const records = ws.records("byhand");
    assert.equal(fold(records).messages.length, fold(records).history.length, "the model is sent the whole history again");

    const fork = await ws.fisk(["session", "fork", "byhand", "--at", String(lastSeq), "--name", "before"]);
    assertDone(fork, 0, "fork");
    assert.equal(ws.compactions("before").length, 0);
    assert.equal(ws.records("before").length, lastSeq + 1, "the records to the fork point, then its origin record");
    const forkedAfter = await ws.fisk(["session", "fork", "byhand", "--at", String(lastSeq + 1), "--name", "after"]);
    assertDone(forkedAfter, 0, "fork with the compaction");
    assert.ok(fold(ws.records("after")).messages.length < fold(ws.records("after")).history.length, "a fork that holds the compaction is compacted");
  });

  it("refuses a session with nothing to compact: one line, exit 2, nothing journaled", async (t) => {
    const ws = await workspace(t, growingChat({ toolCalls: 0 }));
    assertDone(await ws.fisk(["run", "--checkpoint", "--name", "short", "hi"]), 0, "the run");
    const before = ws.records("short").length;
    const compact = await ws.fisk(["session", "compact", "short"]);
    assertDone(compact, 2, "compact");
    assert.equal(
      compact.stderr,
      "fisk-ai: nothing to compact in session short: its 2 messages are what compaction keeps (keep_recent 4), and no tool result among them is long enough to trim\n",
    );
    assert.equal(ws.records("short").length, before);
  });
});

describe("fisk-ai run --chat: /compact", () => {
  it("compacts the chat's session by hand between prompts, and the chat goes on", async (t) => {
    const chat = growingChat({ toolCalls: 2 });
    const ws = await workspace(t, chat, "{ window: 100000, keep_recent: 2 }");
    const result = await ws.fisk(["run", "--chat", "--checkpoint", "--name", "chat1", "first"], { stdin: "second\n/compact\nthird\n" });
    assertDone(result, 0, "the chat");
    assert.equal(result.stdout, "Done with: first\nDone with: second\nDone with: third\n");
    const kinds = ws.records("chat1").map((record) => record.protocol.split(".").at(-1));
    const compactionAt = kinds.indexOf("compaction");
    assert.ok(compactionAt > 0 && kinds[compactionAt - 1] === "assistant" && kinds[compactionAt + 1] === "user", kinds.join(","));
    assert.equal(ws.compactions("chat1")[0]?.compaction.trigger, "manual");
    assert.equal(chat.summaries, 1);
    assertEveryRequestValid(ws.server);
    // The call after it is sent the summary, then the kept messages and the new prompt.
    const sent = ws.server.requests.filter((request) => !isSummarizing(request)).at(-3)?.body as { messages: { content: { text?: string }[] }[] };
    assert.match(sent.messages[0]?.content[0]?.text ?? "", /^\[The conversation so far was compacted/);
  });
});

describe("SIGKILL at each step of a compaction, then resume", () => {
  for (const [point, repeated] of [
    ["before-summary", 0],
    ["after-summary", 1],
    ["after-compaction", 0],
  ] as const) {
    it(`killed at ${point}: every request valid, no half record, ${repeated} summarizing call repeated`, async (t) => {
      const chat = growingChat({ toolCalls: 10 });
      const ws = await workspace(t, chat);
      const killed = await ws.fisk(["run", "--checkpoint", "--name", "k", "read the pages"], { env: { FISK_AI_TEST_CRASH_AT: `${point}:1` } });
      assert.equal(killed.signal, "SIGKILL", killed.stderr);
      const atKill = ws.records("k");
      fold(atKill);
      assert.equal(ws.compactions("k").length, point === "after-compaction" ? 1 : 0, "the record is whole or absent");
      assert.equal(chat.summaries, point === "before-summary" ? 0 : 1);

      const resumed = await ws.fisk(["run", "--resume", "k"]);
      assertDone(resumed, 0, "the resume");
      assertEveryRequestValid(ws.server);
      assertDone(await ws.fisk(["session", "verify", "k"]), 0, "verify");
      const compactions = ws.compactions("k");
      assert.ok(compactions.length >= 2);
      assert.equal(chat.summaries - compactions.length, repeated);
    });
  }
});
