// covers: src/index.ts, src/runstate/views/run-digest.ts
// process: shared
// The library as a user meets it: imported by its package name, runs driven through
// runAgent against a strict fake of the Anthropic API, and the examples run as programs.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { request } from "node:http";
import { join } from "node:path";
import { describe, it, type TestContext } from "node:test";
import * as z from "zod";
import * as root from "fisk-ai";
import * as journal from "fisk-ai/journal";
import { AnthropicProvider, ConfigError, defineTool, MemoryStore, ResumeRefusedError, runAgent, type AgentEvents } from "fisk-ai";
import { connectMcpServers } from "fisk-ai/mcp";
import { startFakeAnthropic, type AnthropicReply, type AnthropicTurn, type FakeServer } from "./helpers/fake-anthropic-server.js";
import { startScript } from "./helpers/cli-harness.js";
import { startLoopbackServer } from "./helpers/http-json.js";
import { eventually } from "./helpers/eventually.js";

const KEY = "sk-ant-test";
const REPO = new URL("../../", import.meta.url).pathname;
const EXAMPLES = join(REPO, "examples/library");
const MCP_SERVER = new URL("./helpers/mcp-test-server.js", import.meta.url).pathname;

function textTurn(text: string): AnthropicTurn {
  return { content: [{ type: "text", text }], stop_reason: "end_turn", usage: { input_tokens: 10, output_tokens: 3 } };
}

function toolTurn(name: string, input: Record<string, unknown>, id = "toolu_01"): AnthropicTurn {
  return { content: [{ type: "tool_use", id, name, input }], stop_reason: "tool_use", usage: { input_tokens: 20, output_tokens: 5 } };
}

async function fake(t: TestContext, replies: AnthropicReply[] | ((index: number) => AnthropicReply | Promise<AnthropicReply>)): Promise<FakeServer> {
  const server = await startFakeAnthropic(
    (_request, index) => {
      if (typeof replies === "function") return replies(index);
      const reply = replies[index];
      if (reply === undefined) throw new Error(`call #${index + 1} was not expected`);
      return reply;
    },
    { apiKey: KEY },
  );
  t.after(() => server.close());
  return server;
}

function toolResultsSent(server: FakeServer, call: number): unknown[] {
  const body = server.requests.filter((r) => r.accepted)[call]?.body as { messages: { role: string; content: unknown }[] };
  const last = body.messages.at(-1) as { content: { type: string }[] };
  return last.content.filter((block) => block.type === "tool_result");
}

