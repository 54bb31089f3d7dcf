// covers: src/agent/agent-errors.ts, src/agent/run-agent.ts, src/llm/anthropic-provider.ts, src/llm/model-provider.ts
// covers: src/llm/openai-provider.ts, src/backends/memory/memory-store.ts, src/session/compact-session.ts
// covers: src/tools/tool.ts
// process: shared
// Compaction in the loop, through runAgent against the strict fake Anthropic server with a
// context window: before a call past the threshold (auto), after the API refused a request as
// too long (overflow: compact, send once more), trims when the kept messages alone are too
// long, the error when nothing can be cut, auto: false, and undo by the library's functions.
import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import * as z from "zod";
import {
  AnthropicProvider,
  compactSession,
  CompactionError,
  ConfigError,
  defineTool,
  MemoryStore,
  ModelCallError,
  OpenAIProvider,
  runAgent,
  undoCompaction,
  type AgentEvents,
  type Message,
  type MetaRecord,
} from "../src/index.js";
import { startFakeAnthropic, type FakeServer, type SentMessage } from "./helpers/fake-anthropic-server.js";
import { startFakeOpenAI } from "./helpers/fake-openai-server.js";
import { growingChat, isSummarizing, type GrowingChat } from "./helpers/growing-chat.js";
import { assistantEntry, journalOf } from "./helpers/record-builders.js";

const KEY = "sk-ant-compaction";
const MODEL = "claude-test-window";

async function fake(t: TestContext, chat: GrowingChat, contextWindow?: number): Promise<FakeServer> {
  const server = await startFakeAnthropic((request) => chat.respond(request), { apiKey: KEY, ...(contextWindow === undefined ? {} : { contextWindow }) });
  t.after(() => server.close());
  return server;
}

/** Pages of `size` characters, or the sizes given page by page. */
function fetchTool(size: number | ((page: number) => number)) {
  return defineTool({
    name: "fetch",
    description: "Fetch a page",
    input: z.object({ page: z.number() }),
    run: ({ page }) => `page ${page}: ${"x".repeat(typeof size === "number" ? size : size(page))}`,
  });
}

function provider(server: FakeServer) {
  return new AnthropicProvider({ apiKey: KEY, baseURL: server.url });
}

const refusedTooLong = (server: FakeServer) => server.requests.filter((request) => request.rejection?.startsWith("prompt is too long") === true);

describe("compaction: auto, before a model call", () => {
  it("keeps every request under the window: each call that would pass the threshold is compacted first", async (t) => {
    const chat = growingChat({ toolCalls: 12 });
    const server = await fake(t, chat, 6000);
    const store = new MemoryStore();
    const compacted: number[] = [];
    const outcome = await runAgent({
      provider: provider(server),
      model: MODEL,
      prompt: "read the pages",
      tools: [fetchTool(4000)],
      store,
      compaction: { window: 6000, keepRecent: 4 },
      budget: { maxIterations: 50 },
      events: { compaction: ({ seq }) => compacted.push(seq) },
    });
    assert.equal(outcome.reason, "completed", outcome.message);
    for (const request of server.requests) assert.ok(request.accepted, `refused: ${request.rejection}`);
    const state = await store.load(outcome.runId);
    assert.ok(state.compactions.length >= 3, `${state.compactions.length} compactions`);
    assert.deepEqual(
      state.compactions.map((entry) => entry.seq),
      compacted,
    );
    for (const { compaction } of state.compactions) {
      assert.equal(compaction.trigger, "auto");
      assert.ok(compaction.tokens_after < compaction.tokens_before, `${compaction.tokens_after} < ${compaction.tokens_before}`);
      assert.ok(compaction.tokens_before > 0.8 * 6000);
    }
    assert.equal(state.counters.compactionCalls, chat.summaries, "each summarizing call is counted apart");
    assert.equal(state.counters.modelCalls, chat.calls);
    assert.equal(state.counters.compactionCalls, state.compactions.length);
    // The whole conversation is still there: 13 model turns and 12 results after the prompt.
    assert.equal(state.history.length, 1 + 13 + 12);
    assert.ok(state.messages.length < state.history.length);
  });

  it("counts the summarizing calls against the token budget", async (t) => {
    const chat = growingChat({ toolCalls: 12 });
    const server = await fake(t, chat, 6000);
    const outcome = await runAgent({
      provider: provider(server),
      model: MODEL,
      prompt: "read",
      tools: [fetchTool(4000)],
      compaction: { window: 6000 },
      budget: { maxTokens: 30_000 },
    });
    assert.equal(outcome.reason, "budget");
    const { counters } = outcome;
    const spent = counters.inTokens + counters.outTokens + counters.compactionInTokens + counters.compactionOutTokens;
    assert.ok(counters.compactionCalls > 0);
    assert.ok(spent >= 30_000 && counters.inTokens + counters.outTokens < 30_000 + 6000, `spent ${spent}`);
  });
});

