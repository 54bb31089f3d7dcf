// covers: src/llm/anthropic-provider.ts, src/runstate/records/records.ts
// process: shared
// Every turn shape the Anthropic API can return, through the real CLI against the strict
// fake: server tool blocks and block types fisk-ai does not model (kept verbatim, sent
// back verbatim, shown, verified), paused turns (continued, also after a crash) and turns
// cut at max_tokens in the middle of a tool call (never run, always answered).
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { startFakeAnthropic, type AnthropicReply, type FakeServer, type WireBlock } from "./helpers/fake-anthropic-server.js";
import type { CliResult } from "./helpers/cli-harness.js";
import { commandsInProcess } from "./helpers/in-process-cli.js";

const API_KEY = "sk-ant-test-shapes";
const root = mkdtempSync(join(tmpdir(), "fisk-ai-turn-shapes-"));
/** The file's first call spawned, the later ones in this process (test/helpers/in-process-cli.ts). */
const cli = commandsInProcess(["session", "run"]);
after(() => rmSync(root, { recursive: true, force: true }));
let workspaces = 0;

type JsonRecord = { protocol: string; seq: number; [key: string]: unknown };
type WireMessage = { role: string; content: WireBlock[] };

interface Workspace {
  dir: string;
  env: NodeJS.ProcessEnv;
  server: FakeServer;
  fisk(args: string[], env?: NodeJS.ProcessEnv): Promise<CliResult>;
  journal(): JsonRecord[];
  executions(): string[];
  /** The messages of each request the fake accepted, in order. */
  sent(): WireMessage[][];
}

const usage = { input_tokens: 10, output_tokens: 5 };

/** A workspace whose fake answers the n-th model call with `turns[n]`. */
async function workspace(turns: AnthropicReply[]): Promise<Workspace> {
  const server = await startFakeAnthropic(
    (_request, n) => {
      const reply = turns[n];
      if (reply === undefined) throw new Error(`no turn ${n}`);
      return reply;
    },
    { apiKey: API_KEY },
  );
  after(() => server.close());
  const dir = join(root, `ws-${++workspaces}`);
  mkdirSync(dir);
  const sideLog = join(dir, "side-effects.log");
  writeFileSync(
    join(dir, "agent.yaml"),
    `provider: anthropic
model: claude-sonnet-4-5
system: You are a careful test agent.
tools:
  - name: note
    description: Append a line to the notes
    command: [sh, -c, 'echo "$1" >> "$SIDE_LOG"; echo "noted $1"', sh, "{text}"]
    input_schema: { type: object, properties: { text: { type: string } }, required: [text] }
retry: { max_attempts: 1, base_delay: 10ms }
session: { state_dir: ./state }
`,
  );
  const env = { PATH: process.env.PATH, HOME: dir, ANTHROPIC_API_KEY: API_KEY, ANTHROPIC_BASE_URL: server.url, SIDE_LOG: sideLog, NO_COLOR: "1" };
  return {
    dir,
    env,
    server,
    fisk: (args, extra = {}) => cli(args, { cwd: dir, env: { ...env, ...extra } }),
    journal: () =>
      readFileSync(join(dir, "state", "run1.json"), "utf8")
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as JsonRecord),
    executions: () =>
      existsSync(sideLog)
        ? readFileSync(sideLog, "utf8")
            .split("\n")
            .filter((line) => line !== "")
        : [],
    sent: () => {
      for (const request of server.requests) assert.ok(request.accepted, `the fake refused a request: ${request.rejection ?? `status ${request.status}`}`);
      return server.requests.map((request) => (request.body as { messages: WireMessage[] }).messages);
    },
  };
}

const START = ["run", "--checkpoint", "--name", "run1", "Find the tool and take a note"];
const RESUME = ["run", "--resume", "run1"];

function kinds(records: JsonRecord[]): string[] {
  return records.map((record) => record.protocol.split(".").at(-1) as string);
}

function assistantOf(record: JsonRecord): { stop_reason?: string; message: { content: WireBlock[] } } {
  return record.assistant as { stop_reason?: string; message: { content: WireBlock[] } };
}

/** A block as the request carried it, without the cache marker the provider adds to the latest one. */
function unmarked(block: WireBlock): WireBlock {
  const { cache_control: _marker, ...rest } = block;
  return rest as WireBlock;
}

function assertSucceeded(result: CliResult, what: string): void {
  assert.equal(result.code, 0, `${what}: exit ${String(result.code)}; stderr: ${result.stderr}`);
}

