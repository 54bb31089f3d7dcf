// covers: src/replay/replay-session.ts, src/replay/recorded-view.ts, src/llm/anthropic-provider.ts, src/llm/openai-provider.ts
// process: shared
// Replays against the strict fake Anthropic and OpenAI servers: a session recorded on one
// (a parallel batch with a side-effect tool, a compaction by hand, a follow-up) replays as
// same against the same agent on a fresh server whose call ids differ, and the new server is
// sent exactly the requests the recording's was (ids aside): the recorded summary, the batch's
// results in the order they were journaled, the resume reminder of the resumed process; a
// changed system prompt that makes the model call another tool departs at exactly that turn.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it, type TestContext } from "node:test";
import * as z from "zod";
import { AnthropicProvider, compactSession, defineTool, MemoryStore, OpenAIProvider, runAgent, type ModelProvider, type Tool } from "../src/index.js";
import { replaySession } from "../src/replay/replay-session.js";
import { testCommandTool } from "./helpers/command-tools.js";
import { startFakeAnthropic, type AnthropicTurn } from "./helpers/fake-anthropic-server.js";
import { startFakeOpenAI, type OpenAITurn } from "./helpers/fake-openai-server.js";
import type { FakeServer, RecordedRequest } from "./helpers/http-json.js";

const KEY = "sk-replay-test";
const SYSTEM = "You find things out.";
const PREFER_SEARCH = "You find things out. Prefer search for anything new.";

/** The model's plan, turn by turn: what a fake answers at the conversation's nth turn. */
function planned(turn: number, preferSearch: boolean): { text: string; calls: { name: string; input: Record<string, unknown> }[] } {
  const plan = [
    {
      text: "Looking.",
      calls: [
        { name: "write_mark", input: { note: "ran" } },
        { name: "lookup", input: { q: "alpha" } },
        { name: "lookup", input: { q: "beta" } },
      ],
    },
    { text: "One more.", calls: [{ name: preferSearch ? "search" : "lookup", input: { q: "gamma" } }] },
    { text: "Alpha, beta and gamma found.", calls: [] },
    { text: "Now delta.", calls: [{ name: "lookup", input: { q: "delta" } }] },
    { text: "Delta found too.", calls: [] },
  ];
  const step = plan[turn];
  if (step === undefined) throw new Error(`the plan has no turn ${turn + 1}`);
  return step;
}

/** Which turn a request asks for: the assistant turns it holds and those its summary stands for; or a summary. */
function asked(messages: unknown[]): { summary: number } | { turn: number } {
  const text = JSON.stringify(messages);
  const played = Number(/\[played (\d+)\]/.exec(text)?.[1] ?? 0);
  const turns = played + messages.filter((message) => (message as { role: string }).role === "assistant").length;
  return JSON.stringify(messages.at(-1)).includes("Summarize the conversation so far") ? { summary: turns } : { turn: turns };
}

interface Flavor {
  name: string;
  model: string;
  start(nonce: string): Promise<FakeServer>;
  provider(server: FakeServer): ModelProvider;
}

const USAGE = { input_tokens: 100, output_tokens: 20 };

const FLAVORS: Flavor[] = [
  {
    name: "anthropic",
    model: "claude-sonnet-4-5",
    start: (nonce) =>
      startFakeAnthropic(
        (request) => {
          const body = request.body as { system?: unknown; messages: unknown[] };
          const ask = asked(body.messages);
          if ("summary" in ask) return { content: [{ type: "text", text: `Summary [played ${ask.summary}]` }], stop_reason: "end_turn", usage: USAGE };
          const step = planned(ask.turn, JSON.stringify(body.system).includes("Prefer search"));
          const uses = step.calls.map((call, index) => ({ type: "tool_use", id: `toolu_${nonce}_${ask.turn}_${index}`, ...call }));
          return {
            content: [{ type: "text", text: step.text }, ...uses],
            stop_reason: uses.length > 0 ? "tool_use" : "end_turn",
            usage: USAGE,
          } satisfies AnthropicTurn;
        },
        { apiKey: KEY },
      ),
    provider: (server) => new AnthropicProvider({ apiKey: KEY, baseURL: server.url }),
  },
  {
    name: "openai",
    model: "gpt-4.1",
    start: (nonce) =>
      startFakeOpenAI(
        (request) => {
          const { messages } = request.body as { messages: unknown[] };
          const ask = asked(messages);
          const usage = { prompt_tokens: 100, completion_tokens: 20 };
          if ("summary" in ask) return { content: `Summary [played ${ask.summary}]`, finish_reason: "stop", usage };
          const step = planned(ask.turn, JSON.stringify(messages[0]).includes("Prefer search"));
          const calls = step.calls.map((call, index) => ({ id: `call_${nonce}_${ask.turn}_${index}`, name: call.name, arguments: JSON.stringify(call.input) }));
          return {
            content: step.text,
            ...(calls.length > 0 ? { tool_calls: calls } : {}),
            finish_reason: calls.length > 0 ? "tool_calls" : "stop",
            usage,
          } satisfies OpenAITurn;
        },
        { apiKey: KEY },
      ),
    provider: (server) => new OpenAIProvider({ apiKey: KEY, baseURL: server.url }),
  },
];

