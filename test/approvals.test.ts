// covers: src/agent/agent-errors.ts, src/agent/agent-loop.ts, src/agent/approvals.ts, src/agent/events.ts
// covers: src/agent/run-agent.ts, src/agent/waiting-calls.ts, src/journal.ts, src/llm/anthropic-provider.ts
// covers: src/backends/memory/memory-store.ts, src/runstate/errors.ts, src/session/decide-calls.ts
// covers: src/tools/ask-user.ts, src/tools/tool-set.ts, src/tools/tool.ts
// process: shared
// Approvals through the library: a run with a store and no one to ask parks its confirm
// calls and questions, approve/deny/answer decide each once, and a resume goes on with
// exactly the journaled input; against the strict fake Anthropic server.
import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import {
  AnthropicProvider,
  answer,
  approve,
  askUserTool,
  DecisionRefusedError,
  defineTool,
  isRunStateError,
  deny,
  listPending,
  MemoryStore,
  runAgent,
  type AgentEvents,
  type JournalRecord,
  type RunAgentOptions,
  type Store,
} from "../src/index.js";
import { resumeRun, startRun } from "../src/agent/agent-loop.js";
import { agentSpec, type AgentSpec } from "../src/agent/agent-spec.js";
import { storeContract } from "../src/journal.js";
import { startFakeAnthropic, type AnthropicReply, type AnthropicTurn, type FakeServer } from "./helpers/fake-anthropic-server.js";

const KEY = "sk-ant-test-approvals";

function textTurn(text: string): AnthropicTurn {
  return { content: [{ type: "text", text }], stop_reason: "end_turn", usage: { input_tokens: 10, output_tokens: 3 } };
}

function callsTurn(...calls: [id: string, name: string, input: Record<string, unknown>][]): AnthropicTurn {
  return {
    content: calls.map(([id, name, input]) => ({ type: "tool_use", id, name, input })),
    stop_reason: "tool_use",
    usage: { input_tokens: 20, output_tokens: 5 },
  };
}

async function fake(t: TestContext, replies: AnthropicReply[]): Promise<FakeServer> {
  const server = await startFakeAnthropic(
    (_request, index) => {
      const reply = replies[index];
      if (reply === undefined) throw new Error(`call #${index + 1} was not expected`);
      return reply;
    },
    { apiKey: KEY },
  );
  t.after(() => server.close());
  return server;
}

/** The tool_result blocks of the latest message of accepted request `call`. */
function resultsSent(server: FakeServer, call: number): { tool_use_id: string; content: unknown; is_error?: boolean }[] {
  const body = server.requests.filter((r) => r.accepted)[call]?.body as { messages: { content: { type: string }[] }[] };
  return body.messages.at(-1)?.content.filter((block) => block.type === "tool_result") as never;
}

function kinds(records: readonly JournalRecord[]): string[] {
  return records.map((record) => record.protocol.split(".").at(-1) as string);
}

async function records(store: Store, runId: string): Promise<JournalRecord[]> {
  const journal = await store.open(runId);
  try {
    return await journal.records();
  } finally {
    await journal.close();
  }
}

/** A `send` tool that needs approval and a `note` tool that does not, counting their runs. */
function tools() {
  const ran: string[] = [];
  const send = defineTool({
    name: "send",
    description: "Sends a message",
    input: { type: "object" },
    confirm: true,
    run: (input) => (ran.push(`send:${JSON.stringify(input)}`), "sent"),
  });
  const note = defineTool({
    name: "note",
    description: "Notes a line",
    input: { type: "object" },
    run: (input) => (ran.push(`note:${JSON.stringify(input)}`), "noted"),
  });
  return { ran, list: [send, note] };
}

function options(server: FakeServer, store: Store | undefined, extra: Partial<RunAgentOptions>): RunAgentOptions {
  return { provider: new AnthropicProvider({ apiKey: KEY, baseURL: server.url }), model: "claude-sonnet-4-5", store, ...extra } as RunAgentOptions;
}

