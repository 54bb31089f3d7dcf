// covers: src/cli/run/chat-input.ts, src/runstate/records/records.ts
// Conversations that go on, through the real CLI against the strict Anthropic fake:
// `run --chat` driven by piped follow-ups, follow-ups into finished sessions with
// `--resume ID "more"` and `--continue "more"`, `/clear`, kills between a follow-up and
// its answer, and sessions resumed from another directory.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { JournalRecord } from "../src/index.js";
import { PROTOCOLS, type MetaPayload, type TerminalPayload } from "../src/journal.js";
import { CLI, startCli, type CliResult } from "./helpers/cli-harness.js";
import { latestBlocks, startFakeAnthropic, type AnthropicReply, type FakeServer, type SentMessage } from "./helpers/fake-anthropic-server.js";
import { journalRecords } from "./helpers/journal-file.js";
import { commandsInProcess } from "./helpers/in-process-cli.js";
import { eventually } from "./helpers/eventually.js";

/** The file's first call spawned, the later ones in this process (test/helpers/in-process-cli.ts). */
const cli = commandsInProcess(["session", "run"]);

const API_KEY = "sk-ant-test-chat";
const root = realpathSync(mkdtempSync(join(tmpdir(), "fisk-ai-cli-chat-")));
after(() => rmSync(root, { recursive: true, force: true }));

/**
 * The model's side: "note X" asks for the note tool, a tool result is acknowledged, and
 * anything else is answered by echoing it, so each answer names the prompt it answers.
 */
function reply(messages: SentMessage[]): AnthropicReply {
  const blocks = latestBlocks(messages);
  const usage = { input_tokens: 10, output_tokens: 5 };
  const result = blocks.find((block) => block.type === "tool_result");
  const text = blocks
    .filter((block) => block.type === "text")
    .map((block) => block.text ?? "")
    .join(" ");
  if (result !== undefined && text === "")
    return { content: [{ type: "text", text: `Noted: ${JSON.stringify(result.content)}` }], stop_reason: "end_turn", usage };
  if (result === undefined && text.startsWith("note ")) {
    const id = `toolu_${messages.length}`;
    return { content: [{ type: "tool_use", id, name: "note", input: { text: text.slice(5) } }], stop_reason: "tool_use", usage };
  }
  return { content: [{ type: "text", text: `Answer: ${text}` }], stop_reason: "end_turn", usage };
}

let server: FakeServer;
before(async () => {
  server = await startFakeAnthropic(async (request) => reply((request.body as { messages: SentMessage[] }).messages), { apiKey: API_KEY });
});
after(() => server.close());

function assertEveryRequestValid(): void {
  for (const request of server.requests) assert.ok(request.accepted, `the fake refused a request: ${request.rejection ?? `status ${request.status}`}`);
}

let workspaces = 0;
/** A directory with an agent.yaml whose note tool logs its execution and the directory it ran in. */
function workspace() {
  const dir = join(root, `ws-${++workspaces}`);
  mkdirSync(dir);
  const sideLog = join(dir, "side.log");
  writeFileSync(
    join(dir, "agent.yaml"),
    `provider: anthropic
model: claude-sonnet-4-5
system: You chat.
tools:
  - name: note
    description: Write a note
    # With GATE set, it waits for that file after logging: a suspend can land mid-tool.
    command: [sh, -c, 'echo "$1 in $(pwd)" >> "$SIDE_LOG"; while [ -n "$GATE" ] && [ ! -e "$GATE" ]; do sleep 0.02; done; echo "noted $1"', sh, "{text}"]
    input_schema: { type: object, properties: { text: { type: string } }, required: [text] }
retry: { max_attempts: 2, base_delay: 10ms }
session: { state_dir: ${join(dir, "state")} }
`,
  );
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: dir,
    ANTHROPIC_API_KEY: API_KEY,
    ANTHROPIC_BASE_URL: server.url,
    SIDE_LOG: sideLog,
    NO_COLOR: "1",
  };
  const records = (runId: string) => journalRecords(join(dir, "state", `${runId}.json`));
  return {
    dir,
    env,
    records,
    kinds: (runId: string) => records(runId).map((record) => record.protocol.split(".").at(-1)),
    userTexts: (runId: string) =>
      records(runId)
        .flatMap((record) => (record.protocol === PROTOCOLS.user ? record.user.message.content : []))
        .map((block) => (block.type === "text" ? block.text : block.type)),
    executions: () =>
      existsSync(sideLog)
        ? readFileSync(sideLog, "utf8")
            .split("\n")
            .filter((line) => line !== "")
        : [],
    fisk: (args: string[], options: { stdin?: string; env?: NodeJS.ProcessEnv; cwd?: string } = {}) =>
      cli(args, { cwd: options.cwd ?? dir, env: { ...env, ...options.env }, stdin: options.stdin }),
  };
}

