// covers: src/agent/run-agent.ts, src/llm/anthropic-provider.ts, src/backends/memory/memory-store.ts
// covers: src/runstate/records/journal-codec.ts, src/runstate/records/record-v3.ts, src/runstate/records/records.ts
// covers: src/tools/tool.ts
// process: shared
// Writing record version 3, the Go implementation's current journal: what such a journal
// holds of each record, the lines as Go's encoding/json writes them, and sessions started
// in it (session.record_version: 3, or runAgent's recordVersion) that run, resume and stay
// version 3, against the strict fake Anthropic API.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it, type TestContext } from "node:test";
import { AnthropicProvider, defineTool, MemoryStore, runAgent, type JournalRecord } from "../src/index.js";
import { PROTOCOLS, type ToolResultRecord } from "../src/journal.js";
import { decodeRecordLine, encodeRecordIn, heldIn } from "../src/runstate/records/journal-codec.js";
import { fromV3Record, v3Problem } from "../src/runstate/records/record-v3.js";
import { assistantEntry, metaRecord } from "./helpers/record-builders.js";
import { latestBlocks, startFakeAnthropic, type AnthropicReply, type FakeServer, type SentMessage } from "./helpers/fake-anthropic-server.js";
import { commandsInProcess } from "./helpers/in-process-cli.js";

/** The file's first call spawned, the later ones in this process (test/helpers/in-process-cli.ts). */
const cli = commandsInProcess(["session", "run", "init", "memory"]);

const KEY = "sk-ant-test-v3";
const root = realpathSync(mkdtempSync(join(tmpdir(), "fisk-ai-record-v3-")));
after(() => rmSync(root, { recursive: true, force: true }));

const PNG = { type: "image" as const, source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } };

function toolResult(content: ToolResultRecord["tool_result"]["result"]["content"]): ToolResultRecord {
  return { seq: 3, protocol: PROTOCOLS.tool_result, tool_result: { tool_use_id: "toolu_1", result: { type: "tool_result", tool_use_id: "toolu_1", content } } };
}

const V3_KINDS = ["text", "thinking", "tool_use", "tool_result", "provider"];

/** Every line of a journal in version 3: each block one of its kinds, and each line what encodeRecordIn(3, ...) writes for it. */
function assertVersion3(lines: string[]): void {
  assert.equal((JSON.parse(lines[0] as string) as { meta: { version: number } }).meta.version, 3);
  for (const line of lines) {
    const record = JSON.parse(line) as {
      assistant?: { message: { content: object[] } };
      user?: { message: { content: object[] } };
      tool_result?: { result: object };
    };
    const blocks = [
      ...((record.assistant ?? record.user)?.message.content ?? []),
      ...(record.tool_result === undefined ? [] : [{ tool_result: record.tool_result.result }]),
    ];
    for (const block of blocks) assert.ok(Object.keys(block).length === 1 && V3_KINDS.includes(Object.keys(block)[0] as string), line);
    if (record.tool_result !== undefined) assert.equal(typeof (record.tool_result.result as { content: unknown }).content, "string", line);
    assert.equal(encodeRecordIn(3, decodeRecordLine(line)), `${line}\n`);
  }
}

