// covers: src/agent/compaction.ts, src/llm/model-provider.ts, src/llm/script-provider.ts
// covers: src/runstate/views/model-view.ts
// process: shared
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { ModelCallError, type ModelRequest } from "../src/llm/model-provider.js";
import { ScriptProvider } from "../src/llm/script-provider.js";
import type { Message } from "../src/index.js";
import { summarizingMessages } from "../src/agent/compaction.js";
import { summaryText } from "../src/runstate/views/model-view.js";

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

  it("answers a summarizing call with its summary and the turns it replaces, playing no turn", async () => {
    const provider = new ScriptProvider(script(`${SCRIPT}summary: The user wanted milk noted.\n`));
    const conversation = [
      ...afterTool("saved: milk"),
      { role: "assistant", content: [{ type: "text", text: "Noted." }] },
      { role: "user", content: [{ type: "text", text: "and?" }] },
    ] as Message[];
    const summary = await provider.complete(request(summarizingMessages(conversation)), signal);
    assert.deepEqual(
      [summary.message.content, summary.stop_reason],
      [[{ type: "text", text: "The user wanted milk noted. [script provider: 2 turns played]" }], "end_turn"],
    );
    const plain = await new ScriptProvider(script(SCRIPT)).complete(request(summarizingMessages(conversation)), signal);
    assert.match(
      (plain.message.content[0] as { text: string }).text,
      /^The conversation so far was played from a script\. \[script provider: 2 turns played\]$/,
    );
  });

  it("goes on after a compaction with the turn after those the summary replaced", async () => {
    const provider = new ScriptProvider(script("turns:\n  - text: one\n  - text: two\n  - text: three\n  - text: four\n"));
    const summary = "The conversation so far was played from a script. [script provider: 2 turns played]";
    const compacted: Message[] = [
      {
        role: "user",
        content: [
          { type: "text", text: summaryText(summary) },
          { type: "text", text: "next" },
        ],
      },
    ];
    assert.deepEqual((await provider.complete(request(compacted), signal)).message.content, [{ type: "text", text: "three" }]);
    const later = [
      ...compacted,
      { role: "assistant", content: [{ type: "text", text: "three" }] },
      { role: "user", content: [{ type: "text", text: "more" }] },
    ] as Message[];
    assert.deepEqual((await provider.complete(request(later), signal)).message.content, [{ type: "text", text: "four" }]);
    // A second compaction summarizes a conversation that opens with the first summary: its count goes on from it.
    const again = await provider.complete(request(summarizingMessages(later)), signal);
    assert.match((again.message.content[0] as { text: string }).text, /\[script provider: 3 turns played\]$/);
  });

  it("plays turns from repeat_from on again past the last turn, with ids that stay unique", async () => {
    const provider = new ScriptProvider({ turns: [{ text: "hello" }, { text: "a", tool_calls: [{ name: "note" }] }, { text: "b" }], repeat_from: 2 });
    const texts: string[] = [];
    const ids: string[] = [];
    let messages: Message[] = [prompt];
    for (let call = 0; call < 7; call++) {
      const turn = await provider.complete(request(messages), signal);
      for (const block of turn.message.content) {
        const known = block as { type: string; text?: string; id?: string };
        if (known.type === "text") texts.push(String(known.text));
        if (known.type === "tool_use") ids.push(String(known.id));
      }
      messages = [...messages, turn.message, { role: "user", content: [{ type: "text", text: "again" }] }];
    }
    assert.deepEqual(texts, ["hello", "a", "b", "a", "b", "a", "b"]);
    assert.deepEqual(ids, ["toolu_script_2_1", "toolu_script_4_1", "toolu_script_6_1"]);
    assert.throws(
      () => new ScriptProvider({ turns: [{ text: "x" }], repeat_from: 2 }),
      /script \(given in code\): repeat_from: names a turn past the last one/,
    );
  });
});
