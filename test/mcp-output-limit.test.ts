// covers: src/tools/mcp/mcp-content.ts, src/tools/mcp/mcp-servers.ts
// An MCP tool's result is held to an output limit as a command tool's is: truncated with a
// marker saying how much was dropped, and journaled truncated (issue 54: 30 MB journaled whole).
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { toolOutputOf } from "../src/tools/mcp/mcp-content.js";
import { runCli } from "./helpers/cli-harness.js";

const SERVER = new URL("./helpers/mcp-test-server.js", import.meta.url).pathname;
const root = realpathSync(mkdtempSync(join(tmpdir(), "fisk-ai-mcp-output-limit-")));
after(() => rmSync(root, { recursive: true, force: true }));

describe("an MCP tool's output limit", () => {
  it("keeps the first bytes of the text and says how many more there were; an image past the limit is left out, said so", () => {
    assert.deepEqual(toolOutputOf({ content: [{ type: "text", text: "abcdefghij" }] }, 4), { content: "abcd\n[output truncated: 6 more bytes]" });
    assert.deepEqual(toolOutputOf({ content: [{ type: "text", text: "abcd" }] }, 4), { content: "abcd" });
    const image = { type: "image", data: "A".repeat(100), mimeType: "image/png" };
    assert.deepEqual(toolOutputOf({ content: [{ type: "text", text: "ab" }, image], isError: true }, 50), {
      content: [
        { type: "text", text: "ab" },
        { type: "text", text: "[output truncated: an image of 100 bytes left out, past the output limit]" },
      ],
      is_error: true,
    });
    assert.deepEqual(toolOutputOf({ content: [{ type: "text", text: "ab" }, image] }, 200), {
      content: [
        { type: "text", text: "ab" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: "A".repeat(100) } },
      ],
    });
  });

  it("through the CLI: a 3 MB answer of a stdio server is journaled truncated at the server's output_limit", async () => {
    const dir = mkdtempSync(join(root, "run-"));
    writeFileSync(
      join(dir, "agent.yaml"),
      [
        "provider: script",
        "script: ./s.yaml",
        "mcp_servers:",
        `  - { name: local, command: "${process.execPath}", args: ["${SERVER}"], output_limit: 1000 }`,
      ].join("\n"),
    );
    writeFileSync(join(dir, "s.yaml"), "turns:\n  - tool_calls: [{ name: local__big, input: { bytes: 3000000 } }]\n  - text: done\n");
    const env = { PATH: process.env.PATH, HOME: dir, XDG_STATE_HOME: join(dir, "state"), NO_COLOR: "1", BIG_TOOL: "1" };
    const result = await runCli(["run", "--config", "agent.yaml", "--checkpoint", "--name", "big", "go"], { cwd: dir, env });
    assert.equal(result.code, 0, result.stderr);
    const journal = readFileSync(join(dir, "state", "fisk-ai", "runs", "big.json"), "utf8");
    assert.ok(journal.length < 10_000, `the journal is ${journal.length} bytes`);
    assert.match(journal, new RegExp(`"content":"${"y".repeat(1000)}\\\\n\\[output truncated: 2999000 more bytes\\]"`));
  });

  it("through the CLI: the default limit holds a server's answer to 1 MiB", async () => {
    const dir = mkdtempSync(join(root, "default-"));
    writeFileSync(
      join(dir, "agent.yaml"),
      ["provider: script", "script: ./s.yaml", "mcp_servers:", `  - { name: local, command: "${process.execPath}", args: ["${SERVER}"] }`].join("\n"),
    );
    writeFileSync(join(dir, "s.yaml"), "turns:\n  - tool_calls: [{ name: local__big, input: { bytes: 3000000 } }]\n  - text: done\n");
    const env = { PATH: process.env.PATH, HOME: dir, XDG_STATE_HOME: join(dir, "state"), NO_COLOR: "1", BIG_TOOL: "1" };
    const result = await runCli(["run", "--config", "agent.yaml", "--checkpoint", "--name", "big", "go"], { cwd: dir, env });
    assert.equal(result.code, 0, result.stderr);
    const journal = readFileSync(join(dir, "state", "fisk-ai", "runs", "big.json"), "utf8");
    assert.ok(journal.length < 1024 * 1024 + 10_000, `the journal is ${journal.length} bytes`);
    assert.match(journal, /\[output truncated: 1951424 more bytes\]/);
  });
});