describe("runAgent", () => {
  it("runs a zod tool with typed, validated input and returns the answer, counters and session id", async (t) => {
    const server = await fake(t, [toolTurn("add", { a: 2, b: "three" }, "toolu_bad"), toolTurn("add", { a: 2, b: 3 }), textTurn("5")]);
    const seen: number[] = [];
    const add = defineTool({
      name: "add",
      description: "Adds two numbers",
      input: z.object({ a: z.number(), b: z.number() }),
      run: ({ a, b }) => (seen.push(a + b), String(a + b)),
    });
    const outcome = await runAgent({
      provider: new AnthropicProvider({ apiKey: KEY, baseURL: server.url }),
      model: "claude-sonnet-4-5",
      prompt: "add 2 and 3",
      tools: [add],
    });
    assert.equal(outcome.reason, "completed");
    assert.equal(outcome.answer, "5");
    assert.equal(outcome.checkpointed, false);
    assert.match(outcome.runId, /^[0-9A-Za-z]{27}$/);
    assert.deepEqual([outcome.counters.modelCalls, outcome.counters.toolCalls, outcome.counters.inTokens, outcome.counters.outTokens], [3, 2, 50, 13]);
    assert.deepEqual(seen, [5], "the handler never saw the invalid input");
    const [invalid] = toolResultsSent(server, 1) as { content: string; is_error?: boolean }[];
    assert.equal(invalid?.is_error, true);
    assert.match(invalid?.content ?? "", /^invalid input for add: b: /);
    const tools = (server.requests[0]?.body as { tools: { name: string; input_schema: Record<string, unknown> }[] }).tools;
    assert.deepEqual(tools[0]?.input_schema, {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    });
  });

  it("suspends when its signal aborts and resumes from the store without running a journaled tool again", async (t) => {
    const server = await fake(t, [toolTurn("step", {}), textTurn("done")]);
    const store = new MemoryStore();
    t.after(() => store.close());
    const suspend = new AbortController();
    let steps = 0;
    const step = defineTool({ name: "step", description: "One step", input: { type: "object" }, run: () => (steps++, suspend.abort(), "stepped") });
    const provider = new AnthropicProvider({ apiKey: KEY, baseURL: server.url });
    const events: string[] = [];
    const trace: AgentEvents = { runStarted: (info) => events.push(`started resumed=${info.resumed}`), runFinished: (outcome) => events.push(outcome.reason) };
    const first = await runAgent({ provider, model: "m", prompt: "go", tools: [step], store, runId: "lib-1", suspendSignal: suspend.signal, events: trace });
    assert.deepEqual([first.reason, first.runId, first.checkpointed, first.counters.modelCalls], ["suspended", "lib-1", true, 1]);
    const second = await runAgent({ provider, model: "m", tools: [step], store, resume: "lib-1", events: trace });
    assert.deepEqual([second.reason, second.answer, second.counters.modelCalls, second.counters.toolCalls], ["completed", "done", 2, 1]);
    assert.equal(steps, 1);
    assert.deepEqual(events, ["started resumed=false", "suspended", "started resumed=true", "completed"]);
  });

  it("asks a tool's confirm callback with the typed input, and a refusal reaches the model as an error", async (t) => {
    const server = await fake(t, [toolTurn("rm", { path: "/etc" }), textTurn("refused")]);
    const asked: string[] = [];
    const rm = defineTool({
      name: "rm",
      description: "Removes a file",
      input: z.object({ path: z.string() }),
      confirm: ({ path }) => (asked.push(path), path.startsWith("/tmp/")),
      run: () => "removed",
    });
    const outcome = await runAgent({ provider: new AnthropicProvider({ apiKey: KEY, baseURL: server.url }), model: "m", prompt: "rm /etc", tools: [rm] });
    assert.equal(outcome.answer, "refused");
    assert.deepEqual(asked, ["/etc"]);
    const [denied] = toolResultsSent(server, 1) as { content: string; is_error?: boolean }[];
    assert.equal(denied?.is_error, true);
    assert.match(denied?.content ?? "", /did not allow this call of rm/);
  });

  it("refuses options that do not fit together with a ConfigError, and a completed session with a ResumeRefusedError", async (t) => {
    const server = await fake(t, [textTurn("hi")]);
    const provider = new AnthropicProvider({ apiKey: KEY, baseURL: server.url });
    const store = new MemoryStore();
    t.after(() => store.close());
    await assert.rejects(runAgent({ provider, model: "m", resume: "x" }), (e) => e instanceof ConfigError && /resume needs the store/.test(e.message));
    await assert.rejects(runAgent({ provider, model: "m", prompt: " " }), (e) => e instanceof ConfigError && /prompt is empty/.test(e.message));
    await assert.rejects(
      runAgent({ provider, model: "m", prompt: "p", store, resume: "x" }),
      (e) => e instanceof ConfigError && /pass no prompt/.test(e.message),
    );
    const twice = defineTool({ name: "t", description: "", input: { type: "object" }, run: () => "" });
    await assert.rejects(
      runAgent({ provider, model: "m", prompt: "p", tools: [twice, twice] }),
      (e) => e instanceof ConfigError && /two tools are named t/.test(e.message),
    );
    await assert.rejects(runAgent({ provider, model: "m", store, resume: "missing" }), (e) => root.isRunStateError(e, "ERR_NOT_FOUND"));
    await runAgent({ provider, model: "m", prompt: "hi", store, runId: "done" });
    await assert.rejects(runAgent({ provider, model: "m", store, resume: "done" }), (e) => e instanceof ResumeRefusedError && /is completed/.test(e.message));
  });

  it("refuses a resume with another model with a ResumeRefusedError that says what changed, in no CLI's words, and force proceeds", async (t) => {
    const server = await fake(t, [textTurn("forced")]);
    const provider = new AnthropicProvider({ apiKey: KEY, baseURL: server.url });
    const store = new MemoryStore();
    t.after(() => store.close());
    // Aborted before it starts: suspended at its first step, before any model call.
    const paused = await runAgent({ provider, model: "m", prompt: "hi", store, runId: "paused", suspendSignal: AbortSignal.abort() });
    assert.equal(paused.reason, "suspended");
    const refused = await runAgent({ provider, model: "other", store, resume: "paused" }).then(
      () => assert.fail("the resume went ahead"),
      (error: unknown) => error,
    );
    assert.ok(refused instanceof ResumeRefusedError, String(refused));
    assert.deepEqual(
      { refusal: refused.refusal, runId: refused.runId, changes: refused.changes, forceOverrides: refused.forceOverrides },
      { refusal: "configuration-changed", runId: "paused", changes: ["model: m -> other"], forceOverrides: true },
    );
    assert.match(refused.message, /^cannot resume session paused: its configuration changed:\n {2}model: m -> other\n.*pass force/);
    assert.doesNotMatch(refused.message, /--force|fisk-ai/);
    const forced = await runAgent({ provider, model: "other", store, resume: "paused", force: true });
    assert.deepEqual([forced.reason, forced.answer], ["completed", "forced"]);
  });
});