// A tool search turn as the API returns it once a run has many tools, with an MCP connector
// call beside it: mcp_tool_use is a block type fisk-ai does not model.
const SEARCH_TURN: WireBlock[] = [
  { type: "text", text: "Looking for a note tool." },
  { type: "server_tool_use", id: "srvtoolu_01", name: "tool_search_tool_regex", input: { pattern: "note" } },
  {
    type: "tool_search_tool_result",
    tool_use_id: "srvtoolu_01",
    content: { type: "tool_search_tool_search_result", tool_references: [{ type: "tool_reference", tool_name: "note" }] },
  },
  { type: "mcp_tool_use", id: "mcptoolu_01", name: "lookup", server_name: "wiki", input: { q: "notes" } },
  { type: "mcp_tool_result", tool_use_id: "mcptoolu_01", is_error: false, content: [{ type: "text", text: "notes go in the log" }] },
  { type: "tool_use", id: "toolu_01", name: "note", input: { text: "found" } },
];

describe("turn shapes against the strict Anthropic fake", () => {
  it("journals server tool blocks and unmodelled blocks verbatim, sends them back verbatim, shows and verifies them", async () => {
    const ws = await workspace([
      { content: SEARCH_TURN, stop_reason: "tool_use", usage },
      { content: [{ type: "text", text: "Noted." }], stop_reason: "end_turn", usage },
    ]);
    const result = await ws.fisk(START);
    assertSucceeded(result, "run");
    assert.equal(result.stdout, "Noted.\n");
    assert.deepEqual(ws.executions(), ["found"]);
    const records = ws.journal();
    assert.deepEqual(kinds(records), ["meta", "assistant", "tool_result", "assistant", "terminal"]);
    assert.deepEqual(assistantOf(records[1] as JsonRecord).message.content, SEARCH_TURN);
    const sent = ws.sent();
    assert.equal(sent.length, 2);
    assert.deepEqual(sent[1]?.[1], { role: "assistant", content: SEARCH_TURN });

    const shown = await ws.fisk(["session", "show", "run1", "--transcript"]);
    assertSucceeded(shown, "show");
    assert.match(shown.stdout, /^→ \(server\) tool_search_tool_regex \{"pattern":"note"\}$/m);
    assert.match(shown.stdout, /^\[tool_search_tool_result\] tool_use_id srvtoolu_01$/m);
    assert.match(shown.stdout, /^\[mcp_tool_use\] name lookup$/m);
    assert.match(shown.stdout, /^\[mcp_tool_result\] tool_use_id mcptoolu_01$/m);
    assert.match(shown.stdout, /^→ note \{"text":"found"\}$/m);
    assertSucceeded(await ws.fisk(["session", "verify", "run1"]), "verify");
    const listed = JSON.parse((await ws.fisk(["session", "ls", "--json"])).stdout) as { id?: string; status: string }[];
    assert.deepEqual(
      listed.map((row) => row.status),
      ["completed"],
    );
  });

  it("continues a paused turn with the paused content and journals both halves", async () => {
    const paused: WireBlock[] = [
      { type: "text", text: "Searching." },
      { type: "server_tool_use", id: "srvtoolu_02", name: "web_search", input: { query: "notes" } },
    ];
    const continued: WireBlock[] = [
      { type: "web_search_tool_result", tool_use_id: "srvtoolu_02", content: [] },
      { type: "text", text: "Nothing found." },
    ];
    const ws = await workspace([
      { content: paused, stop_reason: "pause_turn", usage },
      { content: continued, stop_reason: "end_turn", usage },
    ]);
    const result = await ws.fisk(START);
    assertSucceeded(result, "run");
    assert.equal(result.stdout, "Searching.Nothing found.\n");
    const records = ws.journal();
    assert.deepEqual(kinds(records), ["meta", "assistant", "assistant", "terminal"]);
    assert.equal(assistantOf(records[1] as JsonRecord).stop_reason, "pause_turn");
    const sent = ws.sent();
    // The second call carries the paused turn as the final assistant message, as it came.
    assert.deepEqual(
      sent[1]?.slice(1).map((message) => ({ ...message, content: message.content.map(unmarked) })),
      [{ role: "assistant", content: paused }],
    );
    const shown = await ws.fisk(["session", "show", "run1", "--json"]);
    assertSucceeded(shown, "show");
    assert.equal((JSON.parse(shown.stdout) as { counters: { model_calls: number } }).counters.model_calls, 2);
    assertSucceeded(await ws.fisk(["session", "verify", "run1"]), "verify");
  });

  it("resumes a run killed between a paused turn and its continuation", async () => {
    const paused: WireBlock[] = [{ type: "server_tool_use", id: "srvtoolu_03", name: "web_search", input: { query: "x" } }];
    const ws = await workspace([
      { content: paused, stop_reason: "pause_turn", usage },
      {
        content: [
          { type: "web_search_tool_result", tool_use_id: "srvtoolu_03", content: [] },
          { type: "text", text: "Done." },
        ],
        stop_reason: "end_turn",
        usage,
      },
    ]);
    const killed = await ws.fisk(START, { FISK_AI_TEST_CRASH_AT: "after-assistant:1" });
    assert.equal(killed.signal, "SIGKILL");
    assert.deepEqual(kinds(ws.journal()), ["meta", "assistant"]);
    const resumed = await ws.fisk(RESUME);
    assertSucceeded(resumed, "resume");
    assert.equal(resumed.stdout, "Done.\n");
    assert.deepEqual(kinds(ws.journal()), ["meta", "assistant", "assistant", "terminal"]);
    const sent = ws.sent();
    assert.equal(sent.length, 2);
    assert.deepEqual(sent[1]?.at(-1)?.content.map(unmarked), paused);
  });

  it("never runs a tool call cut at max_tokens, and answers it so the next request is accepted", async () => {
    const cut: WireBlock[] = [
      { type: "tool_use", id: "toolu_01", name: "note", input: { text: "whole" } },
      // The stream stopped while the model was writing this call: its input is a prefix.
      { type: "tool_use", id: "toolu_02", name: "note", input: { text: "rm -rf /ho" } },
    ];
    const ws = await workspace([
      { content: cut, stop_reason: "max_tokens", usage },
      { content: [{ type: "text", text: "Retried." }], stop_reason: "end_turn", usage },
    ]);
    const result = await ws.fisk(START);
    assertSucceeded(result, "run");
    assert.deepEqual(ws.executions(), ["whole"]);
    const records = ws.journal();
    assert.deepEqual(kinds(records), ["meta", "assistant", "tool_result", "tool_result", "assistant", "terminal"]);
    const answers = records
      .filter((record) => kinds([record])[0] === "tool_result")
      .map((record) => (record.tool_result as { result: { tool_use_id: string; is_error?: boolean; content: string } }).result);
    const forCut = answers.find((answer) => answer.tool_use_id === "toolu_02");
    assert.equal(forCut?.is_error, true);
    assert.match(forCut?.content ?? "", /was not run: your reply reached max_tokens/);
    assert.equal(ws.sent().length, 2);
  });

  it("does not run the cut call on a resume after a crash right after the cut turn", async () => {
    const ws = await workspace([
      {
        content: [
          { type: "text", text: "Let me" },
          { type: "tool_use", id: "toolu_09", name: "note", input: {} },
        ],
        stop_reason: "max_tokens",
        usage,
      },
      { content: [{ type: "text", text: "Gave up." }], stop_reason: "end_turn", usage },
    ]);
    const killed = await ws.fisk(START, { FISK_AI_TEST_CRASH_AT: "after-assistant:1" });
    assert.equal(killed.signal, "SIGKILL");
    const resumed = await ws.fisk(RESUME);
    assertSucceeded(resumed, "resume");
    assert.equal(resumed.stdout, "Gave up.\n");
    assert.deepEqual(ws.executions(), []);
    assert.deepEqual(kinds(ws.journal()), ["meta", "assistant", "tool_result", "assistant", "terminal"]);
    assert.equal(ws.sent().length, 2);
  });

  it("the strict fake refuses what the real API refuses: an unanswered cut call, a server result before its call", async () => {
    const ws = await workspace([{ content: [{ type: "text", text: "ok" }], stop_reason: "end_turn", usage }]);
    const post = (messages: unknown[]) =>
      fetch(`${ws.server.url}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": API_KEY, "anthropic-version": "2023-06-01" },
        body: JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 100, messages }),
      });
    const unanswered = await post([
      { role: "user", content: "hi" },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_02", name: "note", input: { text: "rm" } }] },
      { role: "user", content: [{ type: "text", text: "go on" }] },
    ]);
    assert.equal(unanswered.status, 400);
    const orphan = await post([
      { role: "user", content: "hi" },
      { role: "assistant", content: [{ type: "web_search_tool_result", tool_use_id: "srvtoolu_x", content: [] }] },
      { role: "user", content: "go on" },
    ]);
    assert.equal(orphan.status, 400);
    assert.match(await orphan.text(), /must follow the server tool call it answers/);
  });
});
