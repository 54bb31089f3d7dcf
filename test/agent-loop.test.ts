// covers: src/agent/agent-errors.ts, src/agent/agent-loop.ts, src/agent/defaults.ts, src/agent/run-parts.ts
// covers: src/agent/system-prompt.ts, src/llm/model-provider.ts, src/backends/file/file-store.ts
// covers: src/runstate/records/records.ts, src/tools/tool-set.ts, src/tools/tool.ts, src/agent/run-context.ts
// process: shared
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { ResumeRefusedError } from "../src/agent/agent-errors.js";
import { resumeRun, startRun } from "../src/agent/agent-loop.js";
import { agentSpec, type AgentSpec } from "../src/agent/agent-spec.js";
import { RESUME_REMINDER } from "../src/agent/system-prompt.js";
import type { AgentEvents } from "../src/agent/events.js";
import { ModelCallError, type ModelProvider, type ModelRequest, type ModelTurn, type ProviderName } from "../src/llm/model-provider.js";
import { FileStore, type JournalRecord, type Message } from "../src/index.js";
import { PROTOCOLS } from "../src/journal.js";
import { defineTool, type Tool } from "../src/tools/tool.js";

const scratch = mkdtempSync(join(tmpdir(), "fisk-ai-loop-"));
after(() => rmSync(scratch, { recursive: true, force: true }));
let stores = 0;
const freshStore = () => new FileStore({ dir: join(scratch, `runs-${++stores}`) });

type Reply = { text?: string; tools?: { name: string; input?: Record<string, unknown>; id?: string }[] } | ModelCallError;

/** A model that answers call k with replies[k] and keeps a copy of every request. */
function fakeModel(replies: Reply[], name: ProviderName = "anthropic") {
  const requests: ModelRequest[] = [];
  const provider: ModelProvider = {
    name,
    complete: async (request) => {
      requests.push(structuredClone(request) as ModelRequest);
      const reply = replies[requests.length - 1];
      if (reply === undefined) throw new Error(`the test model has no reply for call ${requests.length}`);
      if (reply instanceof ModelCallError) throw reply;
      const tools = (reply.tools ?? []).map((tool, index) => ({
        type: "tool_use" as const,
        id: tool.id ?? `toolu_${requests.length}_${index}`,
        name: tool.name,
        input: tool.input ?? {},
      }));
      const turn: ModelTurn = {
        message: { role: "assistant", content: [...(reply.text === undefined ? [] : [{ type: "text" as const, text: reply.text }]), ...tools] },
        stop_reason: tools.length > 0 ? "tool_use" : "end_turn",
        usage: { in_tokens: 10, out_tokens: 5, cache_read_tokens: 1 },
      };
      return turn;
    },
  };
  return { provider, requests };
}

/** Tools that log each execution, so a test can count side effects. */
function countingTools(log: string[], extra: Tool[] = []): Tool[] {
  const echo = defineTool({
    name: "echo",
    description: "echo the text",
    input: { type: "object", properties: { text: { type: "string" } } },
    run: async (input) => {
      log.push(String(input.text));
      return `echoed ${String(input.text)}`;
    },
  });
  return [echo, ...extra];
}

/** What a test changes of the agent: its model, its tools' concurrency, its run limits. */
type SpecOverrides = { model?: string; parallelTools?: boolean; maxTokens?: number; maxIterations?: number };

function settings(provider: ModelProvider, tools: readonly Tool[], overrides: SpecOverrides = {}): AgentSpec {
  return agentSpec({
    provider,
    model: overrides.model ?? "test-model",
    system: "You are a test.",
    tools,
    parallelTools: overrides.parallelTools ?? false,
    budget: { maxOutputTokens: 1024, maxTokens: overrides.maxTokens ?? 100_000, maxIterations: overrides.maxIterations ?? 10 },
    thinking: { mode: "off" },
    retry: { attempts: 3, baseDelayMs: 1, timeoutMs: 5000 },
    compaction: { auto: false },
  });
}

const TWO_TOOLS_THEN_ANSWER: Reply[] = [
  {
    text: "Looking.",
    tools: [
      { name: "echo", input: { text: "a" } },
      { name: "echo", input: { text: "b" } },
    ],
  },
  { text: "All done." },
];