describe("record version 3, written", () => {
  it("holds a tool result as text: blocks joined, an image replaced by a note saying it was not kept", () => {
    const held = heldIn(3, toolResult([{ type: "text", text: "two lines" }, PNG, { type: "text", text: "after" }]));
    assert.equal(held.tool_result.result.content, "two lines\n[image (image/png) not kept: a record version 3 journal holds tool results as text]\nafter");
    assert.equal(v3Problem(held, encodeRecordIn(3, held)), undefined);
    assert.match(
      v3Problem(toolResult([PNG]), encodeRecordIn(3, toolResult([PNG]))) ?? "",
      /^a record version 3 journal cannot hold this tool_result record as it is \(its tool results are text only/,
    );
    // Versions 1 and 2 hold it as it is.
    assert.deepEqual(heldIn(2, toolResult([PNG])), toolResult([PNG]));
  });

  it("holds what the neutral shape has no field for as the provider's block, and gives it back as it was", () => {
    const turn = {
      seq: 2,
      ...assistantEntry(0, "cited"),
    } as JournalRecord & { assistant: { message: { content: object[] } } };
    turn.assistant.message.content = [
      { type: "text", text: "cited", citations: [{ type: "char_location", cited_text: "x" }] },
      { type: "redacted_thinking", data: "opaque" },
      { type: "thinking", thinking: "hmm", signature: "sig\u2028<&>" },
      { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "q" } },
    ];
    const line = encodeRecordIn(3, turn);
    assert.match(line, /"content":\[\{"provider":\{"kind":"text","raw":\{"type":"text"/);
    assert.match(line, /\{"provider":\{"kind":"redacted_thinking"/);
    // The signature's UTF-8 bytes in base64, as Go writes a []byte.
    assert.ok(line.includes(`{"thinking":{"text":"hmm","signature":"${Buffer.from("sig\u2028<&>").toString("base64")}"}}`), line);
    assert.deepEqual(decodeRecordLine(line), JSON.parse(JSON.stringify(turn)));
  });

  it("reads a version 1 or 2 record as it is, without copying it", () => {
    for (const record of [{ seq: 2, ...assistantEntry(0, "x", ["toolu_1"]) }, toolResult("text"), metaRecord("same")]) {
      assert.equal(fromV3Record(record), record);
    }
  });

  it("escapes <, >, &, U+2028 and U+2029 inside strings as Go's encoding/json does, and nothing else", () => {
    const meta = metaRecord("esc", { version: 3, prompt: 'a<b>&c\u2028d\u2029e "q" \\ é' });
    const line = encodeRecordIn(3, meta);
    assert.match(line, /"prompt":"a\\u003cb\\u003e\\u0026c\\u2028d\\u2029e \\"q\\" \\\\ é"/);
    assert.equal((decodeRecordLine(line) as typeof meta).meta.prompt, meta.meta.prompt);
  });

  it("a library run in record version 3: the model is sent the tool result the journal holds", async (t: TestContext) => {
    const replies: AnthropicReply[] = [
      {
        content: [{ type: "tool_use", id: "toolu_01", name: "snap", input: { what: "the dashboard" } }],
        stop_reason: "tool_use",
        usage: { input_tokens: 20, output_tokens: 5 },
      },
      { content: [{ type: "text", text: "It looks fine." }], stop_reason: "end_turn", usage: { input_tokens: 30, output_tokens: 4 } },
    ];
    const server = await startFakeAnthropic((_request, index) => replies[index] ?? { status: 500, message: "not expected" }, { apiKey: KEY });
    t.after(() => server.close());
    const snap = defineTool({
      name: "snap",
      description: "Takes a screenshot",
      input: { type: "object", properties: { what: { type: "string" } }, required: ["what"] },
      run: () => ({ content: [{ type: "text", text: "here it is" }, PNG] }),
    });
    const store = new MemoryStore();
    const outcome = await runAgent({
      provider: new AnthropicProvider({ apiKey: KEY, baseURL: server.url }),
      model: "claude-sonnet-4-5",
      prompt: "how does it look?",
      tools: [snap],
      store,
      recordVersion: 3,
    });
    assert.equal(outcome.reason, "completed");
    const held = "here it is\n[image (image/png) not kept: a record version 3 journal holds tool results as text]";
    const sent = latestBlocks((server.requests[1]?.body as { messages: SentMessage[] }).messages).find((block) => block.type === "tool_result");
    assert.equal(sent?.content, held, "the model saw what a resume will see");
    const lines = Buffer.from(await store.readJournal(outcome.runId))
      .toString("utf8")
      .split("\n")
      .slice(0, -1);
    assertVersion3(lines);
    assert.equal((JSON.parse(lines[2] as string) as { tool_result: { result: { content: string } } }).tool_result.result.content, held);
    assert.ok(server.requests.every((request) => request.accepted));
  });

  it("a CLI session with session.record_version: 3 completes, is taken further by a follow-up without --force, and stays version 3", async (t: TestContext) => {
    const server: FakeServer = await startFakeAnthropic(
      (request) => {
        const blocks = latestBlocks((request.body as { messages: SentMessage[] }).messages);
        const result = blocks.find((block) => block.type === "tool_result");
        if (result !== undefined)
          return {
            content: [{ type: "text", text: `Noted <${JSON.stringify(result.content)}>` }],
            stop_reason: "end_turn",
            usage: { input_tokens: 12, output_tokens: 4 },
          };
        const text = blocks.map((block) => block.text ?? "").join(" ");
        return {
          content: [{ type: "tool_use", id: `toolu_${server.requests.length}`, name: "note", input: { text } }],
          stop_reason: "tool_use",
          usage: { input_tokens: 10, output_tokens: 5 },
        };
      },
      { apiKey: KEY },
    );
    t.after(() => server.close());
    const dir = join(root, "cli");
    mkdirSync(dir);
    writeFileSync(
      join(dir, "agent.yaml"),
      `provider: anthropic
model: claude-sonnet-4-5
system: You take notes & keep them.
tools:
  - name: note
    description: Write a note
    command: [sh, -c, 'echo "noted $1"', sh, "{text}"]
    input_schema: { type: object, properties: { text: { type: string } }, required: [text] }
session: { state_dir: ./state, record_version: 3 }
`,
    );
    const options = { cwd: dir, env: { PATH: process.env.PATH, HOME: dir, NO_COLOR: "1", ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url } };
    const first = await cli(["run", "--checkpoint", "--config", "agent.yaml", "remember <milk> & eggs"], options);
    assert.equal(first.code, 0, first.stderr);
    const ls = await cli(["session", "ls", "--json", "--config", "agent.yaml"], options);
    const [session] = JSON.parse(ls.stdout) as { id: string; status: string }[];
    assert.equal(session?.status, "completed");
    const runId = session?.id as string;
    const followUp = await cli(["run", "--config", "agent.yaml", "--resume", runId, "and bread"], options);
    assert.equal(followUp.code, 0, followUp.stderr);
    assert.equal(followUp.stdout, 'Noted <"noted and bread\\n">\n');
    const lines = readFileSync(join(dir, "state", `${runId}.json`), "utf8")
      .split("\n")
      .slice(0, -1);
    assertVersion3(lines);
    assert.deepEqual(
      lines.map((line) => (JSON.parse(line) as { protocol: string }).protocol.split(".").at(-1)),
      ["meta", "assistant", "tool_result", "assistant", "terminal", "user", "assistant", "tool_result", "assistant", "terminal"],
    );
    // Go's escaping, in the prompt and in the model's text.
    assert.match(lines[0] as string, /"prompt":"remember \\u003cmilk\\u003e \\u0026 eggs"/);
    assert.ok(server.requests.every((request) => request.accepted));
    const verified = await cli(["session", "verify", runId, "--config", "agent.yaml"], options);
    assert.equal(verified.stdout, `${runId}: ok, 10 records\n`);
    // A fork's new meta line is written in its version too.
    const forked = await cli(["session", "fork", runId, "--at", "5", "--name", "forked", "--config", "agent.yaml"], options);
    assert.equal(forked.code, 0, forked.stderr);
    const forkLines = readFileSync(join(dir, "state", "forked.json"), "utf8")
      .split("\n")
      .slice(0, -1);
    assertVersion3(forkLines);
    assert.deepEqual(forkLines.slice(1, -1), lines.slice(1, 5));
    assert.match(
      forkLines.at(-1) ?? "",
      /^\{"seq":6,"protocol":"io\.choria\.fisk-ai\.v1\.session\.origin","origin":\{"run_id":"[^"]+","through_seq":5,"kind":"fork"\}\}$/,
      "then the fork's origin",
    );
  });
});
