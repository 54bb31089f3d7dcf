import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { ModelCallError, type ModelRequest } from "../src/llm/model-provider.js";
import { ScriptProvider } from "../src/llm/script-provider.js";
import type { Message } from "../src/index.js";

const scratch = mkdtempSync(join(tmpdir(), "fisk-ai-script-"));
after(() => rmSync(scratch, { recursive: true, force: true }));
let files = 0;
function script(text: string): string {
  const path = join(scratch, `script-${++files}.yaml`);
  writeFileSync(path, text);
  return path;
}

const SCRIPT = `
turns:
  - text: Writing it down.
    tool_calls:
      - name: note
        input: { text: milk }
  - choose:
      - when: Permission denied
        text: I could not write the note.
      - text: Noted.
`;

function request(messages: Message[]): ModelRequest {
  return { model: "m", system: "s", messages, tools: [], maxOutputTokens: 100, thinking: { mode: "off" } };
}

const signal = new AbortController().signal;
const prompt: Message = { role: "user", content: [{ type: "text", text: "go" }] };

function afterTool(result: string): Message[] {
  return [
    prompt,
    { role: "assistant", content: [{ type: "tool_use", id: "toolu_script_1_1", name: "note", input: { text: "milk" } }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_script_1_1", content: result }] },
  ];
}

describe("the script provider", () => {
  it("plays the turn given by the number of assistant turns so far, with deterministic ids and usage", async () => {
    const provider = new ScriptProvider(script(SCRIPT));
    const first = await provider.complete(request([prompt]), signal);
    assert.deepEqual(first.message.content, [
      { type: "text", text: "Writing it down." },
      { type: "tool_use", id: "toolu_script_1_1", name: "note", input: { text: "milk" } },
    ]);
    assert.equal(first.stop_reason, "tool_use");
    assert.deepEqual(await provider.complete(request([prompt]), signal), first, "the same conversation, the same turn");
    assert.ok(first.usage.in_tokens > 0 && first.usage.out_tokens > 0);
  });

  it("chooses a reply by text in the latest tool result", async () => {
    const provider = new ScriptProvider(script(SCRIPT));
    const denied = await provider.complete(request(afterTool("sh: notes.txt: Permission denied")), signal);
    assert.deepEqual(denied.message.content, [{ type: "text", text: "I could not write the note." }]);
    const saved = await provider.complete(request(afterTool("saved: milk")), signal);
    assert.deepEqual([saved.message.content, saved.stop_reason], [[{ type: "text", text: "Noted." }], "end_turn"]);
  });

  it("says clearly when the run goes past the end of the script", async () => {
    const provider = new ScriptProvider(script("turns:\n  - text: one\n    tool_calls: [{ name: note }]\n"));
    const messages = [...afterTool("ok")];
    messages[1] = { role: "assistant", content: [{ type: "text", text: "one" }, ...(messages[1]?.content ?? [])] } as Message;
    await assert.rejects(
      provider.complete(request(messages), signal),
      (error: unknown) => error instanceof ModelCallError && !error.retryable && /has 1 turns and the run asked for turn 2: add turns/.test(error.message),
    );
  });

  it("names the field of a malformed script", () => {
    assert.throws(() => new ScriptProvider(script("turns:\n  - txt: hi\n")), /script .*: turns\.0: /);
    assert.throws(() => new ScriptProvider(script("turns: []\n")), /turns: /);
    assert.throws(() => new ScriptProvider(join(scratch, "none.yaml")), /cannot read script/);
  });
});
