// covers: src/llm/model-provider.ts, src/llm/openai-provider.ts, src/runstate/records/records.ts
// process: shared
// The openai provider through the official SDK against a strict loopback fake of an
// OpenAI-compatible chat completions endpoint: the conversion both ways and the errors.
import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import OpenAI, { BadRequestError } from "openai";
import type { ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { ModelCallError, type ModelRequest, type ToolSpec } from "../src/llm/model-provider.js";
import { OpenAIProvider, type OpenAIProviderOptions } from "../src/llm/openai-provider.js";
import { checkRecord, PROTOCOLS, type Message } from "../src/runstate/records/records.js";
import { type FakeServer, type OpenAIReply, type OpenAITurn, scriptedReplies, startFakeOpenAI } from "./helpers/fake-openai-server.js";
import type { Responder } from "./helpers/http-json.js";

const KEY = "sk-openai-test-key";
const SYSTEM = "You are a careful assistant.";

const LS: ToolSpec = {
  name: "list_dir",
  description: "Lists a directory",
  input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
};

function userText(text: string): Message {
  return { role: "user", content: [{ type: "text", text }] };
}

function modelRequest(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: "gpt-test",
    system: SYSTEM,
    messages: [userText("What is in /tmp?")],
    tools: [LS],
    maxOutputTokens: 4096,
    thinking: { mode: "off" },
    ...overrides,
  };
}

function textTurn(content: string): OpenAITurn {
  return { content, finish_reason: "stop", usage: { prompt_tokens: 10, completion_tokens: 3 } };
}

const live = (): AbortSignal => new AbortController().signal;

async function fake(t: TestContext, responder: Responder<OpenAIReply>): Promise<FakeServer> {
  const server = await startFakeOpenAI(responder, { apiKey: KEY });
  t.after(() => server.close());
  return server;
}

function provider(server: FakeServer, options: Partial<OpenAIProviderOptions> = {}): OpenAIProvider {
  return new OpenAIProvider({ apiKey: KEY, baseURL: server.url, ...options });
}

function sentBody(server: FakeServer, index: number): ChatCompletionCreateParamsNonStreaming {
  const record = server.requests[index];
  assert.ok(record !== undefined, `request #${index} was made`);
  assert.ok(record.accepted, `request #${index} was accepted: ${record.rejection ?? ""}`);
  return record.body as ChatCompletionCreateParamsNonStreaming;
}

async function rejection(promise: Promise<unknown>): Promise<ModelCallError> {
  const error = await promise.then(
    () => assert.fail("the call should have failed"),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof ModelCallError, `a ModelCallError, not ${String(error)}`);
  assert.doesNotMatch(error.message, /\n/, "one line");
  return error;
}

