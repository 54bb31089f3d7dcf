// covers: src/llm/anthropic-provider.ts, src/llm/anthropic-sdk.ts, src/llm/load-once.ts, src/llm/model-provider.ts
// covers: src/llm/provider-errors.ts, src/runstate/records/records.ts
// process: shared
// The anthropic provider through the official SDK against a strict loopback fake of the
// Messages API: what goes over the wire, what comes back, and how failures are classified.
import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import Anthropic, { BadRequestError } from "@anthropic-ai/sdk";
import { AnthropicProvider } from "../src/llm/anthropic-provider.js";
import { ModelCallError, type ModelRequest, type ModelTurn, type ToolSpec } from "../src/llm/model-provider.js";
import { checkRecord, PROTOCOLS, type Message } from "../src/runstate/records/records.js";
import { type AnthropicReply, type AnthropicTurn, type FakeServer, scriptedReplies, startFakeAnthropic } from "./helpers/fake-anthropic-server.js";
import type { Responder } from "./helpers/http-json.js";
import { eventually } from "./helpers/eventually.js";

const KEY = "sk-ant-test-key";
const SYSTEM = "You are a careful assistant.";
const EPHEMERAL = { type: "ephemeral" };

const LS: ToolSpec = {
  name: "list_dir",
  description: "Lists a directory",
  input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
};
const CAT: ToolSpec = {
  name: "read_file",
  description: "Reads a file",
  input_schema: { type: "object", properties: { path: { type: "string" } } },
};

function userText(text: string): Message {
  return { role: "user", content: [{ type: "text", text }] };
}

function modelRequest(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: "claude-test-1",
    system: SYSTEM,
    messages: [userText("What is in /tmp?")],
    tools: [LS, CAT],
    maxOutputTokens: 4096,
    thinking: { mode: "off" },
    ...overrides,
  };
}

function textTurn(text: string): AnthropicTurn {
  return { content: [{ type: "text", text }], stop_reason: "end_turn", usage: { input_tokens: 10, output_tokens: 3 } };
}

const live = (): AbortSignal => new AbortController().signal;

async function fake(t: TestContext, responder: Responder<AnthropicReply>): Promise<FakeServer> {
  const server = await startFakeAnthropic(responder, { apiKey: KEY });
  t.after(() => server.close());
  return server;
}

function provider(server: FakeServer, apiKey = KEY): AnthropicProvider {
  return new AnthropicProvider({ apiKey, baseURL: server.url });
}

/** The body of an accepted request, typed as the SDK sends it. */
function sentBody(server: FakeServer, index: number): Anthropic.MessageCreateParams {
  const record = server.requests[index];
  assert.ok(record !== undefined, `request #${index} was made`);
  assert.ok(record.accepted, `request #${index} was accepted: ${record.rejection ?? ""}`);
  return record.body as Anthropic.MessageCreateParams;
}

function assertRecordable(turn: ModelTurn): void {
  const record = { seq: 2, protocol: PROTOCOLS.assistant, assistant: { iteration: 0, message: turn.message, stop_reason: turn.stop_reason, ...turn.usage } };
  const checked = checkRecord(record);
  assert.ok(checked.ok, checked.ok ? "" : checked.problem);
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

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

function countCacheMarkers(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + countCacheMarkers(item), 0);
  if (typeof value !== "object" || value === null) return 0;
  return Object.entries(value).reduce((sum, [key, inner]) => sum + (key === "cache_control" ? 1 : countCacheMarkers(inner)), 0);
}