describe("compaction: overflow, when the API refuses a request as too long", () => {
  it("compacts and sends the refused request again, once, and the resend is accepted", async (t) => {
    // Reporting 1 input token keeps the gauge far below the threshold: only the API's refusal tells.
    const chat = growingChat({ toolCalls: 12, reportedInput: 1 });
    const server = await fake(t, chat, 6000);
    const store = new MemoryStore();
    const outcome = await runAgent({ provider: provider(server), model: MODEL, prompt: "read", tools: [fetchTool(4000)], store, compaction: { window: 6000 } });
    assert.equal(outcome.reason, "completed", outcome.message);
    const refused = refusedTooLong(server);
    assert.ok(refused.length >= 2, `${refused.length} refused`);
    for (const request of refused) {
      const index = server.requests.indexOf(request);
      assert.ok(isSummarizing(server.requests[index + 1] as (typeof server.requests)[number]), "the refusal is followed by the summarizing call");
      const resend = server.requests[index + 2];
      assert.ok(resend?.accepted === true && !isSummarizing(resend), "then by the resend, accepted");
    }
    assert.equal(server.requests.filter((request) => !request.accepted).length, refused.length, "no other request was refused");
    const state = await store.load(outcome.runId);
    assert.deepEqual(
      state.compactions.map((entry) => entry.compaction.trigger),
      refused.map(() => "overflow"),
    );
  });

  it("with auto: false it stays off: the refusal ends the run, and nothing is summarized", async (t) => {
    const chat = growingChat({ toolCalls: 12 });
    const server = await fake(t, chat, 6000);
    const outcome = await runAgent({
      provider: provider(server),
      model: MODEL,
      prompt: "read",
      tools: [fetchTool(4000)],
      compaction: { auto: false, window: 6000 },
    });
    assert.equal(outcome.reason, "error");
    assert.match(outcome.message ?? "", /prompt is too long: \d+ tokens > 6000 maximum/);
    assert.equal(chat.summaries, 0);
    assert.equal(outcome.counters.compactionCalls, 0);
    assert.equal(refusedTooLong(server).length, 1);
  });

  it("without compaction for a model whose window is not known, a refusal ends the run as before", async (t) => {
    const chat = growingChat({ toolCalls: 12 });
    const server = await fake(t, chat, 6000);
    const outcome = await runAgent({ provider: provider(server), model: MODEL, prompt: "read", tools: [fetchTool(4000)] });
    assert.equal(outcome.reason, "error");
    assert.equal(chat.summaries, 0);
  });
});