describe("OpenAIProvider", () => {
  it("maps a text turn, with cached prompt tokens as cache reads", async (t) => {
    const server = await fake(t, () => ({
      content: "It holds notes.txt.",
      finish_reason: "stop",
      usage: { prompt_tokens: 1200, completion_tokens: 9, prompt_tokens_details: { cached_tokens: 1024 } },
    }));

    const deltas: string[] = [];
    const turn = await provider(server).complete(modelRequest(), live(), (text) => deltas.push(text));

    assert.equal((server.requests[0]?.body as { stream?: unknown }).stream, true, "the call streams");
    assert.equal(deltas.join(""), "It holds notes.txt.", "the text is handed on as it streams");
    assert.deepEqual(turn, {
      message: { role: "assistant", content: [{ type: "text", text: "It holds notes.txt." }] },
      stop_reason: "end_turn",
      usage: { in_tokens: 176, out_tokens: 9, cache_read_tokens: 1024 },
      model: "gpt-test",
    });
    const body = sentBody(server, 0);
    assert.equal(server.requests[0]?.headers.authorization, `Bearer ${KEY}`);
    assert.deepEqual(body.messages, [
      { role: "system", content: SYSTEM },
      { role: "user", content: "What is in /tmp?" },
    ]);
    assert.deepEqual(body.tools, [{ type: "function", function: { name: LS.name, description: LS.description, parameters: LS.input_schema } }]);
    assert.equal(body.max_tokens, 4096, "compatible servers get max_tokens");
    assert.equal("max_completion_tokens" in body, false);
  });

  it("maps tool calls to tool_use blocks, keeping arguments that are not a JSON object raw", async (t) => {
    const server = await fake(t, () => ({
      content: null,
      tool_calls: [
        { id: "call_1", name: "list_dir", arguments: '{"path":"/tmp"}' },
        { id: "call_2", name: "list_dir", arguments: '{"path": "/tm' },
        { id: "call_3", name: "list_dir", arguments: "" },
        { id: "call_4", name: "list_dir", arguments: "[1, 2]" },
      ],
      finish_reason: "tool_calls",
      usage: { prompt_tokens: 40, completion_tokens: 30 },
    }));

    const turn = await provider(server).complete(modelRequest(), live());

    assert.deepEqual(turn.message.content, [
      { type: "tool_use", id: "call_1", name: "list_dir", input: { path: "/tmp" } },
      { type: "tool_use", id: "call_2", name: "list_dir", input: { _unparsed_arguments: '{"path": "/tm' } },
      { type: "tool_use", id: "call_3", name: "list_dir", input: {} },
      { type: "tool_use", id: "call_4", name: "list_dir", input: { _unparsed_arguments: "[1, 2]" } },
    ]);
    assert.equal(turn.stop_reason, "tool_use");
    assert.deepEqual(turn.usage, { in_tokens: 40, out_tokens: 30 }, "no cached tokens, no cache field");
    const record = { seq: 2, protocol: PROTOCOLS.assistant, assistant: { iteration: 0, message: turn.message, stop_reason: turn.stop_reason, ...turn.usage } };
    const checked = checkRecord(record);
    assert.ok(checked.ok, checked.ok ? "" : checked.problem);
  });

  it("maps finish reasons, and calls a turn with tool calls tool_use whatever the server says", async (t) => {
    const server = await fake(
      t,
      scriptedReplies<OpenAIReply>([
        { content: "cut", finish_reason: "length", usage: { prompt_tokens: 1, completion_tokens: 1 } },
        { tool_calls: [{ id: "c", name: "list_dir", arguments: "{}" }], finish_reason: "stop", usage: { prompt_tokens: 1, completion_tokens: 1 } },
      ]),
    );
    const openai = provider(server);
    assert.equal((await openai.complete(modelRequest(), live())).stop_reason, "max_tokens");
    assert.equal((await openai.complete(modelRequest(), live())).stop_reason, "tool_use");
  });

  it("sends tool results as tool messages right after the assistant message, in order", async (t) => {
    const server = await fake(
      t,
      scriptedReplies<OpenAIReply>([
        {
          content: "Looking.",
          tool_calls: [
            { id: "call_a", name: "list_dir", arguments: '{"path":"/tmp"}' },
            { id: "call_b", name: "list_dir", arguments: '{"path":"/var"}' },
          ],
          finish_reason: "tool_calls",
          usage: { prompt_tokens: 20, completion_tokens: 10 },
        },
        textTurn("Both listed."),
      ]),
    );
    const openai = provider(server);
    const first = await openai.complete(modelRequest(), live());

    const messages: Message[] = [
      userText("What is in /tmp and /var?"),
      // Thinking from an earlier anthropic turn means nothing here and is dropped.
      { role: "assistant", content: [{ type: "thinking", thinking: "hm", signature: "sig" }, ...first.message.content] },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "call_a", content: "notes.txt" },
          {
            type: "tool_result",
            tool_use_id: "call_b",
            content: [
              { type: "text", text: "permission" },
              { type: "text", text: "denied" },
            ],
            is_error: true,
          },
          { type: "text", text: "Be brief." },
        ],
      },
    ];
    const before = structuredClone(messages);
    const second = await openai.complete(modelRequest({ messages }), live());

    assert.deepEqual(second.message.content, [{ type: "text", text: "Both listed." }]);
    assert.deepEqual(messages, before, "the journal's messages are untouched");
    const expected: ChatCompletionMessageParam[] = [
      { role: "system", content: SYSTEM },
      { role: "user", content: "What is in /tmp and /var?" },
      {
        role: "assistant",
        content: "Looking.",
        tool_calls: [
          { id: "call_a", type: "function", function: { name: "list_dir", arguments: '{"path":"/tmp"}' } },
          { id: "call_b", type: "function", function: { name: "list_dir", arguments: '{"path":"/var"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_a", content: "notes.txt" },
      { role: "tool", tool_call_id: "call_b", content: "ERROR: permission\ndenied" },
      { role: "user", content: "Be brief." },
    ];
    assert.deepEqual(sentBody(server, 1).messages, expected);
  });

  it("sends a tool-only assistant turn with empty content and images as content parts", async (t) => {
    const server = await fake(t, () => textTurn("A cat."));
    const messages: Message[] = [
      userText("List it."),
      { role: "assistant", content: [{ type: "tool_use", id: "call_x", name: "list_dir", input: { path: "/" } }] },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "call_x", content: "cat.png" },
          { type: "text", text: "What is this?" },
          { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
        ],
      },
    ];
    await provider(server).complete(modelRequest({ messages, system: "" }), live());
    assert.deepEqual(sentBody(server, 0).messages, [
      { role: "user", content: "List it." },
      { role: "assistant", content: "", tool_calls: [{ id: "call_x", type: "function", function: { name: "list_dir", arguments: '{"path":"/"}' } }] },
      { role: "tool", tool_call_id: "call_x", content: "cat.png" },
      {
        role: "user",
        content: [
          { type: "text", text: "What is this?" },
          { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
        ],
      },
    ]);
  });

  it("sends max_completion_tokens instead when asked to", async (t) => {
    const server = await fake(t, () => textTurn("ok"));
    await provider(server, { maxTokensParam: "max_completion_tokens" }).complete(modelRequest({ tools: [] }), live());
    const body = sentBody(server, 0);
    assert.equal(body.max_completion_tokens, 4096);
    assert.equal("max_tokens" in body, false);
    assert.equal("tools" in body, false, "no tools, no tools parameter");
  });

  describe("the strict fake", () => {
    const call = (id: string) => ({ id, type: "function" as const, function: { name: "list_dir", arguments: "{}" } });
    const asked = (...ids: string[]): ChatCompletionMessageParam => ({ role: "assistant", content: null, tool_calls: ids.map(call) });
    const answer = (id: string): ChatCompletionMessageParam => ({ role: "tool", tool_call_id: id, content: "ok" });
    const hi: ChatCompletionMessageParam = { role: "user", content: "hi" };

    const cases: { name: string; messages: ChatCompletionMessageParam[]; error: RegExp }[] = [
      { name: "a tool call without a tool message", messages: [hi, asked("call_1"), hi], error: /did not have response messages: call_1/ },
      {
        name: "a tool call answered for only one of its ids",
        messages: [hi, asked("call_1", "call_2"), answer("call_2")],
        error: /did not have response messages: call_1/,
      },
      {
        name: "a message between the tool call and its answer",
        messages: [hi, asked("call_1"), hi, answer("call_1")],
        error: /did not have response messages: call_1/,
      },
      {
        name: "a tool message with an unknown tool_call_id",
        messages: [hi, asked("call_1"), answer("call_9")],
        error: /must be a response to a preceeding message with 'tool_calls'/,
      },
      {
        name: "a tool message answering twice",
        messages: [hi, asked("call_1"), answer("call_1"), answer("call_1")],
        error: /must be a response to a preceeding/,
      },
      { name: "a tool message with no tool call before it", messages: [hi, answer("call_1")], error: /must be a response to a preceeding/ },
      { name: "no messages", messages: [], error: /empty array/ },
      { name: "an unknown role", messages: [{ role: "robot", content: "beep" } as unknown as ChatCompletionMessageParam], error: /Supported values are/ },
    ];

    for (const { name, messages, error } of cases) {
      it(`refuses ${name} with a 400, through the SDK`, async (t) => {
        const server = await fake(t, () => textTurn("should not get here"));
        const client = new OpenAI({ apiKey: KEY, baseURL: server.url, maxRetries: 0 });
        await assert.rejects(client.chat.completions.create({ model: "gpt-test", messages }), (caught: unknown) => {
          assert.ok(caught instanceof BadRequestError, String(caught));
          assert.equal(caught.status, 400);
          assert.match(caught.message, error);
          return true;
        });
        assert.equal(server.requests[0]?.accepted, false);
      });
    }

    it("accepts answered tool calls in any order", async (t) => {
      const server = await fake(t, () => textTurn("fine"));
      const client = new OpenAI({ apiKey: KEY, baseURL: server.url, maxRetries: 0 });
      const completion = await client.chat.completions.create({
        model: "gpt-test",
        messages: [hi, asked("call_1", "call_2"), answer("call_2"), answer("call_1"), hi],
      });
      assert.equal(completion.choices[0]?.message.content, "fine");
    });

    it("streams too, as the SDK's stream helper reassembles it", async (t) => {
      const server = await fake(t, () => ({
        content: "Streamed.",
        tool_calls: [{ id: "call_s", name: "list_dir", arguments: '{"path":"/tmp"}' }],
        finish_reason: "tool_calls",
        usage: { prompt_tokens: 5, completion_tokens: 4 },
      }));
      const client = new OpenAI({ apiKey: KEY, baseURL: server.url, maxRetries: 0 });
      const stream = client.chat.completions.stream({ model: "gpt-test", messages: [hi], stream_options: { include_usage: true } });
      const completion = await stream.finalChatCompletion();
      const message = completion.choices[0]?.message;
      assert.equal(message?.content, "Streamed.");
      assert.deepEqual(message?.tool_calls, [{ id: "call_s", type: "function", function: { name: "list_dir", arguments: '{"path":"/tmp"}' } }]);
      assert.equal(completion.usage?.total_tokens, 9);
    });
  });

  describe("errors", () => {
    for (const status of [429, 500, 503]) {
      it(`maps ${status} to a retryable ModelCallError`, async (t) => {
        const server = await fake(t, () => ({ status, message: "try later" }));
        const error = await rejection(provider(server).complete(modelRequest(), live()));
        assert.equal(error.retryable, true);
        assert.equal(error.status, status);
        assert.match(error.message, new RegExp(`^openai API ${status} \\w+: try later$`));
      });
    }

    it("maps 400 to a non-retryable ModelCallError with the server's message", async (t) => {
      const server = await fake(t, () => ({ status: 400, message: "context length exceeded", code: "context_length_exceeded" }));
      const error = await rejection(provider(server).complete(modelRequest(), live()));
      assert.equal(error.retryable, false);
      assert.equal(error.status, 400);
      assert.equal(error.message, "openai API 400 context_length_exceeded: context length exceeded");
    });

    it("maps a refused key (401) to a non-retryable ModelCallError", async (t) => {
      const server = await fake(t, () => textTurn("unreachable"));
      const error = await rejection(provider(server, { apiKey: "sk-wrong" }).complete(modelRequest(), live()));
      assert.equal(error.retryable, false);
      assert.equal(error.status, 401);
      assert.match(error.message, /^openai API 401 invalid_api_key: Incorrect API key provided\.$/);
    });

    it("reports a server nobody listens on as a retryable connection error naming the URL", async () => {
      const gone = await startFakeOpenAI(() => textTurn("never"));
      const { url } = gone;
      await gone.close();
      const error = await rejection(new OpenAIProvider({ apiKey: KEY, baseURL: url }).complete(modelRequest(), live()));
      assert.equal(error.retryable, true);
      assert.match(error.message, new RegExp(`^cannot reach the openai API at ${url}: .*ECONNREFUSED`));
    });

    it("reports a connection dropped before or during the reply as retryable", async (t) => {
      const server = await fake(t, scriptedReplies<OpenAIReply>([{ disconnect: true }, { disconnect: true, afterHeaders: true }]));
      const openai = provider(server);
      const before = await rejection(openai.complete(modelRequest(), live()));
      assert.equal(before.retryable, true);
      assert.match(before.message, /^cannot reach the openai API at .*: other side closed/);
      const during = await rejection(openai.complete(modelRequest(), live()));
      assert.equal(during.retryable, true);
      assert.match(during.message, /^the connection to the openai API at .* broke off/);
    });

    it("surfaces an aborted call as non-retryable, naming the abort", async (t) => {
      const server = await fake(t, () => new Promise<OpenAIReply>(() => undefined));
      const error = await rejection(provider(server).complete(modelRequest(), AbortSignal.timeout(100)));
      assert.equal(error.retryable, false);
      assert.equal(error.message, "the openai API call was aborted: timed out");

      const controller = new AbortController();
      const pending = provider(server).complete(modelRequest(), controller.signal);
      controller.abort("user pressed Ctrl-C twice");
      const second = await rejection(pending);
      assert.equal(second.message, "the openai API call was aborted: user pressed Ctrl-C twice");
    });
  });
});
