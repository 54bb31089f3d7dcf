// covers: src/agent/agent-spec.ts
// tier: quick
// process: shared
// One shape of an agent: agentSpec applies every default once, gives a spec back unchanged,
// and an agent.yaml's spec and a program's of the same values fingerprint the same.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { ConfigError } from "../src/agent/agent-errors.js";
import { fingerprintOf } from "../src/agent/agent-loop.js";
import { agentSpec } from "../src/agent/agent-spec.js";
import { AGENT_DEFAULTS } from "../src/agent/defaults.js";
import { loadAgentConfig } from "../src/config/agent-config.js";
import { agentSpecFromConfig } from "../src/config/run-options.js";
import { ScriptProvider } from "../src/llm/script-provider.js";
import { defineTool } from "../src/tools/tool.js";

const dir = mkdtempSync(join(tmpdir(), "fisk-agent-spec-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const script = join(dir, "s.script.yaml");
writeFileSync(script, "turns:\n  - text: done\n");

describe("agentSpec", () => {
  it("applies every default, and gives a spec back unchanged", () => {
    const spec = agentSpec({ provider: new ScriptProvider(script), model: "m" });
    assert.equal(spec.system, AGENT_DEFAULTS.system);
    assert.deepEqual(spec.tools, []);
    assert.equal(spec.parallelTools, false);
    assert.deepEqual(spec.budget, {
      maxTokens: AGENT_DEFAULTS.maxTokens,
      maxIterations: AGENT_DEFAULTS.maxIterations,
      maxOutputTokens: AGENT_DEFAULTS.maxOutputTokens,
    });
    assert.deepEqual(spec.retry, {
      attempts: AGENT_DEFAULTS.retryAttempts,
      baseDelayMs: AGENT_DEFAULTS.retryBaseDelayMs,
      timeoutMs: AGENT_DEFAULTS.callTimeoutMs,
    });
    assert.deepEqual(spec.thinking, { mode: "off" });
    assert.equal(spec.recordVersion, 2);
    // A model whose window is not known: compaction is off, and stays off when the spec is given again.
    assert.deepEqual(spec.compaction, { auto: false });
    assert.deepEqual(agentSpec(spec), spec);
    const known = agentSpec({ provider: spec.provider, model: "claude-sonnet-4-5" });
    assert.deepEqual(known.compaction, { auto: true, threshold: 0.8, window: 200_000, keepRecent: 4 });
    assert.deepEqual(agentSpec(known), known);
  });

  it("refuses two tools of one name as a ConfigError, as the run did", () => {
    const tool = defineTool({ name: "t", description: "d", input: { type: "object" }, run: () => "x" });
    assert.throws(
      () => agentSpec({ provider: new ScriptProvider(script), model: "m", tools: [tool, tool] }),
      (error: unknown) => error instanceof ConfigError && /^tools: /.test(error.message),
    );
  });

  it("an agent.yaml and a program with the same values make specs that fingerprint the same", async () => {
    const path = join(dir, "agent.yaml");
    writeFileSync(path, `provider: script\nscript: ${script}\nmodel: m\nsystem: be brief\nbudget: { max_iterations: 7 }\n`);
    const fromFile = await agentSpecFromConfig(loadAgentConfig(path), {}, path);
    const fromProgram = agentSpec({ provider: new ScriptProvider(script), model: "m", system: "be brief", budget: { maxIterations: 7 } });
    assert.deepEqual(fingerprintOf(fromFile, "fisk-ai"), fingerprintOf(fromProgram, "fisk-ai"));
    assert.equal(fromFile.budget.maxIterations, 7);
    // Unlike a program's, an agent.yaml's compaction is off unless the file turns it on.
    assert.deepEqual(fromFile.compaction, { auto: false });
  });
});