describe("AnthropicProvider", () => {
  it("streams a text turn and maps its usage, cache tiers included", async (t) => {
    const server = await fake(t, () => ({
      content: [{ type: "text", text: "It holds notes.txt, which says hello wörld 👋." }],
      stop_reason: "end_turn",
      usage: { input_tokens: 120, output_tokens: 14, cache_read_input_tokens: 800, cache_creation_input_tokens: 64 },
    }));

    const deltas: string[] = [];
    const turn = await provider(server).complete(modelRequest(), live(), (text) => deltas.push(text));

    assert.equal(deltas.join(""), "It holds notes.txt, which says hello wörld 👋.", "the text is handed on as it streams");
    assert.deepEqual(turn, {
      message: { role: "assistant", content: [{ type: "text", text: "It holds notes.txt, which says hello wörld 👋." }] },
      stop_reason: "end_turn",
      usage: { in_tokens: 120, out_tokens: 14, cache_read_tokens: 800, cache_create_tokens: 64 },
      model: "claude-test-1",
    });
    assertRecordable(turn);
    const record = server.requests[0];
    assert.equal(record?.headers.authorization, `Bearer ${KEY}`);
    assert.ok(record?.headers["anthropic-version"] !== undefined);
    const body = sentBody(server, 0);
    assert.equal(body.stream, true, "the provider streams");
    assert.equal(body.model, "claude-test-1");
    assert.equal(body.max_tokens, 4096);
    assert.equal("thinking" in body, false, "thinking off is no thinking parameter");
  });

  it("returns a tool-use turn with the input the stream assembled, extra fields kept", async (t) => {
    const toolUse = {
      type: "tool_use",
      id: "toolu_01",
      name: "list_dir",
      input: { path: "/tmp", options: { hidden: true, depth: [1, 2] } },
      caller: { type: "direct" },
    };
    const server = await fake(t, () => ({
      content: [{ type: "text", text: "Let me look." }, toolUse],
      stop_reason: "tool_use",
      usage: { input_tokens: 50, output_tokens: 20, cache_read_input_tokens: null, cache_creation_input_tokens: null },
    }));

    const turn = await provider(server).complete(modelRequest(), live());

    assert.deepEqual(turn.message.content, [{ type: "text", text: "Let me look." }, toolUse]);
    assert.equal(turn.stop_reason, "tool_use");
    assert.deepEqual(turn.usage, { in_tokens: 50, out_tokens: 20 }, "null cache counts are left out");
    assertRecordable(turn);
  });

  it("sends tool results back in a follow-up the strict server accepts", async (t) => {
    const server = await fake(
      t,
      scriptedReplies<AnthropicReply>([
        {
          content: [
            { type: "tool_use", id: "toolu_a", name: "list_dir", input: { path: "/tmp" } },
            { type: "tool_use", id: "toolu_b", name: "read_file", input: { path: "/tmp/notes.txt" } },
          ],
          stop_reason: "tool_use",
          usage: { input_tokens: 30, output_tokens: 12 },
        },
        textTurn("notes.txt says hello."),
      ]),
    );
    const anthropic = provider(server);
    const first = await anthropic.complete(modelRequest(), live());

    const messages: Message[] = [
      userText("What is in /tmp?"),
      first.message,
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_a", content: "notes.txt" },
          { type: "tool_result", tool_use_id: "toolu_b", content: [{ type: "text", text: "permission denied" }], is_error: true },
          { type: "text", text: "Be brief." },
        ],
      },
    ];
    const second = await anthropic.complete(modelRequest({ messages }), live());

    assert.deepEqual(second.message.content, [{ type: "text", text: "notes.txt says hello." }]);
    const body = sentBody(server, 1);
    assert.deepEqual(body.messages[1], first.message, "the assistant turn goes back as it came");
    assert.deepEqual(
      (body.messages[2]?.content as Anthropic.ContentBlockParam[]).map((block) => block.type),
      ["tool_result", "tool_result", "text"],
    );
  });

  it("returns thinking and redacted_thinking blocks verbatim and sends them back verbatim", async (t) => {
    const thinking = [
      { type: "thinking", thinking: "The user wants the listing; a tool call will do.", signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxsig==" },
      { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP" },
      { type: "tool_use", id: "toolu_t", name: "list_dir", input: { path: "/tmp" } },
    ];
    const server = await fake(
      t,
      scriptedReplies<AnthropicReply>([{ content: thinking, stop_reason: "tool_use", usage: { input_tokens: 40, output_tokens: 300 } }, textTurn("Done.")]),
    );
    const anthropic = provider(server);

    const first = await anthropic.complete(modelRequest({ maxOutputTokens: 8192, thinking: { mode: "enabled", budget_tokens: 2048 } }), live());
    assert.deepEqual(first.message.content, thinking);
    assertRecordable(first);
    assert.deepEqual(sentBody(server, 0).thinking, { type: "enabled", budget_tokens: 2048 });

    const messages: Message[] = [
      userText("What is in /tmp?"),
      first.message,
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_t", content: "notes.txt" }] },
    ];
    await anthropic.complete(modelRequest({ messages, thinking: { mode: "adaptive" } }), live());
    const body = sentBody(server, 1);
    assert.deepEqual(body.thinking, { type: "adaptive" });
    assert.deepEqual(body.messages[1]?.content, thinking, "signatures and redacted data go back byte for byte");
  });

  it("marks the system prompt, the last tool and the latest block for caching, in the request only", async (t) => {
    const server = await fake(t, () => ({
      // A marker in a response (no real API sends one) must not reach the journal either.
      content: [{ type: "text", text: "Noted.", cache_control: { type: "ephemeral" } }],
      stop_reason: "end_turn",
      usage: { input_tokens: 5, output_tokens: 2 },
    }));
    const messages: Message[] = deepFreeze([
      // A marker recorded elsewhere: it would count against the API's limit of four.
      { role: "user", content: [{ type: "text", text: "What is in /tmp?", cache_control: { type: "ephemeral" } }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Let me look." },
          { type: "tool_use", id: "toolu_c", name: "list_dir", input: { path: "/tmp" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_c", content: "notes.txt" },
          { type: "text", text: "And be brief." },
        ],
      },
    ]);
    const before = structuredClone(messages);

    const turn = await provider(server).complete(modelRequest({ messages }), live());

    assert.deepEqual(messages, before, "the journal's messages are untouched");
    assert.deepEqual(turn.message.content, [{ type: "text", text: "Noted." }]);
    const body = sentBody(server, 0);
    assert.deepEqual(body.system, [{ type: "text", text: SYSTEM, cache_control: EPHEMERAL }]);
    assert.equal(body.tools?.[0]?.cache_control, undefined);
    assert.deepEqual(body.tools?.[1]?.cache_control, EPHEMERAL, "on the last tool");
    const latest = body.messages.at(-1)?.content as Anthropic.ContentBlockParam[];
    assert.deepEqual(latest.at(-1), { type: "text", text: "And be brief.", cache_control: EPHEMERAL });
    assert.equal(countCacheMarkers(body), 3, "system, last tool, latest block: nothing else");
  });

  it("never puts a cache marker on a thinking block, and sends no empty text block", async (t) => {
    const server = await fake(t, () => textTurn("ok"));
    const messages: Message[] = [
      userText("Go on."),
      // A prefill that ends in thinking: the breakpoint goes on the block before it.
      {
        role: "assistant",
        content: [
          { type: "text", text: "" },
          { type: "text", text: "Thinking it over." },
          { type: "thinking", thinking: "hm", signature: "sig" },
        ],
      },
    ];
    await provider(server).complete(modelRequest({ messages, tools: [] }), live());
    const body = sentBody(server, 0);
    assert.deepEqual(body.messages[1]?.content, [
      { type: "text", text: "Thinking it over.", cache_control: EPHEMERAL },
      { type: "thinking", thinking: "hm", signature: "sig" },
    ]);
    assert.equal("tools" in body, false, "no tools, no tools parameter");
  });

  describe("the strict fake", () => {
    const toolUse = (id: string) => ({ type: "tool_use" as const, id, name: "list_dir", input: { path: "/" } });
    const toolResult = (id: string) => ({ type: "tool_result" as const, tool_use_id: id, content: "ok" });
    const user = (...content: Anthropic.ContentBlockParam[]): Anthropic.MessageParam => ({ role: "user", content });
    const assistant = (...content: Anthropic.ContentBlockParam[]): Anthropic.MessageParam => ({ role: "assistant", content });
    const hi = user({ type: "text", text: "hi" });
    const cached = (text: string): Anthropic.TextBlockParam => ({ type: "text", text, cache_control: { type: "ephemeral" } });

    const cases: {
      name: string;
      params: { [K in keyof Anthropic.MessageCreateParamsNonStreaming]?: Anthropic.MessageCreateParamsNonStreaming[K] | undefined };
      error: RegExp;
    }[] = [
      {
        name: "a tool_use not answered in the next message",
        params: { messages: [hi, assistant(toolUse("toolu_1")), user({ type: "text", text: "well?" })] },
        error: /`tool_use` ids were found without `tool_result` blocks immediately after: toolu_1/,
      },
      {
        name: "a tool_use answered for only one of its ids",
        params: { messages: [hi, assistant(toolUse("toolu_1"), toolUse("toolu_2")), user(toolResult("toolu_1"))] },
        error: /without `tool_result` blocks immediately after: toolu_2/,
      },
      {
        name: "a final assistant tool_use with no answer at all",
        params: { messages: [hi, assistant(toolUse("toolu_1"))] },
        error: /without `tool_result` blocks/,
      },
      {
        name: "a stray tool_result",
        params: { messages: [hi, assistant({ type: "text", text: "hello" }), user(toolResult("toolu_9"))] },
        error: /unexpected `tool_use_id` found in `tool_result` blocks: toolu_9/,
      },
      {
        name: "a tool_result answering an older assistant message",
        params: {
          messages: [hi, assistant(toolUse("toolu_1")), user(toolResult("toolu_1")), assistant({ type: "text", text: "ok" }), user(toolResult("toolu_1"))],
        },
        error: /unexpected `tool_use_id`/,
      },
      {
        name: "a duplicate tool_result",
        params: { messages: [hi, assistant(toolUse("toolu_1")), user(toolResult("toolu_1"), toolResult("toolu_1"))] },
        error: /duplicate `tool_result` block for tool_use_id toolu_1/,
      },
      {
        name: "a tool_result after other content",
        params: { messages: [hi, assistant(toolUse("toolu_1")), user({ type: "text", text: "here:" }, toolResult("toolu_1"))] },
        error: /`tool_result` blocks must come first/,
      },
      { name: "no messages", params: { messages: [] }, error: /at least one message/ },
      { name: "a first message from the assistant", params: { messages: [assistant({ type: "text", text: "hi" })] }, error: /first message/ },
      { name: "two user messages in a row", params: { messages: [hi, hi] }, error: /roles must alternate/ },
      {
        name: "a thinking block without its signature",
        params: { messages: [hi, assistant({ type: "thinking", thinking: "hm" } as Anthropic.ThinkingBlockParam), hi] },
        error: /thinking\.signature: Field required/,
      },
      {
        name: "five cache breakpoints",
        params: { system: [cached("a"), cached("b"), cached("c")], messages: [user(cached("d"), cached("e"))] },
        error: /A maximum of 4 blocks with cache_control may be provided\. Found 5\./,
      },
      {
        name: "a tool without input_schema",
        params: { tools: [{ name: "list_dir" } as Anthropic.Tool] },
        error: /tools\.0\.custom\.input_schema: Field required/,
      },
      {
        name: "a tool without a name",
        params: { tools: [{ input_schema: { type: "object" } } as Anthropic.Tool] },
        error: /tools\.0\.custom\.name: Field required/,
      },
      {
        name: "a thinking budget not below max_tokens",
        params: { max_tokens: 2048, thinking: { type: "enabled", budget_tokens: 2048 } },
        error: /`max_tokens` must be greater than `thinking.budget_tokens`/,
      },
      { name: "no model", params: { model: undefined }, error: /model: Field required/ },
      { name: "no max_tokens", params: { max_tokens: undefined }, error: /max_tokens: Field required/ },
    ];

    for (const { name, params, error } of cases) {
      it(`refuses ${name} with a 400, through the SDK`, async (t) => {
        const server = await fake(t, () => textTurn("should not get here"));
        const client = new Anthropic({ apiKey: KEY, baseURL: server.url, maxRetries: 0 });
        const body = { model: "claude-test-1", max_tokens: 1024, messages: [hi], ...params } as Anthropic.MessageCreateParamsNonStreaming;
        await assert.rejects(client.messages.create(body), (caught: unknown) => {
          assert.ok(caught instanceof BadRequestError, String(caught));
          assert.equal(caught.status, 400);
          assert.equal(caught.type, "invalid_request_error");
          assert.match(caught.apiMessage ?? "", error);
          return true;
        });
        assert.equal(server.requests[0]?.accepted, false);
        assert.match(server.requests[0]?.rejection ?? "", error);
      });
    }

    it("accepts the same kind of conversation when it is well formed", async (t) => {
      const server = await fake(t, () => textTurn("fine"));
      const client = new Anthropic({ apiKey: KEY, baseURL: server.url, maxRetries: 0 });
      const message = await client.messages.create({
        model: "claude-test-1",
        max_tokens: 1024,
        messages: [hi, assistant(toolUse("toolu_1"), toolUse("toolu_2")), user(toolResult("toolu_2"), toolResult("toolu_1"), { type: "text", text: "go on" })],
      });
      assert.deepEqual(message.content, [{ type: "text", text: "fine" }]);
      assert.equal(message.usage.cache_read_input_tokens, 0, "the API's zero, not a missing field");
    });

    it("answers a missing or wrong key with 401 and the API's error body; takes x-api-key too", async (t) => {
      const server = await fake(t, () => textTurn("hello"));
      const post = (headers: Record<string, string>) =>
        fetch(`${server.url}/v1/messages`, {
          method: "POST",
          headers: { "content-type": "application/json", "anthropic-version": "2023-06-01", ...headers },
          body: JSON.stringify({ model: "claude-test-1", max_tokens: 16, messages: [hi] }),
        });

      const missing = await post({});
      assert.equal(missing.status, 401);
      const body = (await missing.json()) as { type: string; error: { type: string; message: string } };
      assert.equal(body.type, "error");
      assert.equal(body.error.type, "authentication_error");
      assert.equal((await post({ "x-api-key": "wrong" })).status, 401);

      const ok = await post({ "x-api-key": KEY });
      assert.equal(ok.status, 200);
      assert.equal(((await ok.json()) as { type: string }).type, "message");
    });
  });

  describe("errors", () => {
    for (const [status, type] of [
      [429, "rate_limit_error"],
      [529, "overloaded_error"],
      [500, "api_error"],
      [503, "api_error"],
    ] as const) {
      it(`maps ${status} to a retryable ModelCallError`, async (t) => {
        const server = await fake(t, () => ({ status }));
        const error = await rejection(provider(server).complete(modelRequest(), live()));
        assert.equal(error.retryable, true);
        assert.equal(error.status, status);
        assert.match(error.message, new RegExp(`^anthropic API ${status} ${type}: `));
      });
    }

    it("maps an overloaded_error event inside a started stream to a retryable error", async (t) => {
      const server = await fake(t, () => ({ status: 529, midStream: true }));
      const error = await rejection(provider(server).complete(modelRequest(), live()));
      assert.equal(error.retryable, true);
      assert.match(error.message, /overloaded_error: Overloaded/);
    });

    it("maps 400 to a non-retryable ModelCallError with the API's message", async (t) => {
      const server = await fake(t, () => ({ status: 400, message: "prompt is too long: 210000 tokens > 200000 maximum" }));
      const error = await rejection(provider(server).complete(modelRequest(), live()));
      assert.equal(error.retryable, false);
      assert.equal(error.status, 400);
      assert.equal(error.message, "anthropic API 400 invalid_request_error: prompt is too long: 210000 tokens > 200000 maximum");
    });

    it("maps a refused key (401) to a non-retryable ModelCallError", async (t) => {
      const server = await fake(t, () => textTurn("unreachable"));
      const error = await rejection(provider(server, "sk-ant-wrong").complete(modelRequest(), live()));
      assert.equal(error.retryable, false);
      assert.equal(error.status, 401);
      assert.match(error.message, /^anthropic API 401 authentication_error: invalid x-api-key$/);
    });

    it("reports an API nobody listens on as a retryable connection error naming the URL", async () => {
      const gone = await startFakeAnthropic(() => textTurn("never"));
      const { url } = gone;
      await gone.close();
      const error = await rejection(new AnthropicProvider({ apiKey: KEY, baseURL: url }).complete(modelRequest(), live()));
      assert.equal(error.retryable, true);
      assert.equal(error.status, undefined);
      assert.match(error.message, new RegExp(`^cannot reach the anthropic API at ${url}: .*ECONNREFUSED`));
    });

    it("reports a connection dropped mid-stream as retryable", async (t) => {
      const server = await fake(t, () => ({ disconnect: true }));
      const error = await rejection(provider(server).complete(modelRequest(), live()));
      assert.equal(error.retryable, true);
      assert.match(error.message, /stream from .* broke off/);
    });

    it("surfaces a call aborted by its deadline as non-retryable, saying it timed out", async (t) => {
      let release = (_reply: AnthropicReply): void => undefined;
      const server = await fake(t, () => new Promise<AnthropicReply>((resolve) => (release = resolve)));
      const error = await rejection(provider(server).complete(modelRequest(), AbortSignal.timeout(100)));
      assert.equal(error.retryable, false);
      assert.equal(error.message, "the anthropic API call was aborted: timed out");
      await eventually(() => server.requests[0]?.disconnected === true, "the server to see the request cut off");
      // A reply released after the client went away goes nowhere, quietly.
      release(textTurn("too late"));
    });

    it("surfaces a shutdown abort mid-stream as non-retryable, with its reason", async (t) => {
      const controller = new AbortController();
      const server = await fake(t, async () => {
        controller.abort(new Error("shutting down"));
        return textTurn("never read");
      });
      const error = await rejection(provider(server).complete(modelRequest(), controller.signal));
      assert.equal(error.retryable, false);
      assert.equal(error.message, "the anthropic API call was aborted: shutting down");
    });

    it("makes no request with a signal that is already aborted", async (t) => {
      const server = await fake(t, () => textTurn("never"));
      const controller = new AbortController();
      controller.abort();
      const error = await rejection(provider(server).complete(modelRequest(), controller.signal));
      assert.equal(error.retryable, false);
      assert.match(error.message, /aborted/);
      assert.equal(server.requests.length, 0);
    });
  });
});