describe("approvals in the library", () => {
  it("parks a confirm call with no one to ask, finishes the rest of the batch, and resumes with the approved input once", async (t) => {
    const server = await fake(t, [callsTurn(["toolu_s", "send", { to: "ops", body: "deploy?" }], ["toolu_n", "note", { text: "asked" }]), textTurn("sent it")]);
    const store = new MemoryStore();
    t.after(() => store.close());
    const { ran, list } = tools();
    const seen: string[] = [];
    const events: AgentEvents = {
      approvalRequested: (request) => seen.push(`request ${request.tool_use_id} ${request.kind}`),
      runFinished: (outcome) => seen.push(`finished ${outcome.reason}`),
    };
    const parked = await runAgent(options(server, store, { prompt: "send it", tools: list, runId: "park", events }));
    assert.equal(parked.reason, "awaiting_approval");
    assert.deepEqual(
      parked.waiting?.map((call) => [call.toolUseId, call.name, call.input, call.kind]),
      [["toolu_s", "send", { to: "ops", body: "deploy?" }, "approval"]],
    );
    assert.deepEqual(ran, ['note:{"text":"asked"}'], "the other call of the batch ran; the parked one did not");
    assert.deepEqual(seen, ["request toolu_s approval", "finished awaiting_approval"]);
    assert.deepEqual(kinds(await records(store, "park")), ["meta", "assistant", "approval_request", "tool_result", "terminal"]);
    assert.equal((await store.summarize("park")).status, "awaiting_approval");

    // Resumed undecided: parks again, without a model call and without a record.
    const again = await runAgent(options(server, store, { tools: list, resume: "park" }));
    assert.equal(again.reason, "awaiting_approval");
    assert.equal(server.requests.length, 1);
    assert.equal((await records(store, "park")).length, 5);

    const decided = await approve(store, "park", [], { decidedBy: "alice@test" });
    assert.deepEqual(
      decided.decided.map((d) => [d.tool_use_id, d.decision, d.decided_by]),
      [["toolu_s", "approve", "alice@test"]],
    );
    assert.deepEqual(decided.waiting, []);
    assert.equal((await store.summarize("park")).status, "suspended");

    const done = await runAgent(options(server, store, { tools: list, resume: "park" }));
    assert.equal(done.reason, "completed");
    assert.equal(done.answer, "sent it");
    assert.deepEqual(ran, ['note:{"text":"asked"}', 'send:{"to":"ops","body":"deploy?"}']);
    const results = resultsSent(server, 1);
    assert.deepEqual(
      results.map((r) => [r.tool_use_id, r.content, r.is_error === true]),
      [
        ["toolu_n", "noted", false],
        ["toolu_s", "sent", false],
      ],
      "results in journal order",
    );
    assert.ok(
      server.requests.every((r) => r.accepted),
      "every request the strict server saw was valid",
    );
  });

  it("denies with the operator's reason, which the model reads as an error, and never runs the call", async (t) => {
    const server = await fake(t, [callsTurn(["toolu_s", "send", { to: "all" }]), textTurn("ok, not sent")]);
    const store = new MemoryStore();
    t.after(() => store.close());
    const { ran, list } = tools();
    assert.equal((await runAgent(options(server, store, { prompt: "send", tools: list, runId: "d" }))).reason, "awaiting_approval");
    await deny(store, "d", "not to everyone");
    // --force has no say over decisions: a changed configuration forced through still never runs it.
    const done = await runAgent(options(server, store, { tools: list, resume: "d", model: "another-model", force: true }));
    assert.equal(done.reason, "completed");
    assert.deepEqual(ran, []);
    const [denied] = resultsSent(server, 1);
    assert.equal(denied?.is_error, true);
    assert.equal(denied?.content, "the operator denied this call of send: not to everyone");
  });

  it("refuses a second decision, a call that does not wait, the wrong kind and an ambiguous answer, each with its own refusal", async (t) => {
    const server = await fake(t, [
      callsTurn(
        ["toolu_a", "send", { n: 1 }],
        ["toolu_b", "send", { n: 2 }],
        ["toolu_q1", "ask_user", { question: "which?" }],
        ["toolu_q2", "ask_user", { question: "when?" }],
      ),
    ]);
    const store = new MemoryStore();
    t.after(() => store.close());
    const { list } = tools();
    const parked = await runAgent(options(server, store, { prompt: "go", tools: [...list, askUserTool], runId: "r" }));
    assert.deepEqual(
      parked.waiting?.map((call) => call.kind),
      ["approval", "approval", "question", "question"],
    );
    const refused = (refusal: string, pattern: RegExp) => (error: unknown) =>
      error instanceof DecisionRefusedError && error.refusal === refusal && pattern.test(error.message);
    const first = await approve(store, "r", ["toolu_a"]);
    assert.deepEqual(
      first.waiting.map((call) => call.toolUseId),
      ["toolu_b", "toolu_q1", "toolu_q2"],
    );
    assert.equal((await store.summarize("r")).status, "awaiting_approval", "calls still wait");
    await assert.rejects(approve(store, "r", ["toolu_a"]), refused("already-decided", /call toolu_a of session r is already decided: approve by /));
    await assert.rejects(deny(store, "r", "no", ["toolu_zz"]), refused("not-waiting", /session r has no call toolu_zz waiting/));
    await assert.rejects(approve(store, "r", ["toolu_q1"]), refused("wrong-kind", /is a question, which approve does not decide/));
    await assert.rejects(answer(store, "r", "this one", { toolUseId: "toolu_b" }), refused("wrong-kind", /is an approval, which answer does not decide/));
    await assert.rejects(answer(store, "r", "this one"), refused("ambiguous", /2 questions waiting/));
    await approve(store, "r");
    await assert.rejects(approve(store, "r"), refused("already-decided", /every approval that waited in session r is already decided/));
    await answer(store, "r", "the blue one", { toolUseId: "toolu_q1" });
    await deny(store, "r", "ask later");
    await assert.rejects(deny(store, "r", "again"), refused("already-decided", /every call that waited/));
    const decisions = (await records(store, "r")).filter((record) => "approval_decision" in record);
    assert.equal(decisions.length, 4, "one decision a call, whatever was tried");
    assert.equal((await store.summarize("r")).status, "suspended");
  });

  it("waits for one holder of the session at most lockWaitMs, and again for each new one: a line of deciders that moves is waited out", async (t) => {
    const server = await fake(t, [callsTurn(["toolu_a", "send", { n: 1 }])]);
    const store = new MemoryStore();
    t.after(() => store.close());
    await runAgent(options(server, store, { prompt: "go", tools: tools().list, runId: "r" }));
    // The session looks held by someone else for `tries` opens: by a new process each try, or by one.
    const heldFor = (tries: number, holderOf: (attempt: number) => number): { store: Store; attempts: () => number } => {
      let attempts = 0;
      const held = new Proxy(store, {
        get(target, key) {
          if (key !== "open") return Reflect.get(target, key, target);
          return (runId: string) => {
            attempts++;
            if (attempts > tries) return target.open(runId);
            throw storeContract.lockedError(runId, { pid: holderOf(attempts), host: "elsewhere", started: "2026-12-06T08:00:00.000Z" });
          };
        },
      });
      return { store: held, attempts: () => attempts };
    };
    const fixed = heldFor(Number.POSITIVE_INFINITY, () => 7);
    const started = Date.now();
    await assert.rejects(approve(fixed.store, "r", [], { lockWaitMs: 150 }), (error: unknown) => isRunStateError(error, "ERR_LOCKED"));
    assert.ok(Date.now() - started >= 150, "one holder is waited for lockWaitMs before the refusal");
    // Each try meets the next decider: 20 turns take longer than lockWaitMs, and the decision is still made.
    const moving = heldFor(20, (attempt) => 1000 + attempt);
    const decided = await approve(moving.store, "r", [], { lockWaitMs: 150 });
    assert.deepEqual([decided.decided.map((decision) => decision.tool_use_id), moving.attempts()], [["toolu_a"], 21]);
  });

  it("asks ask_user through askUser on the spot, journaling the answer before the model gets it; without it the question parks for answer", async (t) => {
    const server = await fake(t, [
      callsTurn(["toolu_q", "ask_user", { question: "Which region?" }]),
      textTurn("eu it is"),
      callsTurn(["toolu_q", "ask_user", { question: "Which region?" }]),
      textTurn("us it is"),
    ]);
    const store = new MemoryStore();
    t.after(() => store.close());
    const asked: string[] = [];
    const onTheSpot = await runAgent(
      options(server, store, { prompt: "deploy", tools: [askUserTool], runId: "spot", askUser: async (question) => (asked.push(question), "eu") }),
    );
    assert.equal(onTheSpot.answer, "eu it is");
    assert.deepEqual(asked, ["Which region?"]);
    const decision = (await records(store, "spot")).find((record) => "approval_decision" in record) as {
      approval_decision: { decision: string; text: string; decided_by: string };
    };
    assert.deepEqual(
      [decision.approval_decision.decision, decision.approval_decision.text, decision.approval_decision.decided_by],
      ["answer", "eu", "callback"],
    );
    assert.deepEqual(
      resultsSent(server, 1).map((r) => r.content),
      ["eu"],
    );

    const parked = await runAgent(options(server, store, { prompt: "deploy", tools: [askUserTool], runId: "later" }));
    assert.deepEqual([parked.reason, parked.waiting?.[0]?.kind], ["awaiting_approval", "question"]);
    assert.deepEqual(
      (await listPending(store)).map((call) => [call.runId, call.toolUseId, call.input]),
      [["later", "toolu_q", { question: "Which region?" }]],
    );
    await answer(store, "later", "us");
    assert.deepEqual(await listPending(store), []);
    const done = await runAgent(options(server, store, { tools: [askUserTool], resume: "later" }));
    assert.equal(done.answer, "us it is");
    assert.deepEqual(
      resultsSent(server, 3).map((r) => [r.content, r.is_error === true]),
      [["us", false]],
    );
  });

  it("journals a confirm callback's yes before the call runs, so a crash after it never asks again", async (t) => {
    const server = await fake(t, [callsTurn(["toolu_s", "send", { n: 1 }]), textTurn("done")]);
    const store = new MemoryStore();
    t.after(() => store.close());
    const crash = new AbortController();
    let runs = 0;
    const send = defineTool({
      name: "send",
      description: "Sends",
      input: { type: "object" },
      confirm: true,
      run: () => (++runs === 1 ? (crash.abort(), "cut") : "sent"),
    });
    let asks = 0;
    const confirm = async () => (asks++, true);
    const settings = (): AgentSpec =>
      agentSpec({
        provider: new AnthropicProvider({ apiKey: KEY, baseURL: server.url }),
        model: "claude-sonnet-4-5",
        system: "s",
        tools: [send],
        parallelTools: false,
        budget: { maxOutputTokens: 1000, maxTokens: 100_000, maxIterations: 10 },
        thinking: { mode: "off" },
        retry: { attempts: 1, baseDelayMs: 1, timeoutMs: 10_000 },
        compaction: { auto: false },
      });
    // The loop's own abort signal is a crash: nothing more is journaled.
    await assert.rejects(startRun({ spec: settings(), store, confirm, decidedBy: "terminal", abortSignal: crash.signal }, { prompt: "send", runId: "c" }));
    assert.deepEqual(kinds(await records(store, "c")), ["meta", "assistant", "approval_decision"]);
    const done = await resumeRun({ spec: settings(), store, confirm }, { runId: "c", force: false });
    assert.equal(done.answer, "done");
    assert.equal(asks, 1, "the journaled yes is not asked again");
    assert.equal(runs, 2, "the call a crash cut short runs again under on_crash: rerun");
  });

  it("turns a request undecided past approvalTimeoutMs into a journaled denial, 'timed out', at the next resume", async (t) => {
    const server = await fake(t, [callsTurn(["toolu_s", "send", { n: 1 }]), textTurn("it timed out")]);
    const store = new MemoryStore();
    t.after(() => store.close());
    const { ran, list } = tools();
    await runAgent(options(server, store, { prompt: "send", tools: list, runId: "late", approvalTimeoutMs: 3_600_000 }));
    const early = await runAgent(options(server, store, { tools: list, resume: "late", approvalTimeoutMs: 3_600_000 }));
    assert.equal(early.reason, "awaiting_approval", "not yet timed out");
    const decisions: string[] = [];
    const done = await runAgent(
      options(server, store, {
        tools: list,
        resume: "late",
        approvalTimeoutMs: 1,
        events: { approvalDecided: (d) => decisions.push(`${d.decision} ${d.decided_by} ${d.text}`) },
      }),
    );
    assert.equal(done.answer, "it timed out");
    assert.deepEqual(decisions, ["deny timeout timed out"]);
    assert.deepEqual(ran, []);
    assert.equal(resultsSent(server, 1)[0]?.content, "the operator denied this call of send: timed out");
  });

  it("asks about parked calls on a resume that has someone to ask; a parked call whose tool is gone is denied, not asked; a failed question is a denial", async (t) => {
    const server = await fake(t, [
      callsTurn(["toolu_s", "send", { n: 1 }], ["toolu_q", "ask_user", { question: "why?" }]),
      textTurn("after asking"),
      callsTurn(["toolu_s", "send", { n: 2 }]),
      textTurn("tool gone"),
    ]);
    const store = new MemoryStore();
    t.after(() => store.close());
    const { ran, list } = tools();
    assert.equal((await runAgent(options(server, store, { prompt: "a", tools: [...list, askUserTool], runId: "ask" }))).reason, "awaiting_approval");
    const asked: string[] = [];
    const done = await runAgent(
      options(server, store, {
        tools: [...list, askUserTool],
        resume: "ask",
        confirm: async (tool, input) => (asked.push(`${tool.name} ${JSON.stringify(input)}`), true),
        askUser: async () => Promise.reject(new Error("the terminal went away")),
      }),
    );
    assert.equal(done.answer, "after asking");
    assert.deepEqual(asked, ['send {"n":1}']);
    assert.deepEqual(ran, ['send:{"n":1}']);
    assert.deepEqual(
      resultsSent(server, 1).map((r) => [r.tool_use_id, r.content, r.is_error === true]),
      [
        ["toolu_s", "sent", false],
        ["toolu_q", "the operator denied this call of ask_user: the question could not be asked", true],
      ],
    );

    assert.equal((await runAgent(options(server, store, { prompt: "b", tools: list, runId: "gone" }))).reason, "awaiting_approval");
    const without = list.filter((tool) => tool.name !== "send");
    const forced = await runAgent(options(server, store, { tools: without, resume: "gone", force: true, confirm: async () => true }));
    assert.equal(forced.answer, "tool gone");
    assert.deepEqual(ran, ['send:{"n":1}'], "the call of a tool no longer configured never runs");
    assert.equal(resultsSent(server, 3)[0]?.content, "the operator denied this call of send: its tool send is no longer configured");
  });

  it("denies a confirm call in a run without a store and no one to ask: such a run cannot wait", async (t) => {
    const server = await fake(t, [callsTurn(["toolu_s", "send", { n: 1 }]), textTurn("could not")]);
    const { ran, list } = tools();
    const done = await runAgent(options(server, undefined, { prompt: "send", tools: list }));
    assert.equal(done.reason, "completed");
    assert.deepEqual(ran, []);
    const [denied] = resultsSent(server, 1);
    assert.equal(denied?.is_error, true);
    assert.match(String(denied?.content), /^denied: no one could be asked to allow this call of send .* a run that is not checkpointed cannot wait/);
  });
});
