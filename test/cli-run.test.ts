// covers: src/cli/cli-process.ts, src/cli/run/run.ts, src/cli/main.ts, src/cli/context/resume-hint.ts
// covers: src/cli/run/run-command.ts, src/cli/run/run-signals.ts, src/config/shell-word.ts
// start: first
// The promise of `fisk-ai run --checkpoint`, proven the hard way: the real CLI in a child
// process, a strict fake of the Anthropic API on loopback (through the official SDK), a
// command tool whose every execution lands in a side-effect log, and real SIGINT and
// SIGKILL at chosen points, then --resume.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { startFakeAnthropic, type AnthropicReply, type FakeServer } from "./helpers/fake-anthropic-server.js";
import { CLI, startCli, startScript, type CliResult } from "./helpers/cli-harness.js";
import { commandsInProcess } from "./helpers/in-process-cli.js";
import { eventually } from "./helpers/eventually.js";
import { runShell } from "./helpers/run-shell.js";

/** The file's first call spawned, the later ones in this process (test/helpers/in-process-cli.ts). */
const cli = commandsInProcess(["session", "run"]);

const API_KEY = "sk-ant-test-MARKER-5f1e2d";
const FINAL_ANSWER = "Final answer: three notes.";

/** The model's side of the conversation, by how many assistant turns came before. */
const TURNS: AnthropicReply[] = [
  {
    content: [
      { type: "text", text: "Taking notes." },
      { type: "tool_use", id: "toolu_01", name: "note", input: { text: "one" } },
      { type: "tool_use", id: "toolu_02", name: "note", input: { text: "two" } },
    ],
    stop_reason: "tool_use",
    usage: { input_tokens: 100, output_tokens: 20, cache_creation_input_tokens: 50 },
  },
  {
    content: [{ type: "tool_use", id: "toolu_03", name: "note", input: { text: "three" } }],
    stop_reason: "tool_use",
    usage: { input_tokens: 150, output_tokens: 10, cache_read_input_tokens: 50 },
  },
  { content: [{ type: "text", text: FINAL_ANSWER }], stop_reason: "end_turn", usage: { input_tokens: 200, output_tokens: 8 } },
];

function assistantTurnsIn(body: unknown): number {
  const messages = (body as { messages?: { role: string }[] }).messages ?? [];
  return messages.filter((message) => message.role === "assistant").length;
}

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
}
function deferred(): Deferred {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

/** The fake answers by conversation position, so a resumed run gets the same replies; it can hold one call open. */
class Conversation {
  server!: FakeServer;
  #holdAt: number | undefined;
  arrived = deferred();
  release = deferred();

  async start(): Promise<void> {
    this.server = await startFakeAnthropic(
      async (request) => {
        const position = assistantTurnsIn(request.body);
        if (position === this.#holdAt) {
          this.#holdAt = undefined;
          this.arrived.resolve();
          await this.release.promise;
        }
        const reply = TURNS[position];
        if (reply === undefined) throw new Error(`no turn ${position}`);
        return reply;
      },
      { apiKey: API_KEY },
    );
  }

  holdCall(position: number): void {
    this.#holdAt = position;
    this.arrived = deferred();
    this.release = deferred();
  }

  get accepted(): number {
    return this.server.requests.filter((request) => request.accepted).length;
  }

  assertEveryRequestValid(): void {
    for (const request of this.server.requests) {
      assert.ok(request.accepted, `the fake refused a request: ${request.rejection ?? `status ${request.status}`}`);
    }
  }
}

const root = mkdtempSync(join(tmpdir(), "fisk-ai-cli-run-"));
after(() => rmSync(root, { recursive: true, force: true }));
let workspaces = 0;

interface Workspace {
  dir: string;
  env: NodeJS.ProcessEnv;
  sideLog: string;
  gate: string;
  journal(runId: string): { protocol: string; [key: string]: unknown }[];
  executions(): string[];
  openGate(): void;
  writeConfig(changes?: { system?: string; model?: string; extraYaml?: string; noteDescription?: string; noteOnCrash?: string }): void;
}

function workspace(server: FakeServer, { gateOpen = true } = {}): Workspace {
  const dir = join(root, `ws-${++workspaces}`);
  mkdirSync(dir);
  const sideLog = join(dir, "side-effects.log");
  const gate = join(dir, "gate");
  if (gateOpen) writeFileSync(gate, "");
  const ws: Workspace = {
    dir,
    sideLog,
    gate,
    env: {
      PATH: process.env.PATH,
      HOME: dir,
      ANTHROPIC_API_KEY: API_KEY,
      ANTHROPIC_BASE_URL: server.url,
      SIDE_LOG: sideLog,
      GATE: gate,
      NO_COLOR: "1",
    },
    journal: (runId) =>
      readFileSync(join(dir, "state", `${runId}.json`), "utf8")
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as { protocol: string }),
    executions: () =>
      existsSync(sideLog)
        ? readFileSync(sideLog, "utf8")
            .split("\n")
            .filter((line) => line !== "")
        : [],
    openGate: () => writeFileSync(gate, ""),
    writeConfig: (changes = {}) =>
      writeFileSync(
        join(dir, "agent.yaml"),
        `provider: anthropic
model: ${changes.model ?? "claude-sonnet-4-5"}
system: ${changes.system ?? "You are a careful test agent."}
tools:
  - name: note
    description: ${changes.noteDescription ?? "Append a line to the notes"}
    # Logs the execution first, then waits for the gate: a kill can land mid-tool.
    command: [sh, -c, 'echo "$1" >> "$SIDE_LOG"; while [ ! -e "$GATE" ]; do sleep 0.02; done; echo "noted $1"', sh, "{text}"]
    input_schema: { type: object, properties: { text: { type: string } }, required: [text] }
    on_crash: ${changes.noteOnCrash ?? "rerun"}
retry: { max_attempts: 3, base_delay: 10ms }
session: { state_dir: ./state }
${changes.extraYaml ?? ""}
`,
      ),
  };
  ws.writeConfig();
  return ws;
}

