// covers: src/cli/mcp/table.ts, src/cli/mcp/mcp-command.ts, src/runstate/records/records.ts
// covers: src/tools/mcp/mcp-content.ts, src/tools/mcp/mcp-defaults.ts, src/tools/mcp/mcp-names.ts
// covers: src/tools/mcp/stdio-transport.ts
// process: shared
// MCP tools end to end: the CLI starts the configured servers (real ones: the test's own
// over stdio and streamable HTTP), the strict fake Anthropic server plays the model, and
// the journal, the guard, the environment and the server processes are checked.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { JournalRecord } from "../src/index.js";
import { PROTOCOLS } from "../src/journal.js";
import { startCli, type CliResult } from "./helpers/cli-harness.js";
import { startFakeAnthropic, type FakeServer, type SentMessage } from "./helpers/fake-anthropic-server.js";
import { reply } from "./helpers/mcp-model-reply.js";
import { startHttpMcpServer, type HttpMcpServer } from "./helpers/mcp-test-server.js";
import { isRunning } from "./helpers/processes.js";
import { commandsInProcess } from "./helpers/in-process-cli.js";
import { eventually } from "./helpers/eventually.js";

/** The file's first call spawned, the later ones in this process (test/helpers/in-process-cli.ts). */
const cli = commandsInProcess(["session", "run"]);

const API_KEY = "sk-ant-test-mcp-secret";
const SERVER = new URL("./helpers/mcp-test-server.js", import.meta.url).pathname;
const root = realpathSync(mkdtempSync(join(tmpdir(), "fisk-ai-cli-mcp-")));
after(() => rmSync(root, { recursive: true, force: true }));

/** "use TOOL {json}" asks for that tool; a tool result is answered with what it said. */
let model: FakeServer;
let http: HttpMcpServer;
before(async () => {
  model = await startFakeAnthropic(async (request) => reply((request.body as { messages: SentMessage[] }).messages), { apiKey: API_KEY });
  http = await startHttpMcpServer();
});
after(async () => {
  await model.close();
  await http.close();
});

let workspaces = 0;
function workspace(servers: string) {
  const dir = join(root, `ws-${++workspaces}`);
  mkdirSync(dir);
  writeFileSync(
    join(dir, "agent.yaml"),
    `provider: anthropic
model: claude-sonnet-4-5
retry: { max_attempts: 2, base_delay: 10ms }
session: { state_dir: ./state }
mcp_servers:
${servers}`,
  );
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: dir,
    ANTHROPIC_API_KEY: API_KEY,
    ANTHROPIC_BASE_URL: model.url,
    NO_COLOR: "1",
    PID_FILE: join(dir, "server.pid"),
    COUNT_LOG: join(dir, "count.log"),
  };
  const journal = (runId: string) => readFileSync(join(dir, "state", `${runId}.json`), "utf8");
  return {
    dir,
    env,
    journal,
    records: (runId: string) =>
      journal(runId)
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as JournalRecord),
    serverPid: () => Number(readFileSync(join(dir, "server.pid"), "utf8")),
    counts: () =>
      existsSync(join(dir, "count.log"))
        ? readFileSync(join(dir, "count.log"), "utf8")
            .split("\n")
            .filter((line) => line !== "")
        : [],
    fisk: (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => cli(args, { cwd: dir, env: { ...env, ...extraEnv } }),
    start: (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => startCli(args, { cwd: dir, env: { ...env, ...extraEnv } }),
  };
}

/** The test's stdio server, steered by the variables of the CLI's environment it inherits. */
const STDIO = (extra = "") => `  - name: test
    command: ${process.execPath}
    args: [${SERVER}]
${extra}`;

function assertDone(result: CliResult, code: number, what: string): void {
  assert.equal(result.code, code, `${what}: ${result.stderr}`);
  assert.doesNotMatch(result.stderr, /^\s+at /m, `${what}: no stack trace`);
}

