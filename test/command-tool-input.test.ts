// covers: src/tools/command-tool.ts, src/tools/tool-input.ts, src/config/run-options.ts
// covers: src/tools/input-validator.ts
// A command tool's input is checked against its input_schema before anything runs, and a
// value that would become an option (it starts with `-`) is refused unless the tool allows
// it for that field or puts it after `--`. The attack of issue 54 through the built CLI: an
// enum value outside the enum, `-o FILE`, made `sort` overwrite a file.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import type { CommandToolDefinition } from "../src/tools/command-tool.js";
import { testCommandTool } from "./helpers/command-tools.js";
import { runCli } from "./helpers/cli-harness.js";

const root = realpathSync(mkdtempSync(join(tmpdir(), "fisk-ai-command-input-")));
after(() => rmSync(root, { recursive: true, force: true }));

const context = { signal: new AbortController().signal };

function tool(command: string[], input_schema: Record<string, unknown>, overrides: Partial<CommandToolDefinition> = {}) {
  return testCommandTool(command, { input_schema, ...overrides });
}

const ORDER = { type: "object", properties: { order: { type: "string", enum: ["-r", "-n"] } }, required: ["order"] };

describe("a command tool's input", () => {
  it("is refused, naming the field, when it breaks the schema's enum, type, pattern or required, and nothing runs", async () => {
    const marker = join(root, "ran");
    const schema = {
      type: "object",
      properties: {
        order: { type: "string", enum: ["asc", "desc"] },
        count: { type: "integer" },
        name: { type: "string", pattern: "^[a-z]+$" },
      },
      required: ["order"],
    };
    const touch = tool(["sh", "-c", `touch ${marker}; echo {order} {count} {name}`], schema);
    assert.deepEqual(await touch.run({ order: "sideways" }, context), {
      content: 'invalid input for t: order must be one of "asc", "desc"',
      is_error: true,
    });
    assert.deepEqual(await touch.run({ order: "asc", count: "3" }, context), { content: "invalid input for t: count must be integer", is_error: true });
    assert.deepEqual(await touch.run({ order: "asc", name: "A1" }, context), {
      content: 'invalid input for t: name must match pattern "^[a-z]+$"',
      is_error: true,
    });
    assert.deepEqual(await touch.run({}, context), { content: "invalid input for t: order is required", is_error: true });
    assert.equal(readdirSync(root).includes("ran"), false, "the command never ran");
    assert.deepEqual(await tool(["echo", "{order}"], schema).run({ order: "asc" }, context), { content: "asc\n" });
  });

  it("refuses a value that would start an argument with '-', unless the tool allows it for that field or it comes after --", async () => {
    const schema = { type: "object", properties: { pattern: { type: "string" }, delta: { type: "integer" } } };
    assert.deepEqual(await tool(["echo", "{pattern}"], schema).run({ pattern: "-e" }, context), {
      content:
        "invalid input for t: pattern starts with '-', which would make it an option of echo; its tool takes such a value only after '--' or with allow_leading_dash",
      is_error: true,
    });
    assert.equal((await tool(["echo", "{delta}"], schema).run({ delta: -3 }, context)).is_error, true, "a negative number too");
    assert.deepEqual(await tool(["echo", "{delta}"], schema, { allowLeadingDash: ["delta"] }).run({ delta: -3 }, context), { content: "-3\n" });
    assert.deepEqual(await tool(["basename", "--", "{pattern}"], schema).run({ pattern: "-e" }, context), { content: "-e\n" });
    assert.deepEqual(await tool(["echo", "x={pattern}"], schema).run({ pattern: "-e" }, context), { content: "x=-e\n" }, "inside an argument it is no option");
  });

  it("through the CLI: an input_schema that is not a JSON Schema stops the start, naming the file, the tool and why; no model is called", async () => {
    const dir = mkdtempSync(join(root, "bad-schema-"));
    const env = { PATH: process.env.PATH, HOME: dir, XDG_STATE_HOME: join(dir, "state"), NO_COLOR: "1" };
    // A script that would call the tool: before, the start went on and each call was an is_error result.
    writeFileSync(join(dir, "s.yaml"), "turns:\n  - tool_calls: [{ name: ok, input: {} }, { name: typo, input: { a: x } }]\n  - text: done\n");
    const tools = [
      "  - name: ok",
      "    description: d",
      "    command: [echo, ran]",
      "  - name: typo",
      "    description: d",
      "    command: [echo, '{a}']",
      "    input_schema: { type: object, properties: { a: { type: text } } }",
    ];
    writeFileSync(join(dir, "agent.yaml"), ["provider: script", "script: ./s.yaml", "tools:", ...tools].join("\n"));
    const result = await runCli(["run", "--config", "agent.yaml", "--checkpoint", "--name", "never", "go"], { cwd: dir, env });
    assert.equal(result.code, 2, result.stderr);
    assert.match(
      result.stderr,
      /^fisk-ai: \/\S+\/agent\.yaml: tools\[1\]\.input_schema \(tool typo\): schema is invalid: data\/properties\/a\/type must be [^\n]*\n$/,
    );
    assert.equal(existsSync(join(dir, "state", "fisk-ai", "runs", "never.json")), false, "no session journaled");
  });

  it("through the CLI: an enum value outside the enum is not an option to sort, and the file it named is untouched", async () => {
    const dir = mkdtempSync(join(root, "sort-"));
    writeFileSync(join(dir, "words.txt"), "b\na\n");
    writeFileSync(join(dir, "victim.txt"), "precious\n");
    writeFileSync(
      join(dir, "agent.yaml"),
      [
        "provider: script",
        "script: ./s.yaml",
        "tools:",
        "  - name: sort_words",
        "    description: Sort the words",
        "    command: [sort, '{order}', words.txt]",
        `    input_schema: ${JSON.stringify(ORDER)}`,
      ].join("\n"),
    );
    writeFileSync(join(dir, "s.yaml"), "turns:\n  - tool_calls: [{ name: sort_words, input: { order: -ovictim.txt } }]\n  - text: done\n");
    const env = { PATH: process.env.PATH, HOME: dir, XDG_STATE_HOME: join(dir, "state"), NO_COLOR: "1" };
    const result = await runCli(["run", "--config", "agent.yaml", "--checkpoint", "--name", "sorted", "go"], { cwd: dir, env });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(readFileSync(join(dir, "victim.txt"), "utf8"), "precious\n");
    const journal = readFileSync(join(dir, "state", "fisk-ai", "runs", "sorted.json"), "utf8");
    assert.match(journal, /"content":"invalid input for sort_words: order must be one of \\"-r\\", \\"-n\\"","is_error":true/);
  });

  it("through the CLI: an allow_leading_dash naming no field of the command is a config error naming the tool", async () => {
    const dir = mkdtempSync(join(root, "bad-allow-"));
    const env = { PATH: process.env.PATH, HOME: dir, XDG_STATE_HOME: join(dir, "state"), NO_COLOR: "1" };
    writeFileSync(join(dir, "s.yaml"), "turns:\n  - text: done\n");
    const head = ["provider: script", "script: ./s.yaml", "tools:", "  - name: t", "    description: d", "    command: [echo, '{a}']"];
    writeFileSync(join(dir, "agent.yaml"), [...head, "    allow_leading_dash: [b]"].join("\n"));
    const unknown = await runCli(["run", "--config", "agent.yaml", "go"], { cwd: dir, env });
    assert.equal(unknown.code, 2, unknown.stderr);
    assert.match(unknown.stderr, /^fisk-ai: agent\.yaml: tools\[0\]\.allow_leading_dash: b is no field of its command\n$/);
  });
});
