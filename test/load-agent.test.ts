// covers: src/agent/agent-errors.ts, src/agent/run-agent.ts, src/config/load-agent.ts, src/memory/file-note-store.ts
// process: shared
// A program runs an agent.yaml as the CLI does: loadAgent, then runAgent with the memory
// index in the system prompt, a chat's next prompts and a follow-up on resume, against the
// strict fake Anthropic server.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { ConfigError, FileNoteStore, loadAgent, memoryDir, runAgent } from "../src/index.js";
import { startFakeAnthropic, type AnthropicTurn, type SentMessage } from "./helpers/fake-anthropic-server.js";

const scratch = mkdtempSync(join(tmpdir(), "fisk-ai-load-agent-"));
after(() => rmSync(scratch, { recursive: true, force: true }));
const KEY = "sk-ant-load-agent-test";

function textTurn(text: string): AnthropicTurn {
  return { content: [{ type: "text", text }], stop_reason: "end_turn", usage: { input_tokens: 10, output_tokens: 3 } };
}

function lastUserText(body: { messages: SentMessage[] }): string {
  const last = body.messages.at(-1) as SentMessage;
  return typeof last.content === "string" ? last.content : last.content.map((block) => block.text ?? "").join("");
}

describe("loadAgent", () => {
  it("runs an agent.yaml with its memory index, a chat's prompts and a follow-up, as the CLI does", async (t) => {
    const server = await startFakeAnthropic((request) => textTurn(`answer to: ${lastUserText(request.body as { messages: SentMessage[] })}`), { apiKey: KEY });
    t.after(() => server.close());
    const env = { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url, XDG_STATE_HOME: join(scratch, "state") };
    const config = join(scratch, "agent.yaml");
    writeFileSync(
      config,
      [
        "provider: anthropic",
        "model: claude-sonnet-4-5",
        "system: You keep lists.",
        "memory: { enabled: true, namespace: lists }",
        `session: { state_dir: ${join(scratch, "runs")} }`,
      ].join("\n"),
    );
    await new FileNoteStore(memoryDir("lists", env)).write("shopping", { description: "the shopping list", content: "milk\n" }, false);

    const agent = await loadAgent(config, { env });
    t.after(() => agent.close());
    const store = await agent.openStore();
    t.after(() => store.close());
    const typed = ["and bread"];
    const chat = await runAgent({ ...agent.spec, store, prompt: "what is on my list?", nextPrompt: async () => typed.shift() });
    assert.equal(chat.reason, "suspended", "a chat whose input ends is suspended, so it can be taken up again");

    const systems = server.requests.map((request) => JSON.stringify((request.body as { system: unknown }).system));
    assert.equal(systems.length, 2);
    for (const system of systems) assert.match(system, /shopping/, "the memory index joins the system prompt");
    assert.equal(lastUserText(server.requests[1]?.body as { messages: SentMessage[] }), "and bread");

    const followUp = await runAgent({ ...agent.spec, store, resume: chat.runId, followUp: "one line please" });
    assert.equal(followUp.reason, "completed");
    assert.equal(followUp.answer, "answer to: one line please");

    const state = await store.load(chat.runId);
    assert.equal(state.meta.interactive, true, "a run given nextPrompt is recorded as a chat");
    assert.equal(state.meta.config, config, "the agent.yaml is recorded, so a resume can load it again");
    assert.equal(state.counters.modelCalls, 3);
  });

  it("refuses a followUp without a session to take further, and a file that does not check, naming the field", async () => {
    const config = join(scratch, "script.yaml");
    writeFileSync(join(scratch, "s.script.yaml"), "turns:\n  - text: hi\n");
    writeFileSync(config, "provider: script\nscript: ./s.script.yaml\n");
    const agent = await loadAgent(config);
    await assert.rejects(
      runAgent({ ...agent.spec, prompt: "hi", followUp: "more" }),
      (error: unknown) => error instanceof ConfigError && /followUp/.test(error.message),
    );
    await agent.close();
    writeFileSync(config, "provider: script\nscript: ./s.script.yaml\nmax_tokns: 3\n");
    await assert.rejects(loadAgent(config), (error: unknown) => error instanceof ConfigError && /unknown key "max_tokns"/.test(error.message));
  });
});
