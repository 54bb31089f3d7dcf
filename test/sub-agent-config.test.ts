// covers: src/agent/agent-errors.ts, src/agent/agent-tool.ts, src/config/agent-config.ts, src/config/run-options.ts
// covers: src/runstate/records/records.ts, src/runstate/records/run-id.ts
// tier: quick
// process: shared
// The `agent:` tool entry of agent.yaml and agentTool's own refusals: each mistake is one
// line naming the field, and a call the child cannot take is an error result, never a run.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { ConfigError } from "../src/agent/agent-errors.js";
import { loadAgentConfig } from "../src/config/agent-config.js";
import { agentSpecFromConfig } from "../src/config/run-options.js";
import { agentTool, type ModelProvider } from "../src/index.js";
import { childRunId, isValidRunId, RUN_ID_MAX_LENGTH } from "../src/journal.js";

const scratch = mkdtempSync(join(tmpdir(), "fisk-ai-sub-agent-config-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(scratch, name);
  writeFileSync(path, text);
  return path;
}

const refuses = (path: string, pattern: RegExp) =>
  assert.rejects(
    async () => agentSpecFromConfig(loadAgentConfig(path), { ANTHROPIC_API_KEY: "k" }),
    (error: unknown) => error instanceof ConfigError && pattern.test(error.message) && !error.message.includes("\n"),
  );

describe("agent: tools in agent.yaml", () => {
  it("refuses a child agent.yaml that cannot be read, naming the field and the path", async () => {
    await refuses(
      file("missing.yaml", "tools:\n  - name: r\n    description: d\n    agent: ./nowhere.yaml\n"),
      /tools\[0\]\.agent: cannot read \.\/nowhere\.yaml .*no such file; give the path of the child agent's agent\.yaml/,
    );
  });

  it("refuses an entry with both command: and agent:, and one with neither", async () => {
    await refuses(
      file("both.yaml", "tools:\n  - name: r\n    description: d\n    command: [echo]\n    agent: ./x.yaml\n"),
      /tools\[0\]: give command: or agent:, not both/,
    );
    await refuses(
      file("neither.yaml", "tools:\n  - name: r\n    description: d\n"),
      /tools\[0\]: expected command: \(the program and its arguments\) or agent: /,
    );
  });

  it("refuses a child agent.yaml that does not check, naming its file", async () => {
    file("bad-child.yaml", "modle: x\n");
    await refuses(
      file("parent.yaml", "tools:\n  - name: r\n    description: d\n    agent: ./bad-child.yaml\n"),
      /bad-child\.yaml: unknown key "modle": did you mean "model"\?/,
    );
  });

  it("refuses a max_depth below 1", async () => {
    await refuses(file("depth.yaml", "max_depth: 0\n"), /max_depth: /);
  });

  it("offers the model a tool of prompt and title", async () => {
    file("child.yaml", "system: child\n");
    const options = await agentSpecFromConfig(loadAgentConfig(file("ok.yaml", "tools:\n  - name: r\n    description: d\n    agent: ./child.yaml\n")), {
      ANTHROPIC_API_KEY: "k",
    });
    const tool = options.tools?.find((candidate) => candidate.name === "r");
    assert.deepEqual((tool?.input_schema as { required?: string[] }).required, ["prompt"]);
    assert.deepEqual(Object.keys((tool?.input_schema as { properties: object }).properties), ["prompt", "title"]);
  });
});

describe("agentTool", () => {
  const never: ModelProvider = {
    name: "anthropic",
    complete: () => Promise.reject(new Error("no model call may be made")),
  };
  const tool = agentTool({ name: "researcher", description: "d", agent: { provider: never, model: "m" }, maxDepth: 2 });
  const context = (depth: number) => ({ signal: new AbortController().signal, run: { runId: "parent", toolUseId: "toolu_1", depth, deciders: {} } });

  it("answers input without a prompt with an error result", async () => {
    assert.deepEqual(await tool.run({ title: "x" }, context(0)), {
      content: "invalid input for researcher: prompt: Invalid input: expected string, received undefined",
      is_error: true,
    });
  });

  it("answers a call past maxDepth with an error result, making no model call", async () => {
    const output = await tool.run({ prompt: "go" }, context(2));
    assert.equal(output.is_error, true);
    assert.match(String(output.content), /^researcher was not run: its session would be 3 deep, past the limit of 2 \(max_depth\)/);
  });

  it("derives a child's id from its parent's and the call's: the same each time, valid even under the longest parent id", () => {
    assert.equal(childRunId("parent", "toolu_1"), childRunId("parent", "toolu_1"));
    assert.notEqual(childRunId("parent", "toolu_1"), childRunId("parent", "toolu_2"));
    const longest = "p".repeat(RUN_ID_MAX_LENGTH);
    for (const parent of ["a", longest, childRunId(longest, "x")]) assert.ok(isValidRunId(childRunId(parent, "toolu_\u00e9/../")), parent);
  });
});
