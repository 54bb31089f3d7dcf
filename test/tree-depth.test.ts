// covers: src/agent/agent-tool.ts
// `max_depth` in the file a run starts from bounds the whole tree: a child agent.yaml that
// raises it and calls itself (issue 54: 40 deep under a top file's max_depth 1) goes no deeper.
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { runCli } from "./helpers/cli-harness.js";

const root = realpathSync(mkdtempSync(join(tmpdir(), "fisk-ai-tree-depth-")));
after(() => rmSync(root, { recursive: true, force: true }));

const CALLS_ITSELF = "turns:\n  - tool_calls: [{ name: helper, input: { prompt: go deeper } }]\n  - text: done\n";

function agent(depth: number): string {
  return ["provider: script", "script: ./s.yaml", `max_depth: ${depth}`, "tools:", "  - { name: helper, description: Helps, agent: ./child.yaml }"].join("\n");
}

describe("max_depth over a tree of agent files", () => {
  for (const [top, child] of [
    [1, 40],
    [2, 1],
  ] as const) {
    it(`a top file's max_depth ${top} under a child file's ${child}: the tree is ${Math.min(top, child)} deep`, async () => {
      const dir = mkdtempSync(join(root, "tree-"));
      writeFileSync(join(dir, "agent.yaml"), agent(top));
      writeFileSync(join(dir, "child.yaml"), agent(child));
      writeFileSync(join(dir, "s.yaml"), CALLS_ITSELF);
      const env = { PATH: process.env.PATH, HOME: dir, XDG_STATE_HOME: join(dir, "state"), NO_COLOR: "1" };
      const result = await runCli(["run", "--config", "agent.yaml", "--checkpoint", "--name", "top", "go"], { cwd: dir, env });
      assert.equal(result.code, 0, result.stderr);
      assert.equal(readdirSync(join(dir, "state", "fisk-ai", "runs")).filter((name) => name.endsWith(".json")).length, 1 + Math.min(top, child));
    });
  }
});