describe("fisk-ai/mcp", () => {
  it("offers an MCP server's tools to runAgent, the server started with this environment minus credentials", async (t) => {
    const server = await fake(t, [toolTurn("test__echo", { text: "hi" }), toolTurn("test__environment", {}, "toolu_02"), textTurn("done")]);
    const saved = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = "sk-never-passed-on";
    t.after(() => (saved === undefined ? delete process.env.OPENAI_API_KEY : (process.env.OPENAI_API_KEY = saved)));
    const mcp = await connectMcpServers([{ name: "test", transport: { kind: "stdio", command: process.execPath, args: [MCP_SERVER] } }]);
    t.after(() => mcp.close());
    const outcome = await runAgent({ provider: new AnthropicProvider({ apiKey: KEY, baseURL: server.url }), model: "m", prompt: "echo hi", tools: mcp.tools });
    assert.deepEqual([outcome.reason, outcome.answer, outcome.counters.toolCalls], ["completed", "done", 2]);
    const [echoed] = toolResultsSent(server, 1) as { content: unknown }[];
    assert.match(JSON.stringify(echoed?.content), /echo: hi/);
    const [environment] = toolResultsSent(server, 2) as { content: unknown }[];
    const seen = JSON.stringify(environment?.content);
    assert.match(seen, /PATH/, "the server got this process's environment");
    assert.doesNotMatch(seen, /OPENAI_API_KEY|sk-never-passed-on/);
  });
});

describe("the package root", () => {
  it("exports the API and not the internal seams", () => {
    for (const name of [
      "runAgent",
      "defineTool",
      "AnthropicProvider",
      "OpenAIProvider",
      "ScriptProvider",
      "FileStore",
      "MemoryStore",
      "createStore",
      "fold",
      "RunStateError",
      "ERROR_CODES",
      "ConfigError",
      "ResumeRefusedError",
      "ModelCallError",
    ]) {
      assert.ok(name in root, `${name} is exported`);
    }
    for (const name of ["nodeFileSystem", "RECORD_SCHEMAS", "ENVELOPE_SCHEMA", "startRun", "ToolSet", "connectMcpServers"])
      assert.ok(!(name in root), `${name} is not exported`);
  });

  it("leaves the journal's internals to fisk-ai/journal", () => {
    for (const name of ["PROTOCOLS", "RECORD_VERSION", "foldStep", "encodeRecord", "decodeJournal", "storeContract", "digestOf", "assertRunId"]) {
      assert.ok(!(name in root), `${name} is not at the root`);
      assert.ok(name in journal, `${name} is in fisk-ai/journal`);
    }
  });
});

