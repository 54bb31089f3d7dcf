// covers: src/agent/fingerprint.ts
// tier: quick
// process: shared
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { canonicalJson, computeFingerprint, diffFingerprints, type FingerprintInput } from "../src/agent/fingerprint.js";

const base: FingerprintInput = {
  provider: "anthropic",
  model: "claude-sonnet-4-5",
  system: "You are careful.",
  tools: [
    { name: "b", description: "second", input_schema: { type: "object", properties: { x: { type: "string" } } } },
    { name: "a", description: "first", input_schema: { type: "object" } },
  ],
  thinking: { mode: "off" },
  maxTokens: 200_000,
  maxIterations: 50,
};

function changesFrom(change: Partial<FingerprintInput>) {
  return diffFingerprints(computeFingerprint(base), computeFingerprint({ ...base, ...change }));
}

describe("fingerprint", () => {
  it("stores hashes, never the system prompt or the tools", () => {
    const fingerprint = computeFingerprint(base);
    assert.match(fingerprint.system_hash, /^[0-9a-f]{64}$/);
    assert.match(fingerprint.tools_hash, /^[0-9a-f]{64}$/);
    assert.ok(!JSON.stringify(fingerprint).includes("careful"));
  });

  it("does not depend on the order of tools or of schema keys", () => {
    const reordered = [...base.tools].reverse().map((tool) => ({ input_schema: tool.input_schema, description: tool.description, name: tool.name }));
    assert.deepEqual(changesFrom({ tools: reordered }).changes, []);
    assert.equal(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] }), '{"a":[{"c":3,"d":2}],"b":1}');
  });

  it("names each change on a line of its own", () => {
    assert.deepEqual(changesFrom({ model: "claude-opus-4-1" }).changes, ["model: claude-sonnet-4-5 -> claude-opus-4-1"]);
    assert.deepEqual(changesFrom({ system: "You are fast." }).changes, ["system prompt: changed"]);
    assert.deepEqual(changesFrom({ tools: base.tools.slice(1) }).changes, ["tool set: changed"]);
    assert.deepEqual(changesFrom({ thinking: { mode: "enabled", budget_tokens: 4096 } }).changes, ["thinking: off -> enabled:4096"]);
    assert.deepEqual(changesFrom({ maxTokens: 10 }).changes, ["max_tokens: 200000 -> 10"]);
    assert.deepEqual(changesFrom({ maxIterations: 5, model: "m" }).changes, ["model: claude-sonnet-4-5 -> m", "max_iterations: 50 -> 5"]);
  });

  it("flags a provider change apart, and reads a missing provider as anthropic", () => {
    const diff = changesFrom({ provider: "openai" });
    assert.equal(diff.providerChanged, true);
    assert.deepEqual(diff.changes, ["provider: anthropic -> openai"]);
    const legacy = computeFingerprint(base);
    delete legacy.provider;
    assert.deepEqual(diffFingerprints(legacy, computeFingerprint(base)), { changes: [], providerChanged: false });
  });
});