describe("compaction: when the kept messages alone are too long", () => {
  it("trims the oldest large tool results, journaled, and the model reads how much was cut", async (t) => {
    const chat = growingChat({ toolCalls: 3 });
    const server = await fake(t, chat, 12_000);
    const store = new MemoryStore();
    const outcome = await runAgent({
      provider: provider(server),
      model: MODEL,
      prompt: "read",
      tools: [fetchTool((page) => (page === 1 ? 44_000 : 100))],
      store,
      compaction: { window: 12_000 },
    });
    assert.equal(outcome.reason, "completed", outcome.message);
    for (const request of server.requests) assert.ok(request.accepted, `refused: ${request.rejection}`);
    const state = await store.load(outcome.runId);
    const [trim] = state.compactions;
    assert.deepEqual(trim?.compaction.trimmed, [{ tool_use_id: "toolu_00001", kept_chars: 1000, cut_chars: 43_008 }]);
    assert.equal(trim?.compaction.summary, "");
    assert.equal(chat.summaries, 0, "a trim makes no model call");
    const sent = JSON.stringify((server.requests.at(-1)?.body as { messages: SentMessage[] }).messages);
    assert.match(sent, /\[fisk-ai cut 43008 of 44008 characters of this result to fit the model's context window\]/);
  });

  it("when nothing more can be cut, the run ends with an error naming the record too large, and nothing is sent", async (t) => {
    const chat = growingChat({ toolCalls: 3 });
    const server = await fake(t, chat, 6000);
    const refusals: CompactionError[] = [];
    const events: AgentEvents = { compactionRefused: (error) => refusals.push(error) };
    const outcome = await runAgent({ provider: provider(server), model: MODEL, prompt: "p".repeat(30_000), compaction: { window: 6000 }, events });
    assert.equal(outcome.reason, "error");
    assert.match(
      outcome.message ?? "",
      /^compaction failed: session \S+ cannot be compacted further: .* over the model's window of 6000; the largest part is the message of record seq 1 /,
    );
    assert.equal(refusals[0]?.refusal, "too-large");
    assert.equal(server.requests.length, 0);
  });
});

describe("compaction: by hand, and undone", () => {
  it("compactSession summarizes a stored session; after undoCompaction the next model call is sent the whole history", async (t) => {
    const chat = growingChat({ toolCalls: 100 });
    const server = await fake(t, chat);
    const store = new MemoryStore();
    const tools = [fetchTool(200)];
    const first = await runAgent({ provider: provider(server), model: MODEL, prompt: "read it all", tools, store, budget: { maxIterations: 6 } });
    assert.equal(first.reason, "max_iterations");
    const made = await compactSession({ store, session: first.runId, provider: provider(server), model: MODEL, tools, keepRecent: 2 });
    assert.equal(made.length, 1);
    assert.equal(made[0]?.trigger, "manual");
    const compacted = await store.load(first.runId);
    assert.equal(compacted.messages.length, 3, "the summary, then the last call and its result");
    assert.equal(compacted.counters.compactionCalls, 1);

    const undone = await undoCompaction({ store, session: first.runId });
    assert.equal(undone.compactionSeq, compacted.compactions[0]?.seq);
    const history = (await store.load(first.runId)).history;
    assert.equal(history.length, 13);

    const before = server.requests.length;
    const second = await runAgent({ provider: provider(server), model: MODEL, tools, store, resume: first.runId, force: true, budget: { maxIterations: 7 } });
    assert.equal(second.reason, "max_iterations");
    const sent = server.requests.slice(before);
    assert.equal(sent.length, 1);
    const messages = (sent[0]?.body as { messages: SentMessage[] }).messages;
    assert.equal(messages.length, history.length, "every message, none summarized");
    assert.deepEqual(messages[0]?.content, [{ type: "text", text: "read it all" }]);
    await assert.rejects(
      undoCompaction({ store, session: first.runId }),
      (error: unknown) => error instanceof CompactionError && error.refusal === "nothing-to-undo",
    );
  });

  it("refuses to compact a session with nothing to cut, or on another provider, and journals nothing", async (t) => {
    const chat = growingChat({ toolCalls: 0 });
    const server = await fake(t, chat);
    const store = new MemoryStore();
    const done = await runAgent({ provider: provider(server), model: MODEL, prompt: "hi", store });
    const lastSeq = (await store.load(done.runId)).lastSeq;
    await assert.rejects(
      compactSession({ store, session: done.runId, provider: provider(server), model: MODEL }),
      (error: unknown) => error instanceof CompactionError && error.refusal === "nothing-to-cut" && /keep_recent 4/.test(error.message),
    );
    await assert.rejects(
      compactSession({ store, session: done.runId, provider: new OpenAIProvider({ apiKey: "k", baseURL: server.url }), model: MODEL }),
      (error: unknown) => error instanceof ConfigError && /runs on the anthropic provider/.test(error.message),
    );
    assert.equal((await store.load(done.runId)).lastSeq, lastSeq);
    assert.equal(chat.summaries, 0);
  });

  it("refuses a session whose batch of tool calls waits for results, and journals nothing", async (t) => {
    const chat = growingChat({ toolCalls: 0 });
    const server = await fake(t, chat);
    const store = new MemoryStore();
    const [meta] = journalOf("mid-batch");
    const journal = await store.create("mid-batch", (meta as MetaRecord).meta);
    await journal.append(2, assistantEntry(0, "looking", ["toolu_1"]));
    await journal.close();
    await assert.rejects(
      compactSession({ store, session: "mid-batch", provider: provider(server), model: MODEL }),
      (error: unknown) =>
        error instanceof CompactionError &&
        error.refusal === "at-rest" &&
        /has a batch of tool calls waiting for results \(seq 2\): resume it/.test(error.message),
    );
    assert.equal((await store.load("mid-batch")).lastSeq, 2);
    assert.equal(server.requests.length, 0);
  });

  it("does not journal a summary no shorter than what it replaces", async (t) => {
    const chat = growingChat({ toolCalls: 100 });
    const server = await startFakeAnthropic(
      (request) =>
        isSummarizing(request)
          ? { content: [{ type: "text", text: "s".repeat(20_000) }], stop_reason: "end_turn", usage: { input_tokens: 10, output_tokens: 5000 } }
          : chat.respond(request),
      { apiKey: KEY },
    );
    t.after(() => server.close());
    const store = new MemoryStore();
    const tools = [fetchTool(200)];
    const first = await runAgent({ provider: provider(server), model: MODEL, prompt: "read", tools, store, budget: { maxIterations: 4 } });
    const lastSeq = (await store.load(first.runId)).lastSeq;
    await assert.rejects(
      compactSession({ store, session: first.runId, provider: provider(server), model: MODEL, tools, keepRecent: 2 }),
      (error: unknown) => error instanceof CompactionError && error.refusal === "no-shrink" && /it is no shorter, so it was not journaled/.test(error.message),
    );
    assert.equal((await store.load(first.runId)).lastSeq, lastSeq);
  });

  it("ends the run when the summarizing call fails, journaling no compaction", async (t) => {
    const chat = growingChat({ toolCalls: 12 });
    const server = await startFakeAnthropic(
      (request) => (isSummarizing(request) ? { status: 400, message: "summaries are off today" } : chat.respond(request)),
      {
        apiKey: KEY,
        contextWindow: 6000,
      },
    );
    t.after(() => server.close());
    const store = new MemoryStore();
    const outcome = await runAgent({ provider: provider(server), model: MODEL, prompt: "read", tools: [fetchTool(4000)], store, compaction: { window: 6000 } });
    assert.equal(outcome.reason, "error");
    assert.match(outcome.message ?? "", /^compaction failed: the summarizing call failed: anthropic API 400 invalid_request_error: summaries are off today$/);
    assert.equal((await store.load(outcome.runId)).compactions.length, 0);
    assert.equal(refusedTooLong(server).length, 0, "the run stopped before sending a request over the window");
  });

  it("runAgent needs a window for a model whose window is not known, when compaction is given", async () => {
    await assert.rejects(
      runAgent({ provider: new AnthropicProvider({ apiKey: KEY }), model: MODEL, prompt: "x", compaction: { auto: true } }),
      (error: unknown) =>
        error instanceof ConfigError && /^compaction\.window: the context window of model claude-test-window is not known/.test(error.message),
    );
  });
});

describe("compaction: the providers tell a refusal as too long from another 400", () => {
  const request = (messages: Message[]) => ({ model: "m", system: "s", messages, tools: [], maxOutputTokens: 100, thinking: { mode: "off" as const } });
  const long: Message[] = [{ role: "user", content: [{ type: "text", text: "w".repeat(2000) }] }];

  it("anthropic: 400 invalid_request_error 'prompt is too long' is tooLong, other 400s are not", async (t) => {
    const server = await startFakeAnthropic(() => ({ status: 400, message: "messages.0: something else" }), { apiKey: KEY, contextWindow: 100 });
    t.after(() => server.close());
    const anthropic = new AnthropicProvider({ apiKey: KEY, baseURL: server.url });
    const tooLong = await anthropic.complete(request(long), new AbortController().signal).catch((error: unknown) => error);
    assert.ok(tooLong instanceof ModelCallError && tooLong.tooLong && tooLong.status === 400 && !tooLong.retryable, String(tooLong));
    assert.match(tooLong.message, /prompt is too long: \d+ tokens > 100 maximum/);
    const other = await anthropic
      .complete(request([{ role: "user", content: [{ type: "text", text: "hi" }] }]), new AbortController().signal)
      .catch((error: unknown) => error);
    assert.ok(other instanceof ModelCallError && !other.tooLong && other.status === 400);
  });

  it("openai: 400 context_length_exceeded is tooLong, other 400s are not", async (t) => {
    const server = await startFakeOpenAI(() => ({ status: 400, message: "bad" }), { apiKey: "sk-oa", contextWindow: 100 });
    t.after(() => server.close());
    const openai = new OpenAIProvider({ apiKey: "sk-oa", baseURL: server.url });
    const tooLong = await openai.complete(request(long), new AbortController().signal).catch((error: unknown) => error);
    assert.ok(tooLong instanceof ModelCallError && tooLong.tooLong && tooLong.status === 400, String(tooLong));
    assert.match(tooLong.message, /context_length_exceeded: This model's maximum context length is 100 tokens/);
    const other = await openai
      .complete(request([{ role: "user", content: [{ type: "text", text: "hi" }] }]), new AbortController().signal)
      .catch((error: unknown) => error);
    assert.ok(other instanceof ModelCallError && !other.tooLong && other.status === 400);
  });
});
