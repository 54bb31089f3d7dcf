// covers: src/agent/agent-errors.ts, src/config/agent-config.ts
// tier: quick
// process: shared
// agent.yaml's compaction block: known windows, `window` required for other models, auto: false
// kept off, and one line naming the field for a wrong value.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { loadAgentConfig } from "../src/config/agent-config.js";
import { ConfigError } from "../src/index.js";

const dir = mkdtempSync(join(tmpdir(), "fisk-ai-compaction-config-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

function load(yaml: string) {
  const path = join(dir, `agent-${++files}.yaml`);
  writeFileSync(path, yaml);
  return { path, config: () => loadAgentConfig(path) };
}

describe("agent.yaml: compaction", () => {
  it("is on with the window of a model the README names, and the defaults", () => {
    assert.deepEqual(load("model: claude-sonnet-4-5\n").config().compaction, { auto: true, threshold: 0.8, window: 200_000, keepRecent: 4 });
    assert.deepEqual(load("provider: openai\nmodel: gpt-4.1\n").config().compaction?.window, 1_047_576);
  });

  it("is off, by hand only, for another model without a compaction block, or with auto: false and no window", () => {
    assert.equal(load("model: my-model\n").config().compaction, undefined);
    assert.equal(load("model: my-model\ncompaction: { auto: false }\n").config().compaction, undefined);
  });

  it("takes every field, and auto: false stays off", () => {
    assert.deepEqual(load("model: my-model\ncompaction: { auto: false, threshold: 0.5, window: 32000, keep_recent: 6 }\n").config().compaction, {
      auto: false,
      threshold: 0.5,
      window: 32_000,
      keepRecent: 6,
    });
  });

  it("needs window for a model whose window is not known, and refuses wrong values with the field named", () => {
    for (const [yaml, message] of [
      [
        "model: my-model\ncompaction: { keep_recent: 2 }\n",
        /compaction\.window: the context window of model my-model is not known to fisk-ai: give it in tokens \(window: 128000\), or turn compaction off \(auto: false\)$/,
      ],
      ["compaction: { threshold: 1.5 }\n", /compaction\.threshold: expected a share of the window above 0 and at most 1, such as 0\.8$/],
      ["compaction: { keep_recent: 0 }\n", /compaction\.keep_recent: expected a whole number of messages, at least 1$/],
      ["compaction: { window: -5 }\n", /compaction\.window: expected the model's context window in tokens$/],
      ["compaction: { windw: 5 }\n", /compaction: unknown key "windw": did you mean "window"\?$/],
    ] as const) {
      const { path, config } = load(yaml);
      assert.throws(config, (error: unknown) => error instanceof ConfigError && error.message.startsWith(path) && message.test(error.message), yaml);
    }
  });
});
