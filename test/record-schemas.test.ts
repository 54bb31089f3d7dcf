// covers: src/runstate/records/journal-codec.ts, src/runstate/records/json-schemas.ts
// covers: src/runstate/records/record-format.ts, src/runstate/records/record-schemas.ts
// covers: src/runstate/records/record-types.ts, src/runstate/records/records.ts
// tier: quick
// process: shared
// The shipped JSON Schemas and the code's own validation must agree: every record of
// the corpus below gets the same verdict from a real JSON Schema validator (ajv, draft
// 2020-12) on schemas/*.json and from the code's reading of it as a journal line
// (parseRecordLine: version 3's blocks read into ours, then checkRecord).
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { describe, it } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { JournalRecord } from "../src/index.js";
import { checkRecord, PROTOCOLS } from "../src/journal.js";
import { parseRecordLine } from "../src/runstate/records/journal-codec.js";
import { recordJsonSchemas, serializeSchema } from "../src/runstate/records/json-schemas.js";
import {
  approvalRequestEntry,
  assistantEntry,
  compactionEntry,
  compactionUndoEntry,
  completedRun,
  decisionEntry,
  metaRecord,
  originEntry,
  resumedEntry,
  terminalEntry,
  titleEntry,
  toolResultEntry,
  userEntry,
} from "./helpers/record-builders.js";

const SCHEMA_DIR = new URL("../../schemas/", import.meta.url);

function shippedSchemas(): Record<string, unknown>[] {
  return (
    readdirSync(SCHEMA_DIR)
      // agent.yaml's schema beside them is test/agent-schema.test.ts's.
      .filter((name) => name.startsWith("session.") && name.endsWith(".json"))
      .map((name) => JSON.parse(readFileSync(new URL(name, SCHEMA_DIR), "utf8")) as Record<string, unknown>)
  );
}

/** One validator for "is a record of some kind": any of the shipped per-kind schemas. */
function jsonSchemaValidator(): (value: unknown) => boolean {
  // The date-time pattern in the schemas carries the check; the format is only a label.
  const ajv = new Ajv2020({ strict: true, allErrors: false, formats: { "date-time": true } });
  const ids: string[] = [];
  for (const schema of shippedSchemas()) {
    ajv.addSchema(schema);
    if (!String(schema.$id).endsWith("session.envelope.json")) ids.push(String(schema.$id));
  }
  const envelope = ajv.getSchema("https://choria.io/schemas/io.choria.fisk-ai.v1/session.envelope.json");
  const anyRecord = ajv.compile({ oneOf: ids.map((id) => ({ $ref: id })) });
  assert.ok(envelope);
  return (value) => envelope(value) && anyRecord(value);
}

function at(seq: number, entry: object): JournalRecord {
  return { seq, ...entry } as JournalRecord;
}