function kinds(records: { protocol: string }[]): string[] {
  return records.map((record) => record.protocol.split(".").at(-1) as string);
}

function assertOneLineError(result: CliResult, code: number, message: RegExp): void {
  assert.equal(result.code, code, `exit code; stderr: ${result.stderr}`);
  assert.equal(result.stdout, "");
  const lines = result.stderr.trimEnd().split("\n");
  assert.equal(lines.length, 1, `one line, got: ${result.stderr}`);
  assert.match(lines[0] as string, message);
  assert.doesNotMatch(result.stderr, /^\s+at /m, "no stack trace");
}

const START = ["run", "--checkpoint", "--name", "run1", "Write three notes"];
const hasScript = spawnSync("script", ["--version"]).status === 0;
const RESUME = ["run", "--resume", "run1"];
const COMPLETED_RUN = ["meta", "assistant", "tool_result", "tool_result", "assistant", "tool_result", "assistant", "terminal"];

describe("fisk-ai run against a strict Anthropic fake", () => {
  let conversation: Conversation;
  before(async () => {
    conversation = new Conversation();
    await conversation.start();
  });
  after(() => conversation.server.close());

  it("completes a multi-turn run: the journal holds exactly its records, stdout only the answer", async () => {
    const ws = workspace(conversation.server);
    const before = conversation.accepted;
    const result = await cli(START, { cwd: ws.dir, env: ws.env });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, `${FINAL_ANSWER}\n`);
    assert.match(result.stderr, /Taking notes\.\n→ note \{"text":"one"\}/);
    assert.deepEqual(kinds(ws.journal("run1")), COMPLETED_RUN);
    assert.deepEqual(ws.executions(), ["one", "two", "three"]);
    assert.equal(conversation.accepted - before, 3);
    conversation.assertEveryRequestValid();
  });

  it("puts cache markers in every request and never in the journal, nor the API key in any file", async () => {
    const ws = workspace(conversation.server);
    const first = conversation.server.requests.length;
    assert.equal((await cli(START, { cwd: ws.dir, env: ws.env })).code, 0);
    for (const request of conversation.server.requests.slice(first)) {
      const body = request.body as {
        system: { cache_control?: unknown }[];
        tools: { cache_control?: unknown }[];
        messages: { content: { cache_control?: unknown }[] }[];
      };
      assert.deepEqual(body.system.at(-1)?.cache_control, { type: "ephemeral" }, "system");
      assert.deepEqual(body.tools.at(-1)?.cache_control, { type: "ephemeral" }, "tools");
      assert.deepEqual(body.messages.at(-1)?.content.at(-1)?.cache_control, { type: "ephemeral" }, "latest turn");
    }
    const files = readdirSync(join(ws.dir, "state")).map((name) => join(ws.dir, "state", name));
    assert.ok(files.some((file) => file.endsWith(".json")));
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      assert.ok(!text.includes("cache_control"), `${file} holds a cache marker`);
      assert.ok(!text.includes("MARKER"), `${file} holds the API key`);
    }
  });

  describe("suspend with SIGINT, then --resume: nothing is repeated", () => {
    const points: [string, (ws: Workspace, run: ReturnType<typeof startCli>) => Promise<void>][] = [
      ["during the first model call", () => conversation.arrived.promise],
      ["during the second model call", () => conversation.arrived.promise],
      ["during the first tool of a batch", (ws) => eventually(() => ws.executions().includes("one"), "tool one to start")],
    ];
    for (const [point, reach] of points) {
      it(point, async () => {
        const gateOpen = !point.includes("tool");
        const ws = workspace(conversation.server, { gateOpen });
        if (point.includes("first model")) conversation.holdCall(0);
        if (point.includes("second model")) conversation.holdCall(1);
        const before = conversation.accepted;
        const run = startCli(START, { cwd: ws.dir, env: ws.env });
        await reach(ws, run);
        run.child.kill("SIGINT");
        await run.stderrIncludes("suspending at the next step");
        conversation.release.resolve();
        ws.openGate();
        const suspended = await run.done;
        assert.equal(suspended.code, 3, suspended.stderr);
        const hint = /Suspended session run1; resume with: (.*)\n/.exec(suspended.stderr)?.[1];
        assert.equal(
          hint,
          `${process.execPath} ${CLI} run --resume run1 --config ${join(ws.dir, "agent.yaml")}`,
          "node and the CLI by path: fisk-ai is not on this PATH",
        );
        assert.equal(suspended.stdout, "");
        assert.equal(kinds(ws.journal("run1")).at(-1), "terminal");

        // The hint, executed as printed, from another directory.
        const resumed = await runShell(hint as string, { cwd: root, env: ws.env });
        assert.equal(resumed.code, 0, resumed.stderr);
        assert.equal(resumed.stdout, `${FINAL_ANSWER}\n`, "the same answer as an uninterrupted run");
        assert.match(resumed.stderr, /── the conversation so far ──\n› Write three notes\n/);
        assert.equal(conversation.accepted - before, 3, "no model call was repeated");
        assert.deepEqual(ws.executions(), ["one", "two", "three"], "no tool ran twice");
        conversation.assertEveryRequestValid();
      });
    }
  });

  describe("SIGKILL at a chosen point, then --resume: at most one tool repeats", () => {
    interface KillPoint {
      name: string;
      crashAt?: string;
      holdCall?: number;
      killMidTool?: boolean;
      /** Model calls across both processes: one more only when the kill cut a call short. */
      modelCalls: number;
      executions: string[];
    }
    const killPoints: KillPoint[] = [
      { name: "during a model call", holdCall: 1, modelCalls: 4, executions: ["one", "two", "three"] },
      { name: "right after the assistant record", crashAt: "after-assistant:1", modelCalls: 3, executions: ["one", "two", "three"] },
      { name: "during a tool", killMidTool: true, modelCalls: 3, executions: ["one", "one", "two", "three"] },
      { name: "between two results of one batch", crashAt: "after-tool:1", modelCalls: 3, executions: ["one", "two", "three"] },
      { name: "before the terminal record", crashAt: "after-assistant:3", modelCalls: 3, executions: ["one", "two", "three"] },
    ];
    for (const point of killPoints) {
      it(point.name, async () => {
        const ws = workspace(conversation.server, { gateOpen: point.killMidTool !== true });
        if (point.holdCall !== undefined) conversation.holdCall(point.holdCall);
        const before = conversation.accepted;
        const env = point.crashAt === undefined ? ws.env : { ...ws.env, FISK_AI_TEST_CRASH_AT: point.crashAt };
        const run = startCli(START, { cwd: ws.dir, env });
        if (point.holdCall !== undefined) await conversation.arrived.promise;
        if (point.killMidTool === true) await eventually(() => ws.executions().includes("one"), "tool one to start");
        if (point.crashAt === undefined) run.child.kill("SIGKILL");
        const killed = await run.done;
        assert.equal(killed.signal, "SIGKILL", killed.stderr);
        conversation.release.resolve();
        ws.openGate();
        assert.notEqual(kinds(ws.journal("run1")).at(-1), "terminal", "the kill left the run open");

        const resumed = await cli(RESUME, { cwd: ws.dir, env: ws.env });
        assert.equal(resumed.code, 0, resumed.stderr);
        assert.equal(resumed.stdout, `${FINAL_ANSWER}\n`);
        conversation.assertEveryRequestValid();
        assert.equal(conversation.accepted - before, point.modelCalls);
        assert.deepEqual(ws.executions(), point.executions);
        assert.deepEqual(kinds(ws.journal("run1")), COMPLETED_RUN, "the journal is the run's, whole");
      });
    }
  });

  it("the shipped CLI ignores FISK_AI_TEST_CRASH_AT: only the test entry reads it", async () => {
    const ws = workspace(conversation.server);
    const result = await startScript(CLI, START, { cwd: ws.dir, env: { ...ws.env, FISK_AI_TEST_CRASH_AT: "after-assistant:1" } }).done;
    assert.deepEqual([result.code, result.signal], [0, null], result.stderr);
    assert.equal(result.stdout, `${FINAL_ANSWER}\n`);
    assert.deepEqual(kinds(ws.journal("run1")), COMPLETED_RUN);
  });

  describe("on_crash: what a resume does with the call a SIGKILL cut short", () => {
    const INTERRUPTED =
      /^this call of note may have been running when the run was interrupted \(a crash or a kill\), and it was not run again: whether it took effect is unknown\./;
    /** Starts a run, SIGKILLs it once `started` tools are running, resumes it (`resume` runs it), and returns the journal's results. */
    async function killDuringTools(onCrash: string, options: { parallel?: boolean; resume?: (ws: Workspace) => Promise<CliResult> } = {}) {
      const ws = workspace(conversation.server, { gateOpen: false });
      ws.writeConfig({ noteOnCrash: onCrash, extraYaml: options.parallel === true ? "parallel_tools: true" : "" });
      const run = startCli(START, { cwd: ws.dir, env: ws.env });
      const started = options.parallel === true ? ["one", "two"] : ["one"];
      await eventually(() => started.every((text) => ws.executions().includes(text)), `${started.join(" and ")} to start`);
      run.child.kill("SIGKILL");
      assert.equal((await run.done).signal, "SIGKILL");
      ws.openGate();
      const resumed = await (options.resume ?? ((workspace) => cli(RESUME, { cwd: workspace.dir, env: workspace.env })))(ws);
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.match(resumed.stdout, new RegExp(FINAL_ANSWER));
      conversation.assertEveryRequestValid();
      const results = ws.journal("run1").filter((record) => record.protocol.endsWith("tool_result")) as unknown as {
        tool_result: { tool_use_id: string; result: { content: string; is_error?: boolean } };
      }[];
      return { ws, results: new Map(results.map(({ tool_result }) => [tool_result.tool_use_id, tool_result.result])) };
    }

    it("rerun (the default) runs the cut call again: one repeat", async () => {
      const { ws, results } = await killDuringTools("rerun");
      assert.deepEqual(ws.executions(), ["one", "one", "two", "three"]);
      assert.equal(results.get("toolu_01")?.content, "noted one\n");
    });

    it("never does not run it again: the model gets an is_error result saying its effect is unknown, and the calls after it run", async () => {
      const { ws, results } = await killDuringTools("never");
      assert.deepEqual(ws.executions(), ["one", "two", "three"], "0 repeats");
      assert.equal(results.get("toolu_01")?.is_error, true);
      assert.match(results.get("toolu_01")?.content ?? "", INTERRUPTED);
      assert.equal(results.get("toolu_02")?.content, "noted two\n", "the sequential call after it had not started: it runs");
    });

    it("never, with parallel tools: every unanswered call of the batch may have started, none runs again", async () => {
      const { ws, results } = await killDuringTools("never", { parallel: true });
      assert.deepEqual([...ws.executions()].sort(), ["one", "three", "two"], "0 repeats");
      assert.match(results.get("toolu_01")?.content ?? "", INTERRUPTED);
      assert.match(results.get("toolu_02")?.content ?? "", INTERRUPTED);
    });

    it("ask, with no terminal to ask on, reports the call as interrupted", async () => {
      const { ws, results } = await killDuringTools("ask");
      assert.deepEqual(ws.executions(), ["one", "two", "three"]);
      assert.match(results.get("toolu_01")?.content ?? "", INTERRUPTED);
    });

    for (const [answer, executions] of [
      ["y", ["one", "one", "two", "three"]],
      ["n", ["one", "two", "three"]],
    ] as const) {
      it(`ask, on a terminal, asks before running it again; answered ${answer}`, {
        skip: hasScript ? false : "util-linux script(1) is not installed",
      }, async () => {
        const { ws, results } = await killDuringTools("ask", { resume: (workspace) => resumeOnTerminal(workspace, answer) });
        assert.deepEqual(ws.executions(), executions);
        if (answer === "y") assert.equal(results.get("toolu_01")?.content, "noted one\n");
        else assert.match(results.get("toolu_01")?.content ?? "", INTERRUPTED);
      });
    }
  });

  it("aborts at once on a second SIGINT, journaling nothing more (crash semantics)", async () => {
    const ws = workspace(conversation.server, { gateOpen: false });
    const run = startCli(START, { cwd: ws.dir, env: ws.env });
    await eventually(() => ws.executions().includes("one"), "tool one to start");
    run.child.kill("SIGINT");
    await run.stderrIncludes("suspending at the next step");
    run.child.kill("SIGINT");
    const aborted = await run.done;
    assert.equal(aborted.code, 130, aborted.stderr);
    assert.match(
      aborted.stderr,
      /fisk-ai: interrupted; session run1 was left open as a crash leaves it, resume it with: .*run --resume run1( --config \S+)?\n$/,
    );
    assert.deepEqual(kinds(ws.journal("run1")), ["meta", "assistant"], "no result, no terminal: a resume re-runs the tool");
    ws.openGate();
    const resumed = await cli(RESUME, { cwd: ws.dir, env: ws.env });
    assert.equal(resumed.stdout, `${FINAL_ANSWER}\n`);
    conversation.assertEveryRequestValid();
  });

  it("exits 0 when Ctrl-C lands in the instant after the answer, however often it is pressed", async () => {
    for (const args of [START, ["run", "Write three notes"]]) {
      const ws = workspace(conversation.server);
      const run = startCli(args, { cwd: ws.dir, env: ws.env });
      // From the moment the answer is out until the process is gone, a signal every millisecond.
      let presses = 0;
      const pressing = new Promise<void>((resolve) => {
        run.child.stdout?.once("data", () => {
          const timer = setInterval(() => {
            if (run.child.exitCode !== null || run.child.signalCode !== null || !run.child.kill("SIGINT")) {
              clearInterval(timer);
              resolve();
            } else presses++;
          }, 1);
        });
      });
      const result = await run.done;
      await pressing;
      assert.deepEqual(
        [result.code, result.signal, result.stdout],
        [0, null, `${FINAL_ANSWER}\n`],
        `${args.join(" ")}, after ${presses} presses: ${result.stderr}`,
      );
      assert.doesNotMatch(result.stderr, /interrupted|suspending/, "a finished run has nothing to suspend");
    }
  });

  it("simply stops on Ctrl-C without --checkpoint", async () => {
    const ws = workspace(conversation.server, { gateOpen: false });
    const run = startCli(["run", "Write three notes"], { cwd: ws.dir, env: ws.env });
    await eventually(() => ws.executions().includes("one"), "tool one to start");
    run.child.kill("SIGINT");
    const stopped = await run.done;
    assert.deepEqual([stopped.code, stopped.stdout], [130, ""]);
    assert.ok(!existsSync(join(ws.dir, "state")), "nothing was journaled");
  });

  it("exits 4 at the token budget and 5 at the iteration cap", async () => {
    const budget = workspace(conversation.server);
    budget.writeConfig({ extraYaml: "budget: { max_tokens: 100 }" });
    const overBudget = await cli(START, { cwd: budget.dir, env: budget.env });
    assert.equal(overBudget.code, 4, overBudget.stderr);
    assert.match(overBudget.stderr, /fisk-ai: token budget reached: 170 of 100 tokens used \(session run1\)/);
    assert.deepEqual(budget.executions(), [], "the tools of the turn over budget did not run");

    const capped = workspace(conversation.server);
    capped.writeConfig({ extraYaml: "budget: { max_iterations: 1 }" });
    const overCap = await cli(START, { cwd: capped.dir, env: capped.env });
    assert.equal(overCap.code, 5, overCap.stderr);
    assert.match(overCap.stderr, /iteration cap reached: 1 model calls/);
    assert.deepEqual(kinds(capped.journal("run1")).at(-1), "terminal");
  });

  describe("the resume guard", () => {
    async function openRun(ws: Workspace): Promise<void> {
      const killed = await cli(START, { cwd: ws.dir, env: { ...ws.env, FISK_AI_TEST_CRASH_AT: "after-tool:1" } });
      assert.equal(killed.signal, "SIGKILL");
    }

    it("refuses every configuration change with one line each, and --force proceeds", async () => {
      const ws = workspace(conversation.server);
      await openRun(ws);
      ws.writeConfig({
        system: "You are a different agent.",
        noteDescription: "Append a line",
        extraYaml: "thinking: { mode: adaptive }\nbudget: { max_tokens: 90000, max_iterations: 9 }",
      });
      const refused = await cli([...RESUME, "--model", "claude-opus-4-1"], { cwd: ws.dir, env: ws.env });
      assert.equal(refused.code, 2);
      assert.equal(
        refused.stderr,
        [
          "fisk-ai: cannot resume session run1: its configuration changed:",
          "  model: claude-sonnet-4-5 -> claude-opus-4-1",
          "  system prompt: changed",
          "  tool set: changed",
          "  thinking: off -> adaptive",
          "  max_tokens: 200000 -> 90000",
          "  max_iterations: 50 -> 9",
          "restore the configuration, or resume anyway with --force",
          "",
        ].join("\n"),
      );
      ws.writeConfig({ system: "You are a different agent." });
      const forced = await cli([...RESUME, "--force"], { cwd: ws.dir, env: ws.env });
      assert.equal(forced.code, 0, forced.stderr);
      assert.equal(forced.stdout, `${FINAL_ANSWER}\n`);
    });

    it("refuses a provider change even with --force", async () => {
      const ws = workspace(conversation.server);
      await openRun(ws);
      const refused = await cli([...RESUME, "--force", "--provider", "openai"], {
        cwd: ws.dir,
        env: { ...ws.env, OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" },
      });
      assertOneLineError(refused, 2, /^fisk-ai: cannot resume session run1 with another provider \(provider: anthropic -> openai\).*even with --force$/);
    });

    it("refuses a completed run", async () => {
      const ws = workspace(conversation.server);
      assert.equal((await cli(START, { cwd: ws.dir, env: ws.env })).code, 0);
      assertOneLineError(await cli(RESUME, { cwd: ws.dir, env: ws.env }), 2, /^fisk-ai: session run1 is completed: there is nothing to resume/);
    });
  });

  describe("bad input: one clear line, the right exit code, no trace", () => {
    it("a malformed config", async () => {
      const ws = workspace(conversation.server);
      writeFileSync(join(ws.dir, "agent.yaml"), "model: [unclosed\n");
      assertOneLineError(await cli(START, { cwd: ws.dir, env: ws.env }), 2, /^fisk-ai: agent\.yaml:\d+: not valid YAML: /);
    });

    it("an unknown key", async () => {
      const ws = workspace(conversation.server);
      writeFileSync(join(ws.dir, "agent.yaml"), "provider: anthropic\nmodle: x\n");
      assertOneLineError(await cli(START, { cwd: ws.dir, env: ws.env }), 2, /^fisk-ai: agent\.yaml: unknown key "modle"/);
    });

    it("a missing credential", async () => {
      const ws = workspace(conversation.server);
      const env = { ...ws.env };
      delete env.ANTHROPIC_API_KEY;
      assertOneLineError(
        await cli(START, { cwd: ws.dir, env }),
        2,
        /^fisk-ai: ANTHROPIC_API_KEY is not set: type export ANTHROPIC_API_KEY=<your Anthropic API key> and run again, or run offline with a script: fisk-ai run --config \/\S+\/examples\/notes\/agent.yaml "Remember to buy milk"/,
      );
    });

    it("an unreachable base URL ends the run on error, journaled", async () => {
      const ws = workspace(conversation.server);
      const closed = await startFakeAnthropic(() => TURNS[0] as AnthropicReply);
      await closed.close();
      const result = await cli(START, { cwd: ws.dir, env: { ...ws.env, ANTHROPIC_BASE_URL: closed.url } });
      assert.equal(result.code, 1, result.stderr);
      assert.match(result.stderr, /^fisk-ai: model call failed: .*\(session run1\)$/m);
      assert.doesNotMatch(result.stderr, /^\s+at /m);
      assert.deepEqual(kinds(ws.journal("run1")), ["meta", "terminal"]);
    });

    it("--resume of an unknown id, and of an invalid one", async () => {
      const ws = workspace(conversation.server);
      assertOneLineError(await cli(["run", "--resume", "nope"], { cwd: ws.dir, env: ws.env }), 6, /^fisk-ai: no session nope: /);
      assertOneLineError(await cli(["run", "--resume", "../x"], { cwd: ws.dir, env: ws.env }), 2, /^fisk-ai: invalid session id "\.\.\/x": /);
    });

    it("an unknown flag, and --all without --continue", async () => {
      const ws = workspace(conversation.server);
      assertOneLineError(await cli(["run", "--chekpoint", "x"], { cwd: ws.dir, env: ws.env }), 2, /^fisk-ai: Unknown option '--chekpoint'/);
      assertOneLineError(await cli(["run", "--all", "hello"], { cwd: ws.dir, env: ws.env }), 2, /--all applies to --continue and to --resume without an id/);
      assertOneLineError(
        await cli(["run", "--checkpoint", "--name", "-x", "hi"], { cwd: ws.dir, env: ws.env }),
        2,
        /^fisk-ai: option --name needs a value \(a value that starts with '-' is written --name=-VALUE\); see 'fisk-ai run --help'$/,
      );
    });
  });

  it("reads the prompt from stdin", async () => {
    const ws = workspace(conversation.server);
    const first = conversation.server.requests.length;
    const result = await cli(["run", "-"], { cwd: ws.dir, env: ws.env, stdin: "Notes from a pipe\n" });
    assert.equal(result.code, 0, result.stderr);
    const body = conversation.server.requests[first]?.body as { messages: { content: { text?: string }[] }[] };
    assert.equal(body.messages[0]?.content[0]?.text, "Notes from a pipe");
    assert.ok(!existsSync(join(ws.dir, "state")), "without --checkpoint nothing is journaled");
  });
});

/** `run --resume` under script(1), a pseudo-terminal, answering its one question. */
async function resumeOnTerminal(ws: Workspace, answer: string): Promise<CliResult> {
  const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
  const child = spawn("script", ["-qec", [process.execPath, CLI, ...RESUME].map(quote).join(" "), "/dev/null"], {
    cwd: ws.dir,
    env: ws.env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let output = "";
  // A terminal ends its lines in \r\n; stdout and stderr come back merged.
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString().replaceAll("\r", "")));
  const exited = once(child, "exit");
  try {
    await eventually(() => output.includes("Run it again?"), "the question");
    child.stdin.write(`${answer}\n`);
    const [code] = (await exited) as [number | null];
    return { code, signal: null, stdout: output, stderr: output };
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    child.stdin.end();
  }
}