/**
 * A predicate for assert.rejects: a ResumeRefusedError with these fields (changes empty,
 * forceOverrides false and limit undefined unless given) and a message that speaks to a
 * library caller, with no CLI flag or command in it.
 */
function refusedWith(
  expected: Pick<ResumeRefusedError, "refusal" | "runId" | "message"> & Partial<Pick<ResumeRefusedError, "changes" | "forceOverrides" | "limit">>,
) {
  return (error: unknown): true => {
    assert.ok(error instanceof ResumeRefusedError, String(error));
    const { refusal, runId, changes, forceOverrides, limit, message } = error;
    assert.deepEqual({ refusal, runId, changes, forceOverrides, limit, message }, { changes: [], forceOverrides: false, limit: undefined, ...expected });
    assert.doesNotMatch(message, /--|fisk-ai/);
    return true;
  };
}

function kinds(records: JournalRecord[]): string[] {
  return records.map((record) => record.protocol.split(".").at(-1) as string);
}

async function recordsOf(store: FileStore, runId: string): Promise<JournalRecord[]> {
  const journal = await store.open(runId);
  try {
    return await journal.records();
  } finally {
    await journal.close();
  }
}

/** Starts a checkpointed run whose `event` throws, leaving the journal as a crash at that point would. */
async function crashAt(
  store: FileStore,
  runId: string,
  replies: Reply[],
  event: "toolFinished" | "assistantTurn",
  tools: readonly Tool[] = countingTools([]),
  overrides: SpecOverrides = {},
): Promise<void> {
  const events: AgentEvents = {
    [event]: () => {
      throw new Error(`simulated crash at ${event}`);
    },
  };
  await assert.rejects(startRun({ spec: settings(fakeModel(replies).provider, tools, overrides), store, events }, { prompt: "go", runId }), /simulated crash/);
}

function assertAlternates(messages: readonly Message[]): void {
  messages.forEach((message, index) => assert.equal(message.role, index % 2 === 0 ? "user" : "assistant"));
}