/** The tool results journaled, without when their calls ran, which no two runs share. */
function toolResults(records: JournalRecord[]) {
  return records.flatMap((record) => {
    if (record.protocol !== PROTOCOLS.tool_result) return [];
    const { started_at: _started, ended_at: _ended, ...rest } = record.tool_result;
    return [rest];
  });
}

function assertEveryRequestValid(): void {
  for (const request of model.requests) assert.ok(request.accepted, `the fake refused a request: ${request.rejection ?? `status ${request.status}`}`);
}

describe("fisk-ai run with MCP servers", () => {
  it("calls a stdio server's tool: the result is journaled as remote and counted, and the server is stopped at the end", async () => {
    const ws = workspace(STDIO());
    const result = await ws.fisk(["run", "--checkpoint", "--name", "m1", 'use test__echo {"text":"hi"}']);
    assertDone(result, 0, "the run");
    assert.equal(result.stdout, "Result: echo: hi\n");
    const [ran] = ws.records("m1").flatMap((record) => (record.protocol === PROTOCOLS.tool_result ? [record.tool_result] : []));
    assert.ok(ran?.started_at !== undefined && ran.ended_at !== undefined, "the call's times are journaled");
    assert.deepEqual(toolResults(ws.records("m1")), [
      { tool_use_id: "toolu_1", result: { type: "tool_result", tool_use_id: "toolu_1", content: "echo: hi" }, remote: true },
    ]);
    const shown = await ws.fisk(["session", "show", "m1"]);
    assert.match(shown.stdout, /tool calls\s+1 \(1 remote\)/);
    const json = JSON.parse((await ws.fisk(["session", "show", "m1", "--json"])).stdout) as { counters: { remote_tool_calls: number } };
    assert.equal(json.counters.remote_tool_calls, 1);
    // The model saw the server's tools, named <server>__<tool>.
    const tools = (model.requests.at(-1)?.body as { tools: { name: string }[] }).tools.map((tool) => tool.name);
    assert.ok(tools.includes("test__echo") && tools.includes("test__count"), tools.join(", "));
    await eventually(() => !isRunning(ws.serverPid()), "the server to be stopped");
    assertEveryRequestValid();
  });

  it("calls a streamable HTTP server, with a header whose value comes from the environment and never reaches the journal", async () => {
    const ws = workspace(`  - name: web
    url: ${http.url}
    headers: { Authorization: "Bearer \${WEB_TOKEN}" }
`);
    const seen = http.authorizations.length;
    const result = await ws.fisk(["run", "--checkpoint", "--name", "h1", 'use web__echo {"text":"over http"}'], { WEB_TOKEN: "tok-7d1f" });
    assertDone(result, 0, "the run");
    assert.equal(result.stdout, "Result: echo: over http\n");
    assert.ok(http.authorizations.slice(seen).every((value) => value === "Bearer tok-7d1f"));
    assert.equal(toolResults(ws.records("h1"))[0]?.remote, true);
    assert.ok(!ws.journal("h1").includes("tok-7d1f"));

    const missing = await ws.fisk(["run", "hello"]);
    assertDone(missing, 2, "a header naming an unset variable");
    assert.equal(missing.stderr, "fisk-ai: mcp_servers[0].headers.Authorization: ${WEB_TOKEN} is not set: export WEB_TOKEN, or remove it from the header\n");
  });

  it("reports a server that fails to start in one line naming it and its stderr, and starts no session", async () => {
    const failing = workspace(STDIO());
    const failed = await failing.fisk(["run", "--checkpoint", "--name", "never", "hello"], { FAIL_START: "1" });
    assertDone(failed, 1, "a server that fails to start");
    assert.match(
      failed.stderr,
      /^fisk-ai: MCP server test \('.*node'\) did not start or list its tools: .*; its stderr said: fatal: cannot open the database\n$/,
    );
    assert.equal(existsSync(join(failing.dir, "state", "never.json")), false);
  });

  it("hands a stdio server no credential, unless its env passes one on by name", async () => {
    const ws = workspace(STDIO());
    const result = await ws.fisk(["run", "--checkpoint", "--name", "env1", "use test__environment {}"], { NATS_TOKEN: "nats-secret-1", OTHER: "kept" });
    assertDone(result, 0, "the run");
    const journal = ws.journal("env1");
    for (const secret of [API_KEY, "nats-secret-1"]) assert.ok(!journal.includes(secret), `${secret} reached the journal`);
    assert.ok(!result.stdout.includes(API_KEY));
    assert.match(journal, /\\"OTHER\\":\\"kept\\"/);

    const passing = workspace(`${STDIO()}    env: [NATS_TOKEN]\n`);
    const passed = await passing.fisk(["run", "--checkpoint", "--name", "env2", "use test__environment {}"], { NATS_TOKEN: "nats-secret-2" });
    assertDone(passed, 0, "the run passing one on");
    assert.match(passing.journal("env2"), /\\"NATS_TOKEN\\":\\"nats-secret-2\\"/);
    assert.ok(!passing.journal("env2").includes(API_KEY));
  });

  it("refuses a resume after the server's tools changed, naming the server; resumes once they are back", async () => {
    const ws = workspace(STDIO());
    const gate = join(ws.dir, "gate");
    const run = ws.start(["run", "--checkpoint", "--name", "g1", 'use test__count {"label":"a"}'], { GATE: gate });
    await eventually(() => ws.counts().length === 1, "the call to start");
    run.child.kill("SIGINT");
    await run.stderrIncludes("suspending");
    writeFileSync(gate, "");
    assertDone(await run.done, 3, "the suspend");
    await eventually(() => !isRunning(ws.serverPid()), "the server to be stopped at the suspend");
    // Ctrl-C reached the run, not the server: the call finished and was journaled.
    assert.deepEqual(
      toolResults(ws.records("g1")).map((entry) => entry.result.content),
      ["counted a"],
    );

    const refused = await ws.fisk(["run", "--resume", "g1"], { EXTRA_TOOL: "1" });
    assertDone(refused, 2, "a resume with another tool set");
    assert.match(refused.stderr, /tool set: changed \(MCP server test offers other tools\)/);
    const resumed = await ws.fisk(["run", "--resume", "g1"]);
    assertDone(resumed, 0, "the resume");
    assert.equal(resumed.stdout, "Result: counted a\n");
    assertEveryRequestValid();
  });

  for (const [policy, executions] of [
    ["rerun", 2],
    ["never", 1],
  ] as const) {
    it(`killed with -9 during an MCP call (on_crash: ${policy}): no server is left running, and the resume runs the call ${executions === 2 ? "once more" : "never again"}`, async () => {
      const ws = workspace(STDIO(`    on_crash: { count: ${policy} }\n`));
      const gate = join(ws.dir, "gate");
      const run = ws.start(["run", "--checkpoint", "--name", "k1", 'use test__count {"label":"once"}'], { GATE: gate });
      await eventually(() => ws.counts().length === 1, "the call to start");
      const pid = ws.serverPid();
      run.child.kill("SIGKILL");
      await run.done;
      await eventually(() => !isRunning(pid), "the orphaned server to be stopped");
      const shown = await ws.fisk(["session", "show", "k1"]);
      assert.match(shown.stdout, new RegExp(`test__count \\(toolu_1, on_crash: ${policy}\\)`));

      writeFileSync(gate, "");
      const resumed = await ws.fisk(["run", "--resume", "k1"]);
      assertDone(resumed, 0, "the resume");
      assert.equal(ws.counts().length, executions);
      const [entry] = toolResults(ws.records("k1"));
      if (policy === "rerun") {
        assert.deepEqual([entry?.result.content, entry?.remote], ["counted once", true]);
      } else {
        assert.equal(entry?.result.is_error, true);
        assert.match(String(entry?.result.content), /was not run again: whether it took effect is unknown/);
        assert.equal(entry?.remote, undefined, "no remote call was made for it");
      }
      assertEveryRequestValid();
    });
  }
});
