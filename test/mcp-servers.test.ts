// covers: src/tools/mcp/mcp-servers.ts, src/tools/tool-set.ts
// process: shared
// MCP servers through the SDK's client, against real servers: the test's own (stdio and
// streamable HTTP on loopback) and the published filesystem server over a temp dir.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { connectMcpServers, McpServerError, type McpServerDefinition } from "../src/tools/mcp/mcp-servers.js";
import { ToolSet, denyWithoutTerminal } from "../src/tools/tool-set.js";
import { startHttpMcpServer } from "./helpers/mcp-test-server.js";
import { isRunning } from "./helpers/processes.js";
import { eventually } from "./helpers/eventually.js";

const SERVER = new URL("./helpers/mcp-test-server.js", import.meta.url).pathname;
const FILESYSTEM_SERVER = new URL("../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "fisk-ai-mcp-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function stdio(name: string, env: Record<string, string> = {}, overrides: Partial<McpServerDefinition> = {}): McpServerDefinition {
  return {
    name,
    transport: { kind: "stdio", command: process.execPath, args: [SERVER], env: { PATH: process.env.PATH ?? "", ...env } },
    confirm: false,
    onCrash: "rerun",
    timeoutMs: 10_000,
    ...overrides,
  };
}

const signal = new AbortController().signal;
const use = (name: string, input: Record<string, unknown> = {}) => ({ type: "tool_use" as const, id: `toolu_${name}`, name, input });

describe("MCP servers", () => {
  it("offers a stdio server's tools as <server>__<tool>, with its confirm list and crash policies", async () => {
    const servers = await connectMcpServers([stdio("test", {}, { confirm: ["fail"], onCrash: { count: "never" } })]);
    try {
      const byName = new Map(servers.tools.map((tool) => [tool.name, tool]));
      assert.deepEqual([...byName.keys()].sort(), ["test__ask", "test__count", "test__echo", "test__environment", "test__fail", "test__picture", "test__slow"]);
      assert.deepEqual(byName.get("test__echo")?.input_schema.required, ["text"]);
      assert.equal(byName.get("test__fail")?.confirm, true);
      assert.equal(byName.get("test__echo")?.confirm, false);
      assert.equal(byName.get("test__count")?.onCrash, "never");
      assert.equal(byName.get("test__echo")?.onCrash, "rerun");
      assert.ok(servers.tools.every((tool) => tool.mcpServer === "test"));

      const tools = new ToolSet(servers.tools);
      assert.deepEqual(await tools.run(use("test__echo", { text: "hi" }), { signal }, denyWithoutTerminal), {
        result: { type: "tool_result", tool_use_id: "toolu_test__echo", content: "echo: hi" },
        remote: true,
      });
      // Refused by its confirm before reaching the server: not a remote call.
      const denied = await tools.run(use("test__fail"), { signal }, denyWithoutTerminal);
      assert.equal(denied.remote, false);
      assert.equal(denied.result.is_error, true);
      const failed = await tools.run(use("test__fail"), { signal }, async () => true);
      assert.deepEqual(failed.result, { type: "tool_result", tool_use_id: "toolu_test__fail", content: "it failed", is_error: true });
    } finally {
      await servers.close();
    }
  });

  it("keeps text and images from a tool result and says in text what it left out", async () => {
    const servers = await connectMcpServers([stdio("test")]);
    try {
      const { result } = await new ToolSet(servers.tools).run(use("test__picture"), { signal }, denyWithoutTerminal);
      assert.deepEqual(result.content, [
        { type: "text", text: "here it is" },
        {
          type: "image",
          source: {
            type: "base64",
            media_type: "image/png",
            data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=",
          },
        },
        { type: "text", text: "[left out: audio audio/wav; a tool result holds only text and images]" },
        { type: "text", text: "[left out: a link to the resource file:///tmp/picture.png, not fetched; a tool result holds only text and images]" },
      ]);
    } finally {
      await servers.close();
    }
  });

  it("makes a call that outlasts the tool timeout an is_error result", async () => {
    const servers = await connectMcpServers([stdio("test", {}, { timeoutMs: 300 })]);
    try {
      const { result } = await new ToolSet(servers.tools).run(use("test__slow"), { signal }, denyWithoutTerminal);
      assert.equal(result.is_error, true);
      assert.match(String(result.content), /^test__slow failed: .*timed out/i);
    } finally {
      await servers.close();
    }
  });

  it("calls a streamable HTTP server on loopback, sending its headers", async () => {
    const http = await startHttpMcpServer();
    const servers = await connectMcpServers([
      {
        name: "web",
        transport: { kind: "http", url: http.url, headers: { Authorization: "Bearer t0ken" } },
        confirm: false,
        onCrash: "rerun",
        timeoutMs: 10_000,
      },
    ]);
    try {
      const { result, remote } = await new ToolSet(servers.tools).run(use("web__echo", { text: "over http" }), { signal }, denyWithoutTerminal);
      assert.deepEqual([result.content, remote], ["echo: over http", true]);
      assert.ok(http.authorizations.length > 0 && http.authorizations.every((value) => value === "Bearer t0ken"));
    } finally {
      await servers.close();
      await http.close();
    }
  });

  it("names a server that fails to start and its stderr's last line, and stops the servers that did start", async () => {
    const pidFile = join(dir, "good.pid");
    const failure = await connectMcpServers([stdio("good", { PID_FILE: pidFile }), stdio("broken", { FAIL_START: "1" })]).then(
      () => assert.fail("a failed server must fail the start"),
      (error: unknown) => error,
    );
    assert.ok(failure instanceof McpServerError);
    assert.match(failure.message, /^MCP server broken \('.*node'\) did not start or list its tools: .*; its stderr said: fatal: cannot open the database$/);
    assert.doesNotMatch(failure.message, /\n/);
    const pid = Number(readFileSync(pidFile, "utf8"));
    await eventually(() => !isRunning(pid), "the server that started to be stopped");
  });

  it("names a server whose command does not exist, and an HTTP server nobody answers", async () => {
    await assert.rejects(
      connectMcpServers([{ ...stdio("ghost"), transport: { kind: "stdio", command: "no-such-mcp-server-fisk", args: [], env: {} } }]),
      /^McpServerError: MCP server ghost \('no-such-mcp-server-fisk'\) did not start or list its tools: spawn no-such-mcp-server-fisk ENOENT$/,
    );
    const http = await startHttpMcpServer();
    await http.close();
    await assert.rejects(
      connectMcpServers([{ name: "gone", transport: { kind: "http", url: http.url, headers: {} }, confirm: false, onCrash: "rerun", timeoutMs: 5000 }]),
      (error: unknown) => error instanceof McpServerError && error.message.startsWith(`MCP server gone (${http.url}) did not start or list its tools: `),
    );
  });

  it("refuses a confirm list or on_crash map that names a tool the server does not offer", async () => {
    await assert.rejects(
      connectMcpServers([stdio("test", {}, { onCrash: { deploy: "never" } })]),
      /MCP server test .*: its on_crash names the tool deploy, which it does not offer \(it offers: echo, count, picture, fail, environment, slow, ask\)$/,
    );
  });

  it("stops a stdio server on close", async () => {
    const pidFile = join(dir, "closed.pid");
    const servers = await connectMcpServers([stdio("test", { PID_FILE: pidFile })]);
    const pid = Number(readFileSync(pidFile, "utf8"));
    assert.ok(isRunning(pid));
    await servers.close();
    await servers.close();
    await eventually(() => !isRunning(pid), "the server to exit");
  });

  it("runs the published filesystem server over a temp dir", async () => {
    const root = mkdtempSync(join(dir, "fs-"));
    writeFileSync(join(root, "hello.txt"), "hello from disk\n");
    const servers = await connectMcpServers([
      {
        name: "fs",
        transport: { kind: "stdio", command: process.execPath, args: [FILESYSTEM_SERVER, root], env: { PATH: process.env.PATH ?? "" } },
        confirm: ["write_file"],
        onCrash: "rerun",
        timeoutMs: 10_000,
      },
    ]);
    try {
      const names = servers.tools.map((tool) => tool.name);
      assert.ok(names.includes("fs__read_text_file") && names.includes("fs__write_file"), names.join(", "));
      const tools = new ToolSet(servers.tools);
      const read = await tools.run(use("fs__read_text_file", { path: join(root, "hello.txt") }), { signal }, denyWithoutTerminal);
      assert.deepEqual([read.result.content, read.result.is_error], ["hello from disk\n", undefined]);
      const outside = await tools.run(use("fs__read_text_file", { path: "/etc/hostname" }), { signal }, denyWithoutTerminal);
      assert.equal(outside.result.is_error, true);
    } finally {
      await servers.close();
    }
  });
});