const good: [string, unknown][] = [
  ...completedRun("run-1").map((record): [string, unknown] => [`completed run, ${record.protocol}`, record]),
  ["meta of a chat run", metaRecord("Chat_9", { interactive: true, prompt: "" })],
  ["meta of a child session (version 5)", metaRecord("child-1", { version: 5, parent: { run_id: "run-1", call_id: "toolu_01", depth: 2 } })],
  ["meta with nanoseconds and an offset, as Go writes it", metaRecord("r", { created: "2026-01-02T15:04:05.123456789+01:00" })],
  [
    "meta of version 1 without provider",
    (() => {
      const m = metaRecord("r", { version: 1 });
      delete m.meta.fingerprint.provider;
      return m;
    })(),
  ],
  [
    "assistant with thinking and redacted thinking",
    at(2, {
      protocol: PROTOCOLS.assistant,
      assistant: {
        iteration: 0,
        message: {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "hmm", signature: "sig" },
            { type: "redacted_thinking", data: "xyz" },
            { type: "text", text: "hi", citations: null },
          ],
        },
        in_tokens: 1,
        out_tokens: 2,
      },
    }),
  ],
  [
    "assistant with a tool search turn and a block type the code does not model",
    at(2, {
      protocol: PROTOCOLS.assistant,
      assistant: {
        iteration: 0,
        stop_reason: "end_turn",
        in_tokens: 1,
        out_tokens: 2,
        message: {
          role: "assistant",
          content: [
            { type: "server_tool_use", id: "srvtoolu_1", name: "tool_search_tool_regex", input: { pattern: "file" } },
            {
              type: "tool_search_tool_result",
              tool_use_id: "srvtoolu_1",
              content: { type: "tool_search_tool_search_result", tool_references: [{ type: "tool_reference", tool_name: "read_file" }] },
            },
            { type: "container_upload", file_id: "f1" },
            { type: "text", text: "done" },
          ],
        },
      },
    }),
  ],
  [
    "user message with a block type the code does not model",
    at(7, {
      protocol: PROTOCOLS.user,
      user: { message: { role: "user", content: [{ type: "document", source: { type: "text", media_type: "text/plain", data: "x" } }] } },
    }),
  ],
  [
    "assistant without stop_reason and cache fields",
    at(
      2,
      (() => {
        const e = assistantEntry(0, "x");
        delete e.assistant.stop_reason;
        delete e.assistant.cache_read_tokens;
        return e;
      })(),
    ),
  ],
  [
    "tool result with block content and is_error",
    at(3, {
      protocol: PROTOCOLS.tool_result,
      tool_result: {
        tool_use_id: "t1",
        remote: true,
        result: { type: "tool_result", tool_use_id: "t1", is_error: true, content: [{ type: "text", text: "boom" }] },
      },
    }),
  ],
  ["user follow-up", at(7, userEntry("and then?"))],
  ["terminal with a message", at(9, terminalEntry("error", "model unreachable"))],
  ...(["suspended", "budget", "max_iterations", "awaiting_approval"] as const).map((reason): [string, unknown] => [
    `terminal ${reason}`,
    at(4, terminalEntry(reason)),
  ]),
  ["compaction", at(8, compactionEntry(1, 4))],
  [
    "compaction that only trims",
    at(
      8,
      compactionEntry(1, 0, { summary: "", in_tokens: 0, out_tokens: 0, trigger: "overflow", trimmed: [{ tool_use_id: "t1", kept_chars: 0, cut_chars: 9 }] }),
    ),
  ],
  ["compaction undo", at(9, compactionUndoEntry(8))],
  ["approval request", at(3, approvalRequestEntry("t1"))],
  ["approval decision with a reason", at(5, decisionEntry("t1", "deny", "not now"))],
  ["approval decision without text", at(5, decisionEntry("t1", "approve"))],
  ["title", at(5, titleEntry("Fix the flaky test in CI"))],
  ["title of the longest length", at(5, titleEntry("t".repeat(200)))],
  ["origin of a fork", at(6, originEntry("run-1", 5))],
  ["origin of an import", at(6, originEntry("run-1", 5, "import"))],
  ["resumed", at(6, resumedEntry())],
  [
    "assistant with its start and end times",
    at(2, {
      ...assistantEntry(0, "x"),
      assistant: { ...assistantEntry(0, "x").assistant, started_at: "2026-01-02T15:04:05.123Z", ended_at: "2026-01-02T15:04:06.5+01:00" },
    }),
  ],
  [
    "assistant naming the model that answered",
    at(2, { ...assistantEntry(0, "x"), assistant: { ...assistantEntry(0, "x").assistant, response_model: "claude-sonnet-4-5-20250929" } }),
  ],
  [
    "tool result with its start and end times",
    at(3, {
      protocol: PROTOCOLS.tool_result,
      tool_result: { ...toolResultEntry("t").tool_result, started_at: "2026-01-02T15:04:05Z", ended_at: "2026-01-02T15:04:05.9Z" },
    }),
  ],
];

