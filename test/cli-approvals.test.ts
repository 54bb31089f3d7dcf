// covers: src/cli/commands/session/answer.ts, src/cli/commands/session/approve.ts, src/cli/commands/session/decide.ts
// covers: src/cli/commands/session/deny.ts, src/cli/commands/session/pending.ts, src/cli/session-decide.ts
// start: first
// Approvals through the real CLI: a run with no terminal parks (exit 10) and prints the
// commands that decide; `session approve|deny|answer` decide each call once (exit 11 for
// the loser of a race, on the file store and on JetStream); a resume goes on; SIGKILL at
// each journal boundary of park, decide and resume never runs an undecided or denied call
// and runs an approved one once. Against the strict fake Anthropic server.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { startFakeAnthropic, type AnthropicReply, type FakeServer } from "./helpers/fake-anthropic-server.js";
import { CLI, runCli, type CliResult } from "./helpers/cli-harness.js";
import { commandsInProcess } from "./helpers/in-process-cli.js";
import { startNatsServer, type NatsServer } from "./helpers/nats-server.js";
import { skipWithout } from "./helpers/programs.js";
import { sharedKeyring } from "./helpers/signing-keys.js";

const API_KEY = "sk-ant-test-approvals-cli";

/** The model's turns for each prompt, by how many assistant turns came before. */
const SCRIPTS: Record<string, AnthropicReply[]> = {
  send: [
    {
      content: [
        { type: "text", text: "Sending, and noting it." },
        { type: "tool_use", id: "toolu_01", name: "send", input: { text: "deploy" } },
        { type: "tool_use", id: "toolu_02", name: "note", input: { text: "one" } },
      ],
      stop_reason: "tool_use",
      usage: { input_tokens: 100, output_tokens: 20 },
    },
    { content: [{ type: "text", text: "Done." }], stop_reason: "end_turn", usage: { input_tokens: 150, output_tokens: 5 } },
  ],
  ask: [
    {
      content: [{ type: "tool_use", id: "toolu_q", name: "ask_user", input: { question: "Which region?" } }],
      stop_reason: "tool_use",
      usage: { input_tokens: 100, output_tokens: 10 },
    },
    { content: [{ type: "text", text: "Region noted." }], stop_reason: "end_turn", usage: { input_tokens: 150, output_tokens: 5 } },
  ],
};

let root: string;
let model: FakeServer;
let workspaces = 0;
/** The later runs and session commands in this process; the races and a tool that kills its parent spawn each process. */
const cli = commandsInProcess(["session", "run"]);

interface Workspace {
  dir: string;
  env: NodeJS.ProcessEnv;
  run(args: string[], extraEnv?: NodeJS.ProcessEnv): Promise<CliResult>;
  /** Always a process of its own: a race between processes, or a run whose tool kills its parent. */
  spawned(args: string[]): Promise<CliResult>;
  /** The side effects of the tools, one line per execution. */
  executions(): string[];
  kinds(runId: string): string[];
  records(runId: string): Record<string, unknown>[];
}