function metaOf(records: JournalRecord[]): MetaPayload {
  const first = records[0];
  assert.ok(first?.protocol === PROTOCOLS.meta);
  return first.meta;
}

function terminalOf(records: JournalRecord[]): TerminalPayload | undefined {
  const last = records.at(-1);
  return last?.protocol === PROTOCOLS.terminal ? last.terminal : undefined;
}

function accepted(): number {
  return server.requests.filter((request) => request.accepted).length;
}

function assertDone(result: CliResult, code: number, what: string): void {
  assert.equal(result.code, code, `${what}: ${result.stderr}`);
  assert.doesNotMatch(result.stderr, /^\s+at /m, `${what}: no stack trace`);
}

describe("fisk-ai run --chat", () => {
  it("a three-turn chat from piped follow-ups: three user records in order, the answers on stdout in order, ended as suspended", async () => {
    const ws = workspace();
    const before = accepted();
    const result = await ws.fisk(["run", "--chat", "--checkpoint", "--name", "c1", "first"], { stdin: "second\nthird\n\nfourth\n" });
    assertDone(result, 0, "the chat");
    assert.equal(result.stdout, "Answer: first\nAnswer: second\nAnswer: third\nAnswer: fourth\n");
    assert.deepEqual(ws.kinds("c1"), ["meta", "assistant", "user", "assistant", "user", "assistant", "user", "assistant", "terminal"]);
    assert.deepEqual(ws.userTexts("c1"), ["second", "third", "fourth"], "an empty line is not a follow-up");
    const { interactive, cwd, config } = metaOf(ws.records("c1"));
    assert.deepEqual([interactive, cwd, config], [true, ws.dir, join(ws.dir, "agent.yaml")]);
    assert.deepEqual(terminalOf(ws.records("c1")), { reason: "suspended", message: "the chat ended" });
    assert.equal(accepted() - before, 4);
    assertEveryRequestValid();

    // Resumed at that answer: the transcript is replayed, the input reopens, no model call for it.
    const resumed = await ws.fisk(["run", "--resume", "c1"], { stdin: "fifth\n" });
    assertDone(resumed, 0, "the resumed chat");
    assert.equal(resumed.stdout, "Answer: fifth\n");
    assert.match(resumed.stderr, /── the conversation so far ──\n› first\n/);
    assert.equal(accepted() - before, 5, "one model call, for the new follow-up");
    assert.deepEqual(ws.userTexts("c1"), ["second", "third", "fourth", "fifth"]);
    assertEveryRequestValid();
  });

  it("/exit ends the chat, and /clear ends the session and starts a new one with the prompt typed after it", async () => {
    const ws = workspace();
    const result = await ws.fisk(["run", "--chat", "--checkpoint", "--name", "before-clear", "first"], {
      stdin: "second\n/clear\nfresh start\nagain\n/exit\nnever sent\n",
    });
    assertDone(result, 0, "the chat");
    assert.equal(result.stdout, "Answer: first\nAnswer: second\nAnswer: fresh start\nAnswer: again\n");
    assert.equal(terminalOf(ws.records("before-clear"))?.reason, "suspended");
    const listed = JSON.parse((await ws.fisk(["session", "ls", "--json"])).stdout) as { id: string; prompt: string; status: string }[];
    const fresh = listed.find((session) => session.id !== "before-clear");
    assert.deepEqual([listed.length, fresh?.prompt, fresh?.status], [2, "fresh start", "suspended"]);
    assert.deepEqual(ws.userTexts(fresh?.id as string), ["again"]);
    assertEveryRequestValid();
  });

  it("a chat that is not saved ends at the end of its input without a word after its answers; a saved one says how to resume", async () => {
    const ws = workspace();
    const unsaved = await ws.fisk(["run", "--chat", "first"], { stdin: "second\n" });
    assertDone(unsaved, 0, "the unsaved chat");
    assert.deepEqual([unsaved.stdout, unsaved.stderr], ["Answer: first\nAnswer: second\n", ""]);
    const saved = await ws.fisk(["run", "--chat", "--checkpoint", "--name", "kept", "first"], { stdin: "" });
    assertDone(saved, 0, "the saved chat");
    assert.match(saved.stderr, /^Suspended session kept; resume with: .*--resume kept/m);
  });

  it("Ctrl-C at the prompt ends the chat as /exit does: suspended, exit 0", async () => {
    const ws = workspace();
    // stdin stays open: the chat waits at its prompt until the signal.
    const child = spawn(process.execPath, [CLI, "run", "--chat", "--checkpoint", "--name", "waiting", "first"], {
      cwd: ws.dir,
      env: ws.env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    const closed = once(child, "close");
    await eventually(() => stdout === "Answer: first\n", "the first answer");
    child.kill("SIGINT");
    const [code] = (await closed) as [number | null];
    child.stdin.end();
    assert.equal(code, 0);
    assert.deepEqual(terminalOf(ws.records("waiting")), { reason: "suspended", message: "the chat ended" });
  });

  it("--chat with --resume reopens a finished one-shot session for chat", async () => {
    const ws = workspace();
    assertDone(await ws.fisk(["run", "--checkpoint", "--name", "oneshot", "hello"]), 0, "the one-shot run");
    const before = accepted();
    const chat = await ws.fisk(["run", "--resume", "oneshot", "--chat"], { stdin: "tell me more\n" });
    assertDone(chat, 0, "the chat");
    assert.equal(chat.stdout, "Answer: tell me more\n");
    assert.equal(accepted() - before, 1, "no model call to reopen it");
    assert.deepEqual(terminalOf(ws.records("oneshot")), { reason: "suspended", message: "the chat ended" });
  });

  it("SIGKILL after a follow-up is journaled, before its answer: the resume answers it once and asks for the next", async () => {
    const ws = workspace();
    const killed = await ws.fisk(["run", "--chat", "--checkpoint", "--name", "c2", "first"], {
      stdin: "second\nthird\n",
      env: { FISK_AI_TEST_CRASH_AT: "before-model:2" },
    });
    assert.equal(killed.signal, "SIGKILL", killed.stderr);
    assert.deepEqual(ws.kinds("c2"), ["meta", "assistant", "user"]);
    const before = accepted();
    const resumed = await ws.fisk(["run", "--resume", "c2"], { stdin: "third\n" });
    assertDone(resumed, 0, "the resume");
    assert.equal(resumed.stdout, "Answer: second\nAnswer: third\n");
    assert.deepEqual(ws.userTexts("c2"), ["second", "third"], "second was not asked again");
    assert.equal(accepted() - before, 2);
    assertEveryRequestValid();
  });

  it("SIGKILL mid-batch in the second turn of a chat: the resume completes the batch, answers, and reopens the input", async () => {
    const ws = workspace();
    const killed = await ws.fisk(["run", "--chat", "--checkpoint", "--name", "c3", "first"], {
      stdin: "note milk\nbye\n",
      env: { FISK_AI_TEST_CRASH_AT: "after-assistant:2" },
    });
    assert.equal(killed.signal, "SIGKILL", killed.stderr);
    assert.deepEqual(ws.kinds("c3"), ["meta", "assistant", "user", "assistant"]);
    const resumed = await ws.fisk(["run", "--resume", "c3"], { stdin: "bye\n" });
    assertDone(resumed, 0, "the resume");
    assert.match(resumed.stderr, /completing the pending batch: running note \(toolu_3\), whose results never reached the journal\n/);
    assert.equal(resumed.stdout, 'Noted: "noted milk\\n"\nAnswer: bye\n');
    assert.deepEqual(ws.executions(), [`milk in ${ws.dir}`]);
    assertEveryRequestValid();
  });
});

describe("a follow-up into a session: run --resume ID PROMPT and run --continue PROMPT", () => {
  it("takes a completed, a suspended and a killed-mid-batch session further, each with exactly the model calls expected", async () => {
    const ws = workspace();
    assertDone(await ws.fisk(["run", "--checkpoint", "--name", "done", "hello"]), 0, "a one-shot run");
    // Suspended with SIGINT during its tool: the batch finishes, then `suspended`.
    const gate = join(ws.dir, "gate");
    const pausing = startCli(["run", "--checkpoint", "--name", "paused", "note flour"], { cwd: ws.dir, env: { ...ws.env, GATE: gate } });
    await eventually(() => ws.executions().length === 1, "the note to start");
    pausing.child.kill("SIGINT");
    await pausing.stderrIncludes("suspending at the next step");
    writeFileSync(gate, "");
    assertDone(await pausing.done, 3, "the suspended run");
    const killed = await ws.fisk(["run", "--checkpoint", "--name", "cut", "note eggs"], { env: { FISK_AI_TEST_CRASH_AT: "after-assistant:1" } });
    assert.equal(killed.signal, "SIGKILL");

    for (const [runId, calls, answer] of [
      ["done", 1, "Answer: more about done\n"],
      ["paused", 1, "Answer: more about paused\n"],
      ["cut", 1, "Answer: more about cut\n"],
    ] as const) {
      const before = accepted();
      const result = await ws.fisk(["run", "--resume", runId, `more about ${runId}`]);
      assertDone(result, 0, runId);
      assert.equal(result.stdout, answer, runId);
      assert.equal(accepted() - before, calls, `${runId}: model calls`);
      assert.equal(terminalOf(ws.records(runId))?.reason, "completed");
      assert.deepEqual(ws.userTexts(runId), [`more about ${runId}`]);
    }
    assert.deepEqual(ws.executions(), [`flour in ${ws.dir}`, `eggs in ${ws.dir}`], "the cut batch completed before the follow-up");
    const shown = JSON.parse((await ws.fisk(["session", "show", "done", "--json"])).stdout) as { counters: { model_calls: number } };
    assert.equal(shown.counters.model_calls, 2);
    // --continue PROMPT takes up the latest session started here, completed or not.
    const continued = await ws.fisk(["run", "--continue", "and then?"]);
    assertDone(continued, 0, "--continue with a follow-up");
    assert.equal(continued.stdout, "Answer: and then?\n");
    assertEveryRequestValid();
  });

  it("a completed session without a follow-up is refused, saying how to give one", async () => {
    const ws = workspace();
    assertDone(await ws.fisk(["run", "--checkpoint", "--name", "fin", "hello"]), 0, "the run");
    const refused = await ws.fisk(["run", "--resume", "fin"]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /^fisk-ai: session fin is completed: .*fisk-ai run --resume fin "next question"/);
  });
});

describe("sessions remember where they ran", () => {
  it("a session started in A and resumed from B runs its tools in A, with A's agent.yaml", async () => {
    const ws = workspace();
    const elsewhere = join(root, `elsewhere-${workspaces}`);
    mkdirSync(elsewhere);
    const killed = await ws.fisk(["run", "--checkpoint", "--name", "far", "note there"], { env: { FISK_AI_TEST_CRASH_AT: "after-assistant:1" } });
    assert.equal(killed.signal, "SIGKILL");
    const resumed = await ws.fisk(["run", "--resume", "far", "--state-dir", join(ws.dir, "state")], { cwd: elsewhere });
    assertDone(resumed, 0, "the resume from elsewhere");
    assert.match(resumed.stderr, new RegExp(`using the session's configuration, ${join(ws.dir, "agent.yaml")}`));
    assert.deepEqual(ws.executions(), [`there in ${ws.dir}`]);
    // --cwd runs them somewhere else on purpose.
    const again = await ws.fisk(["run", "--resume", "far", "note here", "--state-dir", join(ws.dir, "state"), "--cwd", elsewhere], { cwd: elsewhere });
    assertDone(again, 0, "--cwd");
    assert.deepEqual(ws.executions(), [`there in ${ws.dir}`, `here in ${elsewhere}`]);
  });

  it("a session whose directory is gone is refused (2), pointing at --cwd", async () => {
    const ws = workspace();
    const gone = join(root, `gone-${workspaces}`);
    mkdirSync(gone);
    const config = join(ws.dir, "agent.yaml");
    const killed = await ws.fisk(["run", "--config", config, "--checkpoint", "--name", "lost", "note x"], {
      cwd: gone,
      env: { FISK_AI_TEST_CRASH_AT: "after-assistant:1" },
    });
    assert.equal(killed.signal, "SIGKILL");
    rmSync(gone, { recursive: true });
    const refused = await ws.fisk(["run", "--resume", "lost"]);
    assert.equal(refused.code, 2, refused.stderr);
    assert.equal(
      refused.stderr,
      `fisk-ai: session lost ran in ${gone}, which no longer exists: resume it with --cwd DIR to run its tools in another directory\n`,
    );
  });

  it("--continue and session ls --here keep to the sessions started here; --all widens", async () => {
    const ws = workspace();
    const other = join(root, `other-${workspaces}`);
    mkdirSync(other);
    const state = ["--state-dir", join(ws.dir, "state")];
    const killed = await ws.fisk(["run", "--checkpoint", "--name", "mine", "note a"], { env: { FISK_AI_TEST_CRASH_AT: "after-assistant:1" } });
    assert.equal(killed.signal, "SIGKILL");
    const nothing = await ws.fisk(["run", "--continue", ...state], { cwd: other });
    assert.equal(nothing.code, 6);
    assert.equal(
      nothing.stderr,
      `fisk-ai: there is no session to continue in ${other}: none is suspended or stopped early and free ('fisk-ai run --continue --all' looks at the sessions of every directory)\n`,
    );
    const here = JSON.parse((await ws.fisk(["session", "ls", "--json", "--here", ...state], { cwd: other })).stdout) as unknown[];
    const all = JSON.parse((await ws.fisk(["session", "ls", "--json", ...state], { cwd: other })).stdout) as { id: string; cwd: string }[];
    assert.deepEqual([here.length, all.map(({ id, cwd }) => [id, cwd])], [0, [["mine", ws.dir]]]);
    const widened = await ws.fisk(["run", "--continue", "--all", ...state], { cwd: other });
    assertDone(widened, 0, "--continue --all");
    assert.deepEqual(ws.executions(), [`a in ${ws.dir}`]);
  });
});