const FIXTURES_V3 = new URL("../../test/fixtures/go/v3/", import.meta.url);
const v3Turn = (content: unknown[]) =>
  at(2, { protocol: PROTOCOLS.assistant, assistant: { iteration: 0, message: { role: "assistant", content }, in_tokens: 1, out_tokens: 2 } });
const v3User = (content: unknown[]) => at(7, { protocol: PROTOCOLS.user, user: { message: { role: "user", content } } });
const v3Result = (result: unknown) => at(3, { protocol: PROTOCOLS.tool_result, tool_result: { tool_use_id: "t1", result } });

/** Version 3, the Go implementation's neutral blocks: every line of its fixtures, and more. */
const goodV3: [string, unknown][] = [
  ...readdirSync(FIXTURES_V3).flatMap((scenario) =>
    readdirSync(new URL(`${scenario}/runs/`, FIXTURES_V3)).flatMap((file) => {
      const text = readFileSync(new URL(`${scenario}/runs/${file}`, FIXTURES_V3), "utf8");
      return text
        .slice(0, text.lastIndexOf("\n"))
        .split("\n")
        .map((line, index): [string, unknown] => [`v3 fixture ${scenario} line ${index + 1}`, JSON.parse(line)]);
    }),
  ),
  ["v3 thinking with neither text nor signature", v3Turn([{ thinking: {} }])],
  [
    "v3 text with citations, kept as the provider's block",
    v3Turn([{ provider: { kind: "text", raw: { type: "text", text: "x", citations: [{ type: "char_location" }] } } }]),
  ],
  [
    "v3 user text and an image kept as the provider's block",
    v3User([
      { text: { text: "look" } },
      { provider: { kind: "image", raw: { type: "image", source: { type: "base64", media_type: "image/png", data: "AA==" } } } },
    ]),
  ],
  ["v3 tool result that failed", v3Result({ tool_use_id: "t1", content: "boom", is_error: true })],
];

const badV3: [string, unknown][] = [
  ["v3 text that is not a string", v3Turn([{ text: { text: 5 } }])],
  ["v3 thinking signature that is not base64", v3Turn([{ thinking: { text: "t", signature: "not base64!" } }])],
  ["v3 tool_use with array input", v3Turn([{ tool_use: { id: "t", name: "n", input: [] } }])],
  ["v3 tool_use without id", v3Turn([{ tool_use: { name: "n", input: {} } }])],
  ["v3 block of two kinds", v3Turn([{ text: { text: "a" }, thinking: {} }])],
  ["v3 block of no kind", v3Turn([{}])],
  ["v3 provider block whose raw block has no type", v3Turn([{ provider: { kind: "x", raw: { data: 1 } } }])],
  ["v3 tool_result in an assistant turn", v3Turn([{ tool_result: { tool_use_id: "t", content: "x" } }])],
  ["v3 tool result of blocks, which version 3 holds as text", v3Result({ tool_use_id: "t1", content: [{ type: "text", text: "x" }] })],
  ["v3 tool result is_error not a boolean", v3Result({ tool_use_id: "t1", content: "x", is_error: "yes" })],
];

const withMeta = (change: (meta: Record<string, unknown>) => void): unknown => {
  const record = metaRecord("r") as unknown as { meta: Record<string, unknown> };
  change(record.meta);
  return record;
};