function tools(markFile: string): Tool[] {
  const find = (name: string) =>
    defineTool({ name, description: `${name} a term`, input: z.object({ q: z.string() }), run: ({ q }) => `${name}: ${q} is known` });
  return [
    find("lookup"),
    find("search"),
    testCommandTool(["sh", "-c", 'echo "$1" >> "$2"', "sh", "{note}", markFile], {
      name: "write_mark",
      input_schema: { type: "object", properties: { note: { type: "string" } }, required: ["note"] },
    }),
  ];
}

/** The system prompts and conversations a server was sent for the agent's own turns, its call ids made one. */
function conversations(server: FakeServer, nonce: string): string[] {
  return server.requests
    .filter((request: RecordedRequest) => request.accepted)
    .map((request) => request.body as { system?: unknown; messages: unknown[] })
    .filter((body) => "turn" in asked(body.messages))
    .map((body) => JSON.stringify([body.system, body.messages]).replaceAll(`_${nonce}_`, "_ID_"));
}

async function serverFor(t: TestContext, flavor: Flavor, nonce: string): Promise<FakeServer> {
  const server = await flavor.start(nonce);
  t.after(() => server.close());
  return server;
}

for (const flavor of FLAVORS) {
  describe(`replay on the strict fake ${flavor.name} server`, () => {
    async function recordSession(t: TestContext) {
      const dir = mkdtempSync(join(tmpdir(), "fisk-replay-providers-"));
      t.after(() => rmSync(dir, { recursive: true, force: true }));
      const markFile = join(dir, "marks");
      const server = await serverFor(t, flavor, "rec");
      const store = new MemoryStore();
      const agent = { provider: flavor.provider(server), model: flavor.model, system: SYSTEM, tools: tools(markFile), parallelTools: true };
      const first = await runAgent({ ...agent, store, runId: "recorded", prompt: "Find alpha, beta and gamma" });
      assert.equal(first.reason, "completed", first.message);
      const compacted = await compactSession({
        store,
        session: "recorded",
        provider: agent.provider,
        model: flavor.model,
        system: SYSTEM,
        tools: agent.tools,
        keepRecent: 2,
      });
      assert.equal(compacted.length, 1);
      const second = await runAgent({ ...agent, store, resume: "recorded", followUp: "And delta?" });
      assert.equal(second.reason, "completed", second.message);
      assert.equal(readFileSync(markFile, "utf8"), "ran\n");
      rmSync(markFile);
      return { store, server, markFile };
    }

    it("the same agent replays its recording as same, sent exactly what the recording's model was", async (t) => {
      const recording = await recordSession(t);
      const server = await serverFor(t, flavor, "rep");
      const agent = { provider: flavor.provider(server), model: flavor.model, system: SYSTEM, tools: tools(recording.markFile), parallelTools: true };
      const report = await replaySession({ store: recording.store, runId: "recorded" }, agent);
      assert.equal(report.result, "same", JSON.stringify(report.departures));
      assert.deepEqual(report.turns, { recorded: 5, replayed: 5 });
      assert.equal(report.textDiffers, undefined);
      assert.deepEqual(conversations(server, "rep"), conversations(recording.server, "rec"));
      const followUpTurn = conversations(server, "rep")[3] ?? "";
      assert.match(followUpTurn, /Summary \[played 1\]/, "the follow-up's turn is sent the recorded summary");
      assert.match(followUpTurn, /has been resumed in a new process/, "and the resume reminder the recording's process gave");
      assert.equal(report.replayed.inTokens, report.recorded.inTokens);
      assert.equal(existsSync(recording.markFile), false, "the replay never wrote the side-effect file");
    });

    it("a changed system prompt that makes the model call search departs at exactly turn 2", async (t) => {
      const recording = await recordSession(t);
      const server = await serverFor(t, flavor, "rep");
      const agent = { provider: flavor.provider(server), model: flavor.model, system: PREFER_SEARCH, tools: tools(recording.markFile), parallelTools: true };
      const report = await replaySession({ store: recording.store, runId: "recorded" }, agent);
      assert.equal(report.result, "departs");
      assert.equal(report.turn, 2);
      assert.deepEqual(
        report.departures.map((departure) => [departure.turn, departure.kind]),
        [
          [2, "call-not-recorded"],
          [2, "recorded-call-not-made"],
        ],
      );
      assert.deepEqual(report.departures[0]?.recorded.calls, [{ name: "lookup", input: { q: "gamma" } }]);
      assert.deepEqual(report.departures[0]?.replayed.calls, [{ name: "search", input: { q: "gamma" } }]);
      assert.equal(server.requests.length, 2, "the replay stopped at the departure");
      assert.equal(existsSync(recording.markFile), false);
    });
  });
}