function workspace(options: { session?: string; approvalTimeout?: string; sendNeverReruns?: boolean; keyring?: string } = {}): Workspace {
  const dir = join(root, `ws-${++workspaces}`);
  mkdirSync(dir);
  const sideLog = join(dir, "side.log");
  // A file named $SIDE_LOG.kill makes the next execution SIGKILL fisk-ai while it runs, once.
  const tool = (name: string, confirm: boolean) => `  - name: ${name}
    description: ${name} a line
    command: [sh, -c, 'echo "${name}:$1" >> "$SIDE_LOG"; if [ -e "$SIDE_LOG.kill" ]; then rm "$SIDE_LOG.kill"; kill -9 $PPID; sleep 5; fi; echo "${name} $1"', sh, "{text}"]
    input_schema: { type: object, properties: { text: { type: string } }, required: [text] }
    confirm: ${confirm}
${name === "send" && options.sendNeverReruns === true ? "    on_crash: never\n" : ""}`;
  writeFileSync(
    join(dir, "agent.yaml"),
    `provider: anthropic
model: claude-sonnet-4-5
ask_user: true
${options.approvalTimeout === undefined ? "" : `approval_timeout: ${options.approvalTimeout}\n`}retry: { max_attempts: 1 }
tools:
${tool("send", true)}${tool("note", false)}session: ${options.session ?? "{ state_dir: ./state }"}
`,
  );
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: dir,
    ANTHROPIC_API_KEY: API_KEY,
    ANTHROPIC_BASE_URL: model.url,
    SIDE_LOG: sideLog,
    NO_COLOR: "1",
  };
  if (options.keyring !== undefined) env.FISK_AI_SIGNING_KEYS = options.keyring;
  const journal = (runId: string) =>
    readFileSync(join(dir, "state", `${runId}.json`), "utf8")
      .split("\n")
      .filter((line) => line !== "");
  return {
    dir,
    env,
    run: (args, extraEnv = {}) => cli(args, { cwd: dir, env: { ...env, ...extraEnv } }),
    spawned: (args) => runCli(args, { cwd: dir, env }),
    executions: () =>
      existsSync(sideLog)
        ? readFileSync(sideLog, "utf8")
            .split("\n")
            .filter((line) => line !== "")
        : [],
    kinds: (runId) => journal(runId).map((line) => (JSON.parse(line) as { protocol: string }).protocol.split(".").at(-1) as string),
    records: (runId) => journal(runId).map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

function rejected(): string[] {
  return model.requests.filter((request) => !request.accepted).map((request) => request.rejection ?? `status ${request.status}`);
}

/** The tool_result blocks of the latest accepted request. */
function lastResults(): { tool_use_id: string; content: unknown; is_error?: boolean }[] {
  const body = model.requests.filter((request) => request.accepted).at(-1)?.body as { messages: { content: { type: string }[] }[] };
  return body.messages.at(-1)?.content.filter((block) => block.type === "tool_result") as never;
}

const PARK = (name: string, prompt = "send") => ["run", "--checkpoint", "--name", name, prompt];

describe("approvals on the command line", () => {
  before(async () => {
    root = mkdtempSync(join(tmpdir(), "fisk-ai-approvals-"));
    model = await startFakeAnthropic(
      async (request) => {
        const messages = (request.body as { messages: { role: string; content: string | { type: string; text?: string }[] }[] }).messages;
        const first = messages[0]?.content;
        const prompt = typeof first === "string" ? first : (first?.find((block) => block.type === "text")?.text ?? "");
        const reply = SCRIPTS[prompt]?.[messages.filter((message) => message.role === "assistant").length];
        if (reply === undefined) throw new Error(`no turn for ${prompt}`);
        return reply;
      },
      { apiKey: API_KEY },
    );
  });
  after(async () => {
    await model.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("parks without a terminal (exit 10), prints the commands that decide, shows the wait everywhere, and goes on once approved", async () => {
    const ws = workspace();
    const parked = await ws.run(PARK("p1"));
    assert.equal(parked.code, 10, parked.stderr);
    assert.match(
      parked.stderr,
      /Session p1 waits for a decision on 1 call:\n {2}toolu_01 {2}send \{"text":"deploy"\}\nDecide with:\n {2}\S+ \S+ session approve p1 --resume --config \S+\n {2}\S+ \S+ session deny p1 --reason TEXT --config \S+\n\(name TOOL_USE_IDs after p1 to decide only some; without --resume, resume later with: \S+ \S+ run --resume p1 --config \S+\)\n$/,
    );
    assert.deepEqual(ws.executions(), ["note:one"], "the other call of the batch ran, the parked one did not");
    assert.deepEqual(ws.kinds("p1"), ["meta", "assistant", "approval_request", "tool_result", "terminal"]);

    assert.match((await ws.run(["session", "ls"])).stdout, /\np1\s+awaiting_approval\s/);
    assert.equal((JSON.parse((await ws.run(["session", "ls", "--json"])).stdout) as { status: string }[])[0]?.status, "awaiting_approval");
    assert.match((await ws.run(["session", "show", "p1"])).stdout, /\napproval +toolu_01 send \{"text":"deploy"\}: waiting for a decision for \d+s\n/);
    const shown = JSON.parse((await ws.run(["session", "show", "p1", "--json"])).stdout) as {
      status: string;
      approvals: { tool_use_id: string; kind: string; decision: unknown }[];
    };
    assert.deepEqual([shown.status, shown.approvals.map((a) => [a.tool_use_id, a.kind, a.decision])], ["awaiting_approval", [["toolu_01", "approval", null]]]);
    assert.match(
      (await ws.run(["session", "pending"])).stdout,
      /^SESSION +CALL +TOOL +KIND +WAITING +INPUT\np1 +toolu_01 +send +approval +\d+s +\{"text":"deploy"\}\n$/,
    );
    const pending = JSON.parse((await ws.run(["session", "pending", "--json"])).stdout) as Record<string, unknown>[];
    assert.deepEqual(
      pending.map(({ session_id, tool_use_id, name, input, kind }) => ({ session_id, tool_use_id, name, input, kind })),
      [{ session_id: "p1", tool_use_id: "toolu_01", name: "send", input: { text: "deploy" }, kind: "approval" }],
    );

    const calls = model.requests.length;
    const again = await ws.run(["run", "--resume", "p1"]);
    assert.equal(again.code, 10, again.stderr);
    assert.equal(model.requests.length, calls, "an undecided resume parks again without calling the model");

    const approved = await ws.run(["session", "approve", "p1", "toolu_01"]);
    assert.equal(approved.code, 0, approved.stderr);
    assert.match(approved.stdout, /^approved toolu_01 in session p1\nno call waits now; resume with: \S+ \S+ run --resume p1 --config \S+\n$/);
    assert.match((await ws.run(["session", "ls"])).stdout, /\np1\s+suspended\s/);
    const second = await ws.run(["session", "approve", "p1", "toolu_01"]);
    assert.deepEqual([second.code, second.stderr.split("\n").length], [11, 2], second.stderr);
    assert.match(second.stderr, /^fisk-ai: call toolu_01 of session p1 is already decided: approve by \S+@\S+ at \S+\n$/);

    const done = await ws.run(["run", "--resume", "p1"]);
    assert.deepEqual([done.code, done.stdout], [0, "Done.\n"], done.stderr);
    assert.deepEqual(ws.executions(), ["note:one", "send:deploy"], "the approved call ran once, with its journaled input");
    assert.equal((await ws.run(["session", "pending"])).stdout, "No calls wait for a decision.\n");
    assert.deepEqual(rejected(), []);
  });

  it("denies with --reason (required), which the model reads, and approve --resume, deny --resume and answer --resume go on at once", async () => {
    const ws = workspace();
    assert.equal((await ws.run(PARK("d1"))).code, 10);
    const noReason = await ws.run(["session", "deny", "d1"]);
    assert.deepEqual([noReason.code, noReason.stderr], [2, "fisk-ai: session deny needs --reason TEXT: the model is told why its call was denied\n"]);
    const denied = await ws.run(["session", "deny", "d1", "--all", "--reason", "not on a Friday", "--resume"]);
    assert.deepEqual([denied.code, denied.stdout.split("\n").at(-2)], [0, "Done."], denied.stderr);
    assert.deepEqual(ws.executions(), ["note:one"], "a denied call never runs");
    const denial = lastResults().find((r) => r.tool_use_id === "toolu_01");
    assert.deepEqual([denial?.content, denial?.is_error], ["the operator denied this call of send: not on a Friday", true]);

    assert.equal((await ws.run(PARK("a1", "ask"))).code, 10);
    const asked = await ws.run(["session", "show", "a1"]);
    assert.match(asked.stdout, /approval +toolu_q ask_user \{"question":"Which region\?"\}: waiting for an answer/);
    const answered = await ws.run(["session", "answer", "a1", "eu-west", "--resume"]);
    assert.equal(answered.code, 0, answered.stderr);
    assert.match(answered.stdout, /^answered toolu_q in session a1\n[^]*Region noted\.\n$/);
    assert.deepEqual(
      lastResults().map((r) => [r.content, r.is_error === true]),
      [["eu-west", false]],
    );

    assert.equal((await ws.run(PARK("ap", "send"))).code, 10);
    const approved = await ws.run(["session", "approve", "ap", "--resume"]);
    assert.deepEqual([approved.code, approved.stdout.split("\n").at(-2)], [0, "Done."], approved.stderr);
    // It resumes at once: no hint to resume first, and the replay shows the turn and the call it approved.
    assert.doesNotMatch(approved.stdout, /no call waits now/);
    const replay = /── the conversation so far ──\n([^]*)── resuming ──/.exec(approved.stderr)?.[1] ?? "";
    assert.match(replay, /^→ send/m, approved.stderr);
    assert.deepEqual(rejected(), []);
  });

  it("says in one line what is wrong with a decision command, each with its exit code", async () => {
    const ws = workspace();
    assert.equal((await ws.run(PARK("e1"))).code, 10);
    const cases: [string[], number, RegExp][] = [
      [["session", "approve", "nosuch"], 6, /^fisk-ai: .*nosuch.*not found|no session/i],
      [
        ["session", "approve", "e1", "toolu_zz"],
        2,
        /^fisk-ai: session e1 has no call toolu_zz waiting for a decision \('fisk-ai session show e1' shows its calls\)\n$/,
      ],
      [["session", "approve", "e1", "toolu_01", "--all"], 2, /^fisk-ai: session approve: give TOOL_USE_IDs or --all, not both\n$/],
      [["session", "answer", "e1", "x"], 2, /^fisk-ai: session e1 has no question waiting for a decision/],
      [["session", "answer", "e1"], 2, /^fisk-ai: session answer takes the session id and the answer/],
      [["session", "approve"], 2, /^fisk-ai: session approve needs a session id/],
      [["run", "--checkpoint", "--approvals", "later", "send"], 2, /^fisk-ai: --approvals is ask \(on a terminal when there is one\) or defer/],
    ];
    for (const [args, code, pattern] of cases) {
      const result = await ws.run(args);
      assert.equal(result.code, code, `${args.join(" ")}: ${result.stderr}`);
      assert.match(result.stderr, pattern, args.join(" "));
      assert.equal(result.stderr.trimEnd().split("\n").length, 1, `one line: ${result.stderr}`);
    }
  });

  it("parks with --output-format stream-json, emitting the request, and the terminal event names the waiting calls; a resume emits the decision it journals", async () => {
    const ws = workspace({ approvalTimeout: "1ms" });
    const streamed = await ws.run(["run", "--checkpoint", "--name", "s1", "--approvals", "defer", "--output-format", "stream-json", "send"]);
    assert.equal(streamed.code, 10, streamed.stderr);
    const events = streamed.stdout
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const request = events.find((event) => event.type === "approval_request");
    assert.deepEqual(
      { ...request, requested_at: undefined },
      { type: "approval_request", id: "toolu_01", name: "send", input: { text: "deploy" }, kind: "approval", requested_at: undefined },
    );
    const terminal = events.at(-1) as { type: string; reason: string; waiting: { id: string }[] };
    assert.deepEqual([terminal.type, terminal.reason, terminal.waiting.map((call) => call.id)], ["terminal", "awaiting_approval", ["toolu_01"]]);
    const resumed = await ws.run(["run", "--resume", "s1", "--output-format", "stream-json"]);
    assert.equal(resumed.code, 0, resumed.stderr);
    const decision = resumed.stdout
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((event) => event.type === "approval_decision");
    assert.deepEqual(
      { ...decision, decided_at: undefined },
      { type: "approval_decision", id: "toolu_01", decision: "deny", text: "timed out", decided_by: "timeout", decided_at: undefined },
    );
  });

  it("lets exactly one of 8 processes deciding the same call at once decide it, every trial; the others exit 11", async () => {
    const ws = workspace();
    for (let trial = 0; trial < 3; trial++) {
      const runId = `race${trial}`;
      assert.equal((await ws.run(PARK(runId))).code, 10);
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, index) =>
          index % 2 === 0
            ? ws.spawned(["session", "approve", runId, "toolu_01"])
            : ws.spawned(["session", "deny", runId, "toolu_01", "--reason", `no ${index}`]),
        ),
      );
      const codes = results.map((result) => result.code).sort();
      assert.deepEqual(codes, [0, 11, 11, 11, 11, 11, 11, 11], results.map((result) => result.stderr).join(""));
      assert.equal(ws.kinds(runId).filter((kind) => kind === "approval_decision").length, 1, `trial ${trial}: one decision journaled`);
    }
  });

  it("runs the Approvals example of docs/approvals.md and the README: park (exit 10), pending lists the call, approve --resume tags the release once", async () => {
    const repo = new URL("../../", import.meta.url).pathname;
    const page = readFileSync(join(repo, "docs/approvals.md"), "utf8");
    const block = /```sh\n([^`]*)```/.exec(page)?.[1] ?? "";
    assert.ok(readFileSync(join(repo, "README.md"), "utf8").includes(`\`\`\`sh\n${block}\`\`\``), "the README shows the same example");
    const commands = block.split("\n").filter((line) => line.startsWith("node dist/cli/main.js "));
    assert.equal(commands.length, 3, block);
    const dir = join(root, "readme");
    mkdirSync(dir);
    const env = { PATH: process.env.PATH, HOME: dir, XDG_STATE_HOME: join(dir, "state"), NO_COLOR: "1" };
    const results: CliResult[] = [];
    for (const line of commands) {
      const words = [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => (m[1] ?? m[2]) as string).slice(2);
      results.push(
        await runCli(
          words.map((word) => (word.startsWith("examples/") ? join(repo, word) : word)),
          { cwd: dir, env },
        ),
      );
    }
    assert.deepEqual(
      results.map((result) => result.code),
      [10, 0, 0],
      results.map((result) => result.stderr).join("\n"),
    );
    assert.match(results[1]?.stdout ?? "", /\nrelease-1 +\S+ +release +approval +\d+s +\{"version":"1\.4\.2"\}\n$/);
    assert.match(results[2]?.stdout ?? "", /^approved \S+ in session release-1\n[^]*Tagged v1\.4\.2\.\n$/);
    assert.equal(readFileSync(join(dir, "releases.txt"), "utf8"), "1.4.2\n", "the approved call ran once");
  });

  describe("on a terminal", { skip: spawnSync("script", ["--version"]).status === 0 ? false : "util-linux script(1) is not installed" }, () => {
    /** Runs the CLI on a pseudo-terminal (script(1)), typing `answer` at its first y/N question. */
    async function onTerminal(dir: string, args: string[], answer: string | undefined): Promise<{ code: number | null; output: string }> {
      const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
      const env = { PATH: process.env.PATH, HOME: dir, XDG_STATE_HOME: join(dir, "state"), TERM: "xterm-256color", NO_COLOR: "1" };
      const child = spawn("script", ["-qfec", [process.execPath, CLI, ...args].map(quote).join(" "), "/dev/null"], {
        cwd: dir,
        env,
        stdio: ["pipe", "pipe", "pipe"],
      });
      let output = "";
      let typed = false;
      child.stdout.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        if (answer !== undefined && !typed && output.includes("[y/N]")) {
          typed = true;
          child.stdin.write(`${answer}\n`);
        }
      });
      const [code] = (await once(child, "exit")) as [number | null];
      return { code, output: output.replaceAll("\r", "") };
    }

    it("asks y/N there and journals the decision, decided_by terminal, before the call runs; the docs' first command (--approvals defer) parks instead", async () => {
      const dir = join(root, "terminal");
      mkdirSync(dir);
      const config = new URL("../../examples/approvals/agent.yaml", import.meta.url).pathname;
      const asked = await onTerminal(dir, ["run", "--config", config, "--checkpoint", "--name", "tty", "Tag release 1.4.2"], "y");
      assert.equal(asked.code, 0, asked.output);
      assert.match(asked.output, /Run release \{"version":"1\.4\.2"\}\? \[y\/N\] /);
      const journal = readFileSync(join(dir, "state", "fisk-ai", "runs", "tty.json"), "utf8")
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as Record<string, { decision?: string; decided_by?: string }>);
      const kindsOf = journal.map((record) => String(record.protocol).split(".").at(-1));
      assert.deepEqual(kindsOf, ["meta", "assistant", "approval_decision", "tool_result", "assistant", "terminal"], "no request: a terminal was there to ask");
      assert.deepEqual([journal[2]?.approval_decision?.decision, journal[2]?.approval_decision?.decided_by], ["approve", "terminal"]);
      assert.equal(readFileSync(join(dir, "releases.txt"), "utf8"), "1.4.2\n");

      // The page's first command, typed on a terminal as a reader pastes it, parks there too.
      const page = readFileSync(new URL("../../docs/approvals.md", import.meta.url), "utf8");
      const first = /```sh\nnode dist\/cli\/main\.js (.*)\n/.exec(page)?.[1] ?? "";
      const words = [...first.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => (m[1] ?? m[2]) as string);
      const deferred = await onTerminal(
        dir,
        words.map((word) => (word === "examples/approvals/agent.yaml" ? config : word)),
        "",
      );
      assert.equal(deferred.code, 10, deferred.output);
      assert.doesNotMatch(deferred.output, /\[y\/N\]/);
      assert.equal(readFileSync(join(dir, "releases.txt"), "utf8"), "1.4.2\n", "the deferred call did not run");
    });
  });

  describe("SIGKILL at each journal boundary", () => {
    it("after the request is journaled: the resume parks again and the call never runs until approved, then once", async () => {
      const ws = workspace();
      const killed = await ws.run(PARK("k1"), { FISK_AI_TEST_CRASH_AT: "after-request:1" });
      assert.equal(killed.signal, "SIGKILL");
      assert.deepEqual(ws.kinds("k1"), ["meta", "assistant", "approval_request"]);
      const resumed = await ws.run(["run", "--resume", "k1"]);
      assert.equal(resumed.code, 10, resumed.stderr);
      assert.deepEqual(ws.executions(), ["note:one"]);
      assert.equal((await ws.run(["session", "approve", "k1"])).code, 0);
      assert.equal((await ws.run(["run", "--resume", "k1"])).code, 0);
      assert.deepEqual(ws.executions(), ["note:one", "send:deploy"]);
      assert.deepEqual(rejected(), []);
    });

    it("after the decision, before its terminal record: a second decider is refused, and the resume runs the call once", async () => {
      const ws = workspace();
      assert.equal((await ws.run(PARK("k2"))).code, 10);
      const killed = await ws.run(["session", "approve", "k2"], { FISK_AI_TEST_CRASH_AT: "after-decide-command:1" });
      assert.equal(killed.signal, "SIGKILL");
      assert.equal(ws.kinds("k2").at(-1), "approval_decision");
      assert.equal((await ws.run(["session", "deny", "k2", "--reason", "late"])).code, 11);
      const done = await ws.run(["run", "--resume", "k2"]);
      assert.equal(done.code, 0, done.stderr);
      assert.deepEqual(ws.executions(), ["note:one", "send:deploy"]);
    });

    it("on the resume, after the approved call's result and before the next model call: it never runs again", async () => {
      const ws = workspace();
      assert.equal((await ws.run(PARK("k3"))).code, 10);
      assert.equal((await ws.run(["session", "approve", "k3"])).code, 0);
      const killed = await ws.run(["run", "--resume", "k3"], { FISK_AI_TEST_CRASH_AT: "before-model:1" });
      assert.equal(killed.signal, "SIGKILL");
      assert.equal((await ws.run(["run", "--resume", "k3"])).code, 0);
      assert.deepEqual(ws.executions(), ["note:one", "send:deploy"], "the approved call ran once");
      assert.deepEqual(rejected(), []);
    });

    it("while the approved call runs on the resume: its tool's crash policy holds (on_crash: never is not run again)", async () => {
      const ws = workspace({ sendNeverReruns: true });
      assert.equal((await ws.run(PARK("k5"))).code, 10);
      assert.equal((await ws.run(["session", "approve", "k5"])).code, 0);
      writeFileSync(join(ws.dir, "side.log.kill"), "");
      const killed = await ws.spawned(["run", "--resume", "k5"]);
      assert.equal(killed.signal, "SIGKILL", killed.stderr);
      assert.deepEqual(ws.kinds("k5").slice(-2), ["terminal", "resumed"], "the resume said it took the batch up before the call ran");
      const done = await ws.run(["run", "--resume", "k5"]);
      assert.equal(done.code, 0, done.stderr);
      assert.deepEqual(ws.executions(), ["note:one", "send:deploy"], "the approved call ran once, and not again after the kill");
      assert.match(String(lastResults().find((r) => r.tool_use_id === "toolu_01")?.content), /may have been running when the run was interrupted/);
      assert.deepEqual(rejected(), []);
    });

    it("after a timed-out request's denial is journaled: the denied call never runs", async () => {
      const ws = workspace({ approvalTimeout: "1ms" });
      assert.equal((await ws.run(PARK("k4"))).code, 10);
      const killed = await ws.run(["run", "--resume", "k4"], { FISK_AI_TEST_CRASH_AT: "after-decision:1" });
      assert.equal(killed.signal, "SIGKILL");
      const decision = ws.records("k4").at(-1) as { approval_decision: { decision: string; decided_by: string; text: string } };
      assert.deepEqual(
        [decision.approval_decision.decision, decision.approval_decision.decided_by, decision.approval_decision.text],
        ["deny", "timeout", "timed out"],
      );
      assert.equal((await ws.run(["run", "--resume", "k4"])).code, 0);
      assert.deepEqual(ws.executions(), ["note:one"]);
      assert.equal(lastResults().find((r) => r.tool_use_id === "toolu_01")?.content, "the operator denied this call of send: timed out");
      assert.deepEqual(rejected(), []);
    });
  });

  describe("on JetStream", { skip: skipWithout("nats-server") }, () => {
    let nats: NatsServer;
    before(async () => (nats = await startNatsServer()));
    after(async () => nats.stop());

    /**
     * Three machines sharing one JetStream store, each with its own directory and side log, and
     * (unless `keyless`) one keyring. No test here waits for a lease to run out, so the lease is
     * long: a decider starved of CPU on a loaded machine past a short one lost it, and was refused
     * (exit 7) where the race expects every loser to be told the call is decided (exit 11).
     */
    async function machines(stream: string, keyless = false): Promise<Workspace[]> {
      const session = `{ backend: jetstream, servers: "${nats.url}", stream: ${stream}, prefix: ${stream.toLowerCase()}.runs, lease_ttl: 60s }`;
      const keyring = keyless ? undefined : sharedKeyring(mkdtempSync(join(root, "keys-")));
      const all = [workspace({ session, keyring }), workspace({ session, keyring }), workspace({ session, keyring })];
      const init = await (all[0] as Workspace).run(["session", "init-stream"]);
      assert.equal(init.code, 0, init.stderr);
      return all;
    }

    it("parks on one machine, is approved from a second and resumed on a third", async () => {
      const [a, b, c] = (await machines("APPROVALS_X")) as [Workspace, Workspace, Workspace];
      assert.equal((await a.run(PARK("j1"))).code, 10);
      assert.match((await b.run(["session", "pending"])).stdout, /\nj1 +toolu_01 +send /);
      const approved = await b.run(["session", "approve", "j1"]);
      assert.equal(approved.code, 0, approved.stderr);
      const done = await c.run(["run", "--resume", "j1"]);
      assert.deepEqual([done.code, done.stdout.split("\n").at(-2)], [0, "Done."], done.stderr);
      assert.deepEqual([a.executions(), b.executions(), c.executions()], [["note:one"], [], ["send:deploy"]]);
      assert.deepEqual(rejected(), []);
    });

    it("refuses to decide where no key is configured, journaling nothing, and makes none", async () => {
      const [a, b] = (await machines("APPROVALS_KEYLESS", true)) as [Workspace, Workspace, Workspace];
      assert.equal((await a.run(PARK("nokey"))).code, 10);
      const refused = await b.run(["session", "approve", "nokey"]);
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(
        refused.stderr,
        /^fisk-ai: a decision on a shared store must be signed with a key every decider and worker trusts, and none is configured: .*FISK_AI_SIGNING_KEYS/,
      );
      assert.equal(existsSync(join(b.dir, ".config", "fisk-ai", "signing-keys.json")), false, "a key was made on one machine");
      const exported = (await a.run(["session", "export", "nokey"])).stdout;
      assert.equal(exported.includes(".approval_decision"), false, "a decision was journaled");
      // A denial needs no signature: refusing is always safe.
      assert.equal((await b.run(["session", "deny", "nokey", "--reason", "no key here"])).code, 0);
    });

    it("lets exactly one of 8 processes deciding the same call at once decide it, every trial; the others exit 11", async () => {
      const [a, b] = (await machines("APPROVALS_RACE")) as [Workspace, Workspace, Workspace];
      for (let trial = 0; trial < 3; trial++) {
        const runId = `race${trial}`;
        assert.equal((await a.run(PARK(runId))).code, 10);
        const results = await Promise.all(
          Array.from({ length: 8 }, (_, index) => (index % 2 === 0 ? a : b).spawned(["session", "approve", runId, "toolu_01"])),
        );
        assert.deepEqual(results.map((result) => result.code).sort(), [0, 11, 11, 11, 11, 11, 11, 11], results.map((result) => result.stderr).join(""));
        const shown = JSON.parse((await a.run(["session", "show", runId, "--json"])).stdout) as { approvals: { decision: unknown }[] };
        assert.equal(shown.approvals.filter((approval) => approval.decision !== null).length, 1);
        const exported = (await a.run(["session", "export", runId])).stdout;
        assert.equal(exported.split("\n").filter((line) => line.includes(".approval_decision")).length, 1, `trial ${trial}: one decision journaled`);
      }
    });
  });
});