const bad: [string, unknown][] = [
  ["not an object", "hello"],
  ["meta with a parent link missing its depth", metaRecord("child-1", { version: 5, parent: { run_id: "run-1", call_id: "toolu_01" } as never })],
  ["meta with a parent link whose session id is not one", metaRecord("child-1", { version: 5, parent: { run_id: "a/b", call_id: "toolu_01", depth: 1 } })],
  ["null", null],
  ["an array", [metaRecord("r")]],
  ["no seq", { protocol: PROTOCOLS.terminal, terminal: { reason: "completed" } }],
  ["seq 0", at(0, terminalEntry("completed"))],
  ["fractional seq", at(1.5, terminalEntry("completed"))],
  ["seq as a string", { seq: "2", ...terminalEntry("completed") }],
  ["unknown protocol", { seq: 2, protocol: "io.choria.fisk-ai.v1.session.bogus", bogus: {} }],
  ["protocol outside the namespace", { seq: 2, protocol: "terminal", terminal: { reason: "completed" } }],
  ["payload missing", { seq: 2, protocol: PROTOCOLS.terminal }],
  ["payload under another kind's key", { seq: 2, protocol: PROTOCOLS.terminal, user: { message: { role: "user", content: [] } } }],
  ["two payload keys", { ...at(2, terminalEntry("completed")), user: userEntry("x").user }],
  ["an unknown envelope key", { ...at(2, terminalEntry("completed")), extra: 1 }],
  ["meta not at seq 1", { ...metaRecord("r"), seq: 2 }],
  ["meta without fingerprint", withMeta((meta) => delete meta.fingerprint)],
  ["meta without prompt", withMeta((meta) => delete meta.prompt)],
  ["meta version 0", withMeta((meta) => (meta.version = 0))],
  ["meta with a hostile run id", withMeta((meta) => (meta.run_id = "../x"))],
  ["meta created not RFC 3339", withMeta((meta) => (meta.created = "yesterday"))],
  ["meta created without offset", withMeta((meta) => (meta.created = "2026-12-02T10:00:00"))],
  ["meta with an unknown field", withMeta((meta) => (meta.api_key = "secret"))],
  ["fingerprint max_tokens negative", withMeta((meta) => ((meta.fingerprint as Record<string, unknown>).max_tokens = -1))],
  ["fingerprint with an unknown field", withMeta((meta) => ((meta.fingerprint as Record<string, unknown>).secret = "x"))],
  ["interactive not a boolean", withMeta((meta) => (meta.interactive = "yes"))],
  [
    "assistant with role user",
    at(2, { ...assistantEntry(0, "x"), assistant: { ...assistantEntry(0, "x").assistant, message: { role: "user", content: [] } } }),
  ],
  ["assistant with negative tokens", at(2, { ...assistantEntry(0, "x"), assistant: { ...assistantEntry(0, "x").assistant, in_tokens: -5 } })],
  [
    "assistant tool_use without id",
    at(2, {
      protocol: PROTOCOLS.assistant,
      assistant: { iteration: 0, in_tokens: 0, out_tokens: 0, message: { role: "assistant", content: [{ type: "tool_use", name: "n", input: {} }] } },
    }),
  ],
  [
    "assistant tool_use with array input",
    at(2, {
      protocol: PROTOCOLS.assistant,
      assistant: { iteration: 0, in_tokens: 0, out_tokens: 0, message: { role: "assistant", content: [{ type: "tool_use", id: "t", name: "n", input: [] }] } },
    }),
  ],
  [
    "assistant thinking without signature",
    at(2, {
      protocol: PROTOCOLS.assistant,
      assistant: { iteration: 0, in_tokens: 0, out_tokens: 0, message: { role: "assistant", content: [{ type: "thinking", thinking: "t" }] } },
    }),
  ],
  [
    "assistant with a tool_result block",
    at(2, {
      protocol: PROTOCOLS.assistant,
      assistant: {
        iteration: 0,
        in_tokens: 0,
        out_tokens: 0,
        message: { role: "assistant", content: [{ type: "tool_result", tool_use_id: "t", content: "x" }] },
      },
    }),
  ],
  [
    "assistant with a block whose type is not a string",
    at(2, { protocol: PROTOCOLS.assistant, assistant: { iteration: 0, in_tokens: 0, out_tokens: 0, message: { role: "assistant", content: [{ type: 7 }] } } }),
  ],
  [
    "assistant with a block that is not an object",
    at(2, { protocol: PROTOCOLS.assistant, assistant: { iteration: 0, in_tokens: 0, out_tokens: 0, message: { role: "assistant", content: ["text"] } } }),
  ],
  [
    "assistant server_tool_use without input",
    at(2, {
      protocol: PROTOCOLS.assistant,
      assistant: {
        iteration: 0,
        in_tokens: 0,
        out_tokens: 0,
        message: { role: "assistant", content: [{ type: "server_tool_use", id: "srvtoolu_1", name: "tool_search" }] },
      },
    }),
  ],
  [
    "assistant server tool result without tool_use_id",
    at(2, {
      protocol: PROTOCOLS.assistant,
      assistant: { iteration: 0, in_tokens: 0, out_tokens: 0, message: { role: "assistant", content: [{ type: "tool_search_tool_result", content: {} }] } },
    }),
  ],
  [
    "assistant text block without text",
    at(2, {
      protocol: PROTOCOLS.assistant,
      assistant: { iteration: 0, in_tokens: 0, out_tokens: 0, message: { role: "assistant", content: [{ type: "text" }] } },
    }),
  ],
  [
    "assistant without iteration",
    at(2, { protocol: PROTOCOLS.assistant, assistant: { in_tokens: 0, out_tokens: 0, message: { role: "assistant", content: [] } } }),
  ],
  ["tool result without tool_use_id", at(3, { protocol: PROTOCOLS.tool_result, tool_result: { result: toolResultEntry("t").tool_result.result } })],
  [
    "tool result whose block is not a tool_result",
    at(3, { protocol: PROTOCOLS.tool_result, tool_result: { tool_use_id: "t", result: { type: "text", text: "x" } } }),
  ],
  [
    "tool result content a number",
    at(3, { protocol: PROTOCOLS.tool_result, tool_result: { tool_use_id: "t", result: { type: "tool_result", tool_use_id: "t", content: 7 } } }),
  ],
  ["assistant with an empty response model", at(2, { ...assistantEntry(0, "x"), assistant: { ...assistantEntry(0, "x").assistant, response_model: "" } })],
  [
    "assistant with a start time that is not a time",
    at(2, { ...assistantEntry(0, "x"), assistant: { ...assistantEntry(0, "x").assistant, started_at: "yesterday" } }),
  ],
  [
    "tool result with an end time without an offset",
    at(3, { protocol: PROTOCOLS.tool_result, tool_result: { ...toolResultEntry("t").tool_result, ended_at: "2026-01-02T15:04:05" } }),
  ],
  ["tool result remote not a boolean", at(3, { protocol: PROTOCOLS.tool_result, tool_result: { ...toolResultEntry("t").tool_result, remote: 1 } })],
  ["user with role assistant", at(3, { protocol: PROTOCOLS.user, user: { message: { role: "assistant", content: [{ type: "text", text: "x" }] } } })],
  ["user text block without text", at(3, { protocol: PROTOCOLS.user, user: { message: { role: "user", content: [{ type: "text" }] } } })],
  ["terminal with an unknown reason", at(4, { protocol: PROTOCOLS.terminal, terminal: { reason: "crashed" } })],
  ["terminal message not a string", at(4, { protocol: PROTOCOLS.terminal, terminal: { reason: "error", message: 5 } })],
  ["compaction with an unknown trigger", at(8, compactionEntry(1, 4, { trigger: "later" as "auto" }))],
  ["compaction from seq 0", at(8, compactionEntry(0, 4))],
  ["compaction with an empty list of trims", at(8, compactionEntry(1, 4, { trimmed: [] }))],
  ["compaction trim that cuts nothing", at(8, compactionEntry(1, 4, { trimmed: [{ tool_use_id: "t", kept_chars: 3, cut_chars: 0 }] }))],
  [
    "compaction without its model",
    at(
      8,
      (() => {
        const e = compactionEntry(1, 4);
        delete (e.compaction as Partial<typeof e.compaction>).model;
        return e;
      })(),
    ),
  ],
  ["resumed without its time", at(6, { protocol: PROTOCOLS.resumed, resumed: {} })],
  ["compaction undo without the compaction's seq", at(9, { protocol: PROTOCOLS.compaction_undo, compaction_undo: {} })],
  [
    "approval request of an unknown kind",
    at(3, { ...approvalRequestEntry("t1"), approval_request: { ...approvalRequestEntry("t1").approval_request, kind: "vote" } }),
  ],
  [
    "approval request with input that is not an object",
    at(3, { ...approvalRequestEntry("t1"), approval_request: { ...approvalRequestEntry("t1").approval_request, input: "rm -rf /" } }),
  ],
  [
    "approval decision of an unknown verdict",
    at(5, { ...decisionEntry("t1", "approve"), approval_decision: { ...decisionEntry("t1", "approve").approval_decision, decision: "maybe" } }),
  ],
  ["title empty", at(5, titleEntry(""))],
  ["title longer than 200 characters", at(5, titleEntry("t".repeat(201)))],
  ["title of two lines", at(5, titleEntry("one\ntwo"))],
  ["title under another key", at(5, { protocol: PROTOCOLS.title, title: { text: "x" } })],
  ["origin with a hostile run id", at(6, originEntry("../x", 5))],
  ["origin through seq 0", at(6, originEntry("run-1", 0))],
  ["origin of an unknown kind", at(6, originEntry("run-1", 5, "copy" as "fork"))],
  [
    "approval decision without who decided",
    at(5, { ...decisionEntry("t1", "approve"), approval_decision: { ...decisionEntry("t1", "approve").approval_decision, decided_by: "" } }),
  ],
];