describe("the examples", () => {
  const env = (server: FakeServer): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url });

  it("function-tool runs its tool and prints the answer, and docs/library.md shows it verbatim", async (t) => {
    const server = await fake(t, [toolTurn("power", { base: 2, exponent: 10 }), textTurn("1024")]);
    const result = await startScript(join(REPO, ".test-build/examples/library/function-tool.js"), ["2^10?"], { cwd: REPO, env: env(server) }).done;
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, "1024\n");
    assert.equal(result.stderr, "calling power\nmodel calls: 2, tool calls: 1\n");
    const [power] = toolResultsSent(server, 1) as { content: string; tool_use_id: string }[];
    assert.deepEqual([power?.tool_use_id, power?.content], ["toolu_01", "1024"]);
    const page = readFileSync(join(REPO, "docs/library.md"), "utf8");
    assert.ok(page.includes(readFileSync(join(EXAMPLES, "function-tool.ts"), "utf8")), "the library page's example is examples/library/function-tool.ts");
  });

  it("suspend-resume suspends on Ctrl-C in one process and finishes in another without counting again", async (t) => {
    const dir = mkdtempSync(join(tmpdir(), "fisk-lib-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const server = await fake(t, [toolTurn("count", { to: 10 }), textTurn("it stopped early")]);
    const script = join(REPO, ".test-build/examples/library/suspend-resume.js");
    const first = startScript(script, ["start", dir, "count to ten"], { cwd: REPO, env: env(server) });
    await first.stderrIncludes("counting 1 of 10");
    first.child.kill("SIGINT");
    const stopped = await first.done;
    assert.equal(stopped.code, 0, stopped.stderr);
    const suspended = JSON.parse(stopped.stdout) as { runId: string; reason: string; toolCalls: number };
    assert.deepEqual([suspended.reason, suspended.toolCalls], ["suspended", 1]);
    const resumed = await startScript(script, ["resume", dir, suspended.runId], { cwd: REPO, env: env(server) }).done;
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(resumed.stderr, "", "the resume does not count again");
    assert.deepEqual(JSON.parse(resumed.stdout), { runId: suspended.runId, reason: "completed", answer: "it stopped early", toolCalls: 1 });
    const [count] = toolResultsSent(server, 1) as { content: string }[];
    assert.match(String(count?.content), /^stopped at \d+ of 10: the run was asked to suspend$/);
  });

  it("http-handler runs a session per request: a hang-up suspends it, the next request resumes it", async (t) => {
    const dir = mkdtempSync(join(tmpdir(), "fisk-lib-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    let release: (() => void) | undefined;
    let fetches = 0;
    const page = await startLoopbackServer(async (_req, res) => {
      fetches++;
      await new Promise<void>((resolve) => (release = resolve));
      res.end("the page");
    });
    t.after(() => page.close());
    const server = await fake(t, [toolTurn("fetch_url", { url: page.url }), textTurn("it says: the page")]);
    const app = startScript(join(REPO, ".test-build/examples/library/http-handler.js"), [dir], { cwd: REPO, env: { ...env(server), PORT: "0" } });
    t.after(() => app.child.kill("SIGTERM"));
    await app.stderrIncludes("listening on ");
    const port = Number(/listening on (\d+)/.exec(app.stderr())?.[1]);
    const post = (path: string, body: string): { done: Promise<{ status: number; body: Record<string, unknown> }>; hangUp(): void } => {
      const req = request({ host: "127.0.0.1", port, path, method: "POST", headers: { "content-type": "application/json" } });
      const done = new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
        req.on("error", reject);
        req.on("response", (res) => {
          let text = "";
          res.on("data", (chunk: Buffer) => (text += chunk.toString()));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }));
        });
      });
      req.end(body);
      return { done, hangUp: () => req.destroy() };
    };

    const missing = await post("/sessions/nobody", "").done;
    assert.deepEqual([missing.status, missing.body.code], [404, "ERR_NOT_FOUND"]);
    const first = post("/sessions/web-1", JSON.stringify({ prompt: "read the page" }));
    first.done.catch(() => undefined);
    await eventually(() => release !== undefined, "the tool's fetch to arrive");
    first.hangUp();
    await app.stderrIncludes("client hung up: suspending session web-1");
    release?.();
    await app.stderrIncludes("session web-1: suspended");
    const resumed = await post("/sessions/web-1", "").done;
    assert.equal(resumed.status, 200, JSON.stringify(resumed.body));
    assert.deepEqual([resumed.body.runId, resumed.body.reason, resumed.body.answer], ["web-1", "completed", "it says: the page"]);
    assert.deepEqual([(resumed.body.counters as { toolCalls: number }).toolCalls, fetches], [1, 1]);
    const again = await post("/sessions/web-1", "").done;
    assert.equal(again.status, 409);
    assert.match(String(again.body.error), /is completed/);
  });
});