describe("the agent loop", () => {
  it("runs a turn of two tools and completes, in memory", async () => {
    const log: string[] = [];
    const model = fakeModel(TWO_TOOLS_THEN_ANSWER);
    const outcome = await startRun({ spec: settings(model.provider, countingTools(log)) }, { prompt: "go" });
    assert.deepEqual(outcome, { runId: outcome.runId, reason: "completed", answer: "All done.", checkpointed: false, counters: outcome.counters });
    assert.deepEqual([outcome.counters.modelCalls, outcome.counters.toolCalls, outcome.counters.inTokens, outcome.counters.outTokens], [2, 2, 20, 10]);
    assert.deepEqual(log, ["a", "b"]);
    const second = model.requests[1] as ModelRequest;
    assertAlternates(second.messages);
    assert.deepEqual(
      second.messages[2]?.content.map((block) => (block.type === "tool_result" ? block.content : "")),
      ["echoed a", "echoed b"],
    );
  });

  it("journals exactly the run's records when checkpointed", async () => {
    const store = freshStore();
    const outcome = await startRun(
      { spec: settings(fakeModel(TWO_TOOLS_THEN_ANSWER).provider, countingTools([])), store },
      { prompt: "go", runId: "journaled" },
    );
    assert.equal(outcome.checkpointed, true);
    const records = await recordsOf(store, "journaled");
    assert.deepEqual(kinds(records), ["meta", "assistant", "tool_result", "tool_result", "assistant", "terminal"]);
    const meta = records[0] as Extract<JournalRecord, { protocol: typeof PROTOCOLS.meta }>;
    assert.equal(meta.meta.prompt, "go");
    assert.equal(meta.meta.fingerprint.model, "test-model");
    assert.deepEqual((await store.load("journaled")).terminal, { reason: "completed" });
  });

  it("honors a suspend at the next boundary, after the tool in flight, and resumes exactly once", async () => {
    const store = freshStore();
    const log: string[] = [];
    const suspending = new AbortController();
    const suspend = suspending.signal;
    const requestSuspendDuringTool = defineTool({
      name: "slow",
      description: "asks for a suspend while it runs",
      input: { type: "object" },
      run: async () => {
        suspending.abort();
        log.push("slow");
        return "slow done";
      },
    });
    const replies: Reply[] = [{ tools: [{ name: "slow" }] }, { text: "finished" }];
    const first = fakeModel(replies);
    const tools = countingTools(log, [requestSuspendDuringTool]);
    const suspended = await startRun({ spec: settings(first.provider, tools), store, suspendSignal: suspend }, { prompt: "go", runId: "susp" });
    assert.equal(suspended.reason, "suspended");
    assert.deepEqual(log, ["slow"], "the tool in flight finished");
    assert.equal(first.requests.length, 1);
    assert.deepEqual(kinds(await recordsOf(store, "susp")), ["meta", "assistant", "tool_result", "terminal"]);

    const second = fakeModel(replies.slice(1));
    const replayed: Message[][] = [];
    const resumed = await resumeRun(
      { spec: settings(second.provider, tools), store, events: { replay: (messages) => replayed.push([...messages]) } },
      { runId: "susp", force: false },
    );
    assert.deepEqual([resumed.reason, resumed.answer], ["completed", "finished"]);
    assert.deepEqual(log, ["slow"], "no tool ran twice");
    assert.equal(second.requests.length, 1, "no model call repeated");
    assert.equal(second.requests[0]?.system, `You are a test.\n\n${RESUME_REMINDER}`);
    assert.equal(first.requests[0]?.system, "You are a test.", "the reminder is for the resumed process only");
    assert.equal(replayed[0]?.length, 3, "the transcript so far was replayed");
    assert.deepEqual(kinds(await recordsOf(store, "susp")), ["meta", "assistant", "tool_result", "terminal", "assistant", "terminal"]);
  });

  it("completes a half-answered batch on resume: journaled results reused, only the rest run", async () => {
    const store = freshStore();
    const log: string[] = [];
    // Journal a crash mid-batch: the first tool's result made it, the second's did not.
    const crashing = defineTool({ name: "never", description: "", input: { type: "object" }, run: async () => "x" });
    await crashAt(store, "crashed", TWO_TOOLS_THEN_ANSWER, "toolFinished", countingTools(log, [crashing]));
    assert.deepEqual(kinds(await recordsOf(store, "crashed")), ["meta", "assistant", "tool_result"]);

    const resumeModel = fakeModel(TWO_TOOLS_THEN_ANSWER.slice(1));
    const reused: boolean[] = [];
    const events: AgentEvents = { toolFinished: (_use, _result, fromJournal) => reused.push(fromJournal) };
    const outcome = await resumeRun(
      { spec: settings(resumeModel.provider, countingTools(log, [crashing])), store, events },
      { runId: "crashed", force: false },
    );
    assert.equal(outcome.answer, "All done.");
    assert.deepEqual(log, ["a", "b"], "a ran once, before the crash; b ran once, on resume");
    assert.deepEqual(reused, [true, false]);
    assertAlternates(resumeModel.requests[0]?.messages ?? []);
    const records = await recordsOf(store, "crashed");
    assert.deepEqual(
      records.map((record) => record.seq),
      [1, 2, 3, 4, 5, 6],
      "seqs continue from the journal",
    );
  });

  it("applies a function tool's onCrash policy to the call a crash may have cut short, and to that call only", async () => {
    const replies: Reply[] = [
      {
        text: "Paying.",
        tools: [
          { name: "pay", input: { text: "p" } },
          { name: "echo", input: { text: "b" } },
        ],
      },
      { text: "All done." },
    ];
    const cases: { policy: "rerun" | "ask" | "never"; askRerun?: (tool: Tool) => Promise<boolean>; paid: string[] }[] = [
      { policy: "rerun", paid: ["p"] },
      { policy: "never", paid: [] },
      { policy: "ask", paid: [] },
      { policy: "ask", askRerun: async () => false, paid: [] },
      { policy: "ask", askRerun: async (tool) => tool.name === "pay", paid: ["p"] },
    ];
    for (const [index, { policy, askRerun, paid }] of cases.entries()) {
      const store = freshStore();
      const log: string[] = [];
      const payments: string[] = [];
      const pay = defineTool({
        name: "pay",
        description: "",
        input: { type: "object" },
        onCrash: policy,
        run: async (input) => (payments.push(String(input.text)), "paid"),
      });
      // Killed right after the turn was journaled: as far as the journal tells, pay may have started.
      await crashAt(store, `pay-${index}`, replies, "assistantTurn", countingTools(log, [pay]));
      const outcome = await resumeRun(
        { spec: settings(fakeModel(replies.slice(1)).provider, countingTools(log, [pay])), store, askRerun },
        { runId: `pay-${index}`, force: false },
      );
      const what = `${policy}${askRerun === undefined ? "" : " with an answer"}`;
      assert.equal(outcome.answer, "All done.", what);
      assert.deepEqual([payments, log], [paid, ["b"]], `${what}: the sequential call after it had not started, so it runs`);
      const result = (await recordsOf(store, `pay-${index}`)).find((record) => record.protocol === PROTOCOLS.tool_result);
      const block = result?.protocol === PROTOCOLS.tool_result ? result.tool_result.result : undefined;
      if (paid.length > 0) assert.equal(block?.content, "paid", what);
      else
        assert.deepEqual(
          [block?.is_error, String(block?.content).split(",")[0]],
          [true, "this call of pay may have been running when the run was interrupted (a crash or a kill)"],
          what,
        );
    }
  });

  it("completes without a model call when the final answer was journaled but the terminal record was not", async () => {
    const store = freshStore();
    await crashAt(store, "no-terminal", [{ text: "the answer" }], "assistantTurn");
    assert.deepEqual(kinds(await recordsOf(store, "no-terminal")), ["meta", "assistant"]);
    const resumeModel = fakeModel([]);
    const outcome = await resumeRun({ spec: settings(resumeModel.provider, countingTools([])), store }, { runId: "no-terminal", force: false });
    assert.deepEqual([outcome.reason, outcome.answer, resumeModel.requests.length], ["completed", "the answer", 0]);
    assert.deepEqual((await store.load("no-terminal")).terminal, { reason: "completed" });
  });

  it("completes such a run even when its answer came at the iteration cap and over the budget", async () => {
    const answered = freshStore();
    await crashAt(answered, "capped-answer", [{ text: "made it" }], "assistantTurn", countingTools([]), { maxIterations: 1, maxTokens: 15 });
    const resumeModel = fakeModel([]);
    const outcome = await resumeRun(
      { spec: settings(resumeModel.provider, countingTools([]), { maxIterations: 1, maxTokens: 15 }), store: answered },
      { runId: "capped-answer", force: false },
    );
    assert.deepEqual([outcome.reason, outcome.answer, resumeModel.requests.length], ["completed", "made it", 0]);
  });

  it("stops for the token budget before the turn's tools run", async () => {
    const log: string[] = [];
    const outcome = await startRun({ spec: settings(fakeModel(TWO_TOOLS_THEN_ANSWER).provider, countingTools(log), { maxTokens: 16 }) }, { prompt: "go" });
    assert.equal(outcome.reason, "budget");
    assert.match(outcome.message ?? "", /token budget reached: 16 of 16/);
    assert.deepEqual(log, []);
  });

  it("refuses to resume a run stopped at its budget until the budget is raised, without running the held-back tools", async () => {
    const store = freshStore();
    const log: string[] = [];
    const tight = (maxTokens: number) => settings(fakeModel(TWO_TOOLS_THEN_ANSWER.slice(1)).provider, countingTools(log), { maxTokens });
    const first = fakeModel(TWO_TOOLS_THEN_ANSWER);
    await startRun({ spec: { ...tight(16), provider: first.provider }, store }, { prompt: "go", runId: "broke" });
    await assert.rejects(
      resumeRun({ spec: tight(16), store }, { runId: "broke", force: false }),
      refusedWith({
        refusal: "token-budget",
        runId: "broke",
        limit: { used: 16, max: 16 },
        message: "cannot resume session broke: token budget reached: 16 of 16 tokens used; raise the token budget, then pass force to resume it",
      }),
    );
    assert.deepEqual(log, [], "the tools the budget held back did not run");
    const outcome = await resumeRun({ spec: tight(1000), store }, { runId: "broke", force: true });
    assert.deepEqual([outcome.reason, log], ["completed", ["a", "b"]]);
  });

  it("refuses to resume a run at its iteration cap until the cap is raised", async () => {
    const store = freshStore();
    await startRun(
      { spec: settings(fakeModel(TWO_TOOLS_THEN_ANSWER).provider, countingTools([]), { maxIterations: 1 }), store },
      { prompt: "go", runId: "capped" },
    );
    await assert.rejects(
      resumeRun({ spec: settings(fakeModel([]).provider, countingTools([]), { maxIterations: 1 }), store }, { runId: "capped", force: false }),
      refusedWith({
        refusal: "iteration-cap",
        runId: "capped",
        limit: { used: 1, max: 1 },
        message:
          "cannot resume session capped: it has made 1 of its 1 model calls for its latest prompt; raise the iteration cap, then pass force to resume it",
      }),
    );
  });

  it("ends on error, journaling nothing of it, a turn that gives two tool calls one id", async () => {
    const store = freshStore();
    const log: string[] = [];
    const model = fakeModel([
      {
        tools: [
          { name: "echo", input: { text: "a" }, id: "call_0" },
          { name: "echo", input: { text: "b" }, id: "call_0" },
        ],
      },
    ]);
    const outcome = await startRun({ spec: settings(model.provider, countingTools(log)), store }, { prompt: "go", runId: "twins" });
    assert.deepEqual([outcome.reason, outcome.message], ["error", "the model returned two tool calls with the id call_0"]);
    assert.deepEqual(log, []);
    assert.deepEqual(kinds(await recordsOf(store, "twins")), ["meta", "terminal"], "the session still folds and can be resumed");
  });

  it("stops at the iteration cap at a boundary", async () => {
    const log: string[] = [];
    const outcome = await startRun({ spec: settings(fakeModel(TWO_TOOLS_THEN_ANSWER).provider, countingTools(log), { maxIterations: 1 }) }, { prompt: "go" });
    assert.equal(outcome.reason, "max_iterations");
    assert.deepEqual(log, ["a", "b"], "the turn's tools ran before the boundary");
  });

  it("retries a retryable failure and ends on error after the retries, with the reason", async () => {
    const retries: number[] = [];
    const flaky = fakeModel([new ModelCallError("overloaded", { retryable: true, status: 529 }), { text: "ok" }]);
    const outcome = await startRun(
      { spec: settings(flaky.provider, countingTools([])), events: { modelCallRetrying: (attempt) => retries.push(attempt) } },
      { prompt: "go" },
    );
    assert.deepEqual([outcome.reason, retries, flaky.requests.length], ["completed", [1], 2]);

    const store = freshStore();
    const down = fakeModel([1, 2, 3].map(() => new ModelCallError("API 500", { retryable: true, status: 500 })));
    const failed = await startRun({ spec: settings(down.provider, countingTools([])), store }, { prompt: "go", runId: "down" });
    assert.deepEqual([failed.reason, failed.message, down.requests.length], ["error", "model call failed: API 500", 3]);
    assert.deepEqual((await store.load("down")).terminal, { reason: "error", message: "model call failed: API 500" });

    const refused = fakeModel([new ModelCallError("API 400 invalid_request_error", { retryable: false, status: 400 })]);
    const outcome400 = await startRun({ spec: settings(refused.provider, countingTools([])) }, { prompt: "go" });
    assert.deepEqual([outcome400.reason, refused.requests.length], ["error", 1]);
  });

  it("runs a batch concurrently with parallel_tools, journaling each result", async () => {
    const store = freshStore();
    let running = 0;
    let overlapped = false;
    const wait = defineTool({
      name: "wait",
      description: "",
      input: { type: "object" },
      run: async () => {
        running++;
        await new Promise((resolve) => setTimeout(resolve, 30));
        overlapped ||= running > 1;
        running--;
        return "waited";
      },
    });
    const model = fakeModel([{ tools: [{ name: "wait" }, { name: "wait" }, { name: "wait" }] }, { text: "done" }]);
    await startRun({ spec: settings(model.provider, [wait], { parallelTools: true }), store }, { prompt: "go", runId: "par" });
    assert.ok(overlapped, "the tools ran at the same time");
    assert.equal((await store.load("par")).counters.toolCalls, 3);
  });

  it("waits for every tool of a parallel batch before failing the run for one of them", async () => {
    const finished: string[] = [];
    // The slow tool ends only after the fast one's failure: the run has failed by then, and waits.
    let fastFailed = () => undefined as void;
    const failure = new Promise<void>((resolve) => (fastFailed = resolve));
    const slow = defineTool({
      name: "slow",
      description: "",
      input: { type: "object" },
      run: async () => {
        await failure;
        finished.push("slow");
        return "slow done";
      },
    });
    const model = fakeModel([{ tools: [{ name: "echo", input: { text: "fast" } }, { name: "slow" }] }]);
    const failOnFast: AgentEvents = {
      toolFinished: (use) => {
        if (use.name !== "echo") return;
        fastFailed();
        throw new Error("the journal failed");
      },
    };
    await assert.rejects(
      startRun({ spec: settings(model.provider, countingTools(finished, [slow]), { parallelTools: true }), events: failOnFast }, { prompt: "go" }),
      /the journal failed/,
    );
    assert.deepEqual(finished, ["fast", "slow"], "the slow tool had finished when the run failed");
  });

  it("tells the model, with is_error, about an unknown tool and a confirm tool denied in a run that has no one to ask and cannot wait", async () => {
    const log: string[] = [];
    const guarded = defineTool({ name: "rm", description: "", input: { type: "object" }, confirm: true, run: async () => (log.push("rm"), "removed") });
    const model = fakeModel([{ tools: [{ name: "nope" }, { name: "rm" }] }, { text: "ok" }]);
    await startRun({ spec: settings(model.provider, countingTools(log, [guarded])) }, { prompt: "go" });
    const results = model.requests[1]?.messages[2]?.content ?? [];
    assert.deepEqual(
      results.map((block) => (block.type === "tool_result" ? [block.is_error, String(block.content).split(";")[0]] : [])),
      [
        [true, "no tool named nope"],
        [
          true,
          "denied: no one could be asked to allow this call of rm (no terminal or callback), and a run that is not checkpointed cannot wait for a decision",
        ],
      ],
    );
    assert.deepEqual(log, [], "the denied tool never ran");
  });

  describe("the resume guard", () => {
    async function suspendedRun(store: FileStore, runId: string): Promise<void> {
      const suspend = AbortSignal.abort();
      await startRun({ spec: settings(fakeModel([]).provider, countingTools([])), store, suspendSignal: suspend }, { prompt: "go", runId });
    }

    it("refuses a changed configuration with one line per change, and force proceeds", async () => {
      const store = freshStore();
      await suspendedRun(store, "guarded");
      const changed = settings(fakeModel([{ text: "forced" }]).provider, countingTools([]), { model: "other", maxIterations: 9 });
      await assert.rejects(
        resumeRun({ spec: changed, store }, { runId: "guarded", force: false }),
        refusedWith({
          refusal: "configuration-changed",
          runId: "guarded",
          changes: ["model: test-model -> other", "max_iterations: 10 -> 9"],
          forceOverrides: true,
          message:
            "cannot resume session guarded: its configuration changed:\n  model: test-model -> other\n  max_iterations: 10 -> 9\nrestore the configuration, or pass force to resume anyway",
        }),
      );
      const outcome = await resumeRun({ spec: changed, store }, { runId: "guarded", force: true });
      assert.equal(outcome.answer, "forced");
    });

    it("refuses another provider even when forced", async () => {
      const store = freshStore();
      await suspendedRun(store, "provider");
      const openai = settings(fakeModel([{ text: "x" }], "openai").provider, countingTools([]));
      await assert.rejects(
        resumeRun({ spec: openai, store }, { runId: "provider", force: true }),
        refusedWith({
          refusal: "provider-changed",
          runId: "provider",
          changes: ["provider: anthropic -> openai"],
          message:
            "cannot resume session provider with another provider (provider: anthropic -> openai): its turns cannot continue on a different API, even when forced",
        }),
      );
    });

    it("refuses a completed run", async () => {
      const store = freshStore();
      await startRun({ spec: settings(fakeModel([{ text: "done" }]).provider, countingTools([])), store }, { prompt: "go", runId: "done" });
      await assert.rejects(
        resumeRun({ spec: settings(fakeModel([]).provider, countingTools([])), store }, { runId: "done", force: true }),
        refusedWith({ refusal: "completed", runId: "done", message: "session done is completed: there is nothing to resume" }),
      );
    });
  });
});