describe("record schemas", () => {
  it("ships schemas/ exactly as the code generates them (npm run schemas)", () => {
    for (const { fileName, schema } of recordJsonSchemas()) {
      assert.equal(readFileSync(new URL(fileName, SCHEMA_DIR), "utf8"), serializeSchema(schema), `${fileName} is stale`);
    }
    assert.equal(shippedSchemas().length, recordJsonSchemas().length, "schemas/ holds a file the code does not generate");
    for (const schema of shippedSchemas()) assert.equal(schema.$schema, "https://json-schema.org/draft/2020-12/schema");
  });

  it("agree with the code on every good record of the corpus", () => {
    const validate = jsonSchemaValidator();
    assert.equal(goodV3.length, 47);
    for (const [name, record] of [...good, ...goodV3]) {
      assert.equal(validate(record), true, `JSON Schema refuses good record: ${name}`);
      const parsed = parseRecordLine(JSON.stringify(record));
      assert.equal(parsed.ok, true, `the code refuses good record: ${name}: ${parsed.ok ? "" : parsed.problem}`);
    }
  });

  it("agree with the code on every bad record of the corpus", () => {
    const validate = jsonSchemaValidator();
    for (const [name, record] of [...bad, ...badV3]) {
      assert.equal(validate(record), false, `JSON Schema accepts bad record: ${name}`);
      assert.equal(parseRecordLine(JSON.stringify(record) ?? "").ok, false, `the code accepts bad record: ${name}`);
    }
  });

  it("leave version 3's shape to the line reader: checkRecord takes only the blocks the code works with", () => {
    for (const [name, record] of goodV3.filter(([, record]) => JSON.stringify(record).includes('"role"'))) {
      assert.equal(checkRecord(record).ok, false, `checkRecord takes an untranslated version 3 record: ${name}`);
    }
  });

  it("name the offending field in checkRecord's problem", () => {
    const result = checkRecord(at(4, { protocol: PROTOCOLS.terminal, terminal: { reason: "crashed" } }));
    assert.equal(result.ok, false);
    assert.match(result.ok ? "" : result.problem, /^terminal\.reason: /);
  });
});
