// covers: src/agent/agent-errors.ts, src/config/agent-config.ts
// tier: quick
// process: shared
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { ConfigError } from "../src/agent/agent-errors.js";
import { BackendError } from "../src/backends/backend-errors.js";
import { loadAgentConfig } from "../src/config/agent-config.js";
import type { FileStoreConfig } from "../src/backends/store-config.js";

const scratch = mkdtempSync(join(tmpdir(), "fisk-ai-config-"));
after(() => rmSync(scratch, { recursive: true, force: true }));
let files = 0;
function configFile(text: string): string {
  const path = join(scratch, `agent-${++files}.yaml`);
  writeFileSync(path, text);
  return path;
}

function assertConfigError(text: string, message: RegExp): void {
  const path = configFile(text);
  assert.throws(
    () => loadAgentConfig(path),
    (error: unknown) => error instanceof ConfigError && message.test(error.message) && !error.message.includes("\n"),
  );
}

describe("agent.yaml", () => {
  it("reads every key of the documented example", () => {
    const path = configFile(`
provider: openai
model: llama3
base_url: http://127.0.0.1:11434/v1
system: You are terse.
tools:
  - name: note
    description: Append a line to the notes file
    command: [sh, -c, 'echo "$1" >> notes.txt', sh, '{text}']
    input_schema: { type: object, properties: { text: { type: string } }, required: [text] }
    timeout: 30s
    confirm: true
    on_crash: never
parallel_tools: true
ask_user: true
approval_timeout: 24h
budget: { max_tokens: 1000, max_iterations: 7, call_timeout: 2m }
thinking: { mode: enabled, budget_tokens: 2048 }
session: { backend: file, state_dir: ./runs }
`);
    const config = loadAgentConfig(path);
    assert.equal(config.provider, "openai");
    assert.equal(config.baseUrl, "http://127.0.0.1:11434/v1");
    assert.equal(config.tools[0]?.timeout, 30_000);
    assert.equal(config.tools[0]?.confirm, true);
    assert.equal(config.tools[0]?.on_crash, "never");
    assert.deepEqual([config.maxTokens, config.maxIterations, config.callTimeoutMs], [1000, 7, 120_000]);
    assert.deepEqual(config.thinking, { mode: "enabled", budget_tokens: 2048 });
    assert.equal(config.parallelTools, true);
    assert.deepEqual([config.askUser, config.approvalTimeoutMs], [true, 86_400_000]);
    assert.equal((config.store as FileStoreConfig).dir, join(scratch, "runs"), "relative to the config file");
  });

  it("has the documented defaults", () => {
    const config = loadAgentConfig(undefined);
    assert.deepEqual(
      [config.provider, config.maxTokens, config.maxIterations, config.callTimeoutMs, config.thinking.mode, config.parallelTools],
      ["anthropic", 200_000, 50, 120_000, "off", false],
    );
    assert.deepEqual([config.askUser, config.approvalTimeoutMs], [false, undefined], "no ask_user, and parked calls wait as long as it takes");
    const tool = loadAgentConfig(configFile("tools: [{ name: a, description: d, command: [x] }]\n")).tools[0];
    assert.deepEqual([tool?.confirm, tool?.on_crash], [false, "rerun"]);
  });

  it("lets flags override the file, the store included", () => {
    const config = loadAgentConfig(configFile("provider: anthropic\nmodel: a\nsession: { state_dir: ./runs }\n"), {
      model: "b",
      provider: "openai",
      store: { backend: "file", dir: "/elsewhere" },
    });
    assert.deepEqual([config.model, config.provider, (config.store as FileStoreConfig).dir], ["b", "openai", "/elsewhere"]);
  });

  it("expands ~ in state_dir and resolves the script beside the file", () => {
    const config = loadAgentConfig(configFile("provider: script\nscript: demo.yaml\nsession: { state_dir: ~/runs }\n"));
    assert.equal((config.store as FileStoreConfig).dir, join(homedir(), "runs"));
    assert.equal(config.script, join(scratch, "demo.yaml"));
  });

  it("names an unknown key and where it is", () => {
    assertConfigError("modle: x\n", /: unknown key "modle": did you mean "model"\?/);
    assertConfigError("budget: { max_token: 5 }\n", /: budget: unknown key "max_token"/);
    assertConfigError("tools: [{ name: a, description: d, command: [x], timeot: 3s }]\n", /: tools\[0\]: unknown key "timeot"/);
  });

  it("names the field of a wrong value", () => {
    assertConfigError("tools: [{ name: a, description: d, command: x }]\n", /: tools\[0\]\.command: /);
    assertConfigError("tools: [{ name: a, description: d, command: [x], timeout: soon }]\n", /tools\[0\]\.timeout: expected a duration/);
    assertConfigError("provider: gemini\n", /: provider: /);
    assertConfigError("budget: { max_iterations: 0 }\n", /budget\.max_iterations: /);
    assertConfigError("thinking: { mode: enabled }\n", /thinking\.budget_tokens: /);
    assertConfigError("base_url: not a url\n", /base_url: /);
    assertConfigError("provider: script\n", /script: the script provider plays the model.s side from a script file/);
    assertConfigError("tools: [{ name: a, description: d, command: [x], on_crash: maybe }]\n", /tools\[0\]\.on_crash: .*"rerun"\|"ask"\|"never"/);
    assertConfigError("memory: { enabled: true, namespace: ../x }\n", /memory\.namespace: expected letters, digits/);
    assertConfigError("memory: { enabled: yes please }\n", /memory\.enabled: /);
    assertConfigError("approval_timeout: forever\n", /approval_timeout: expected a duration/);
    assertConfigError("ask_user: maybe\n", /ask_user: /);
    assertConfigError("env_deny: [MY-TOKEN]\n", /env_deny\[0\]: expected an environment variable name/);
    assertConfigError("tools: [{ name: a, description: d, command: [x], env: GH_TOKEN }]\n", /tools\[0\]\.env: /);
  });

  it("reads mcp_servers, cwd beside the file, and names what does not go together", () => {
    const path = configFile(`mcp_servers:
  - { name: fs, command: npx, args: [-y, server], env: [GH_TOKEN], cwd: ./work, confirm: [write_file], on_crash: { write_file: never } }
  - { name: web, url: "http://127.0.0.1:9/mcp", headers: { Authorization: "Bearer \${T}" }, confirm: true, on_crash: ask, timeout: 5s }
`);
    const [fs, web] = loadAgentConfig(path).mcpServers;
    assert.deepEqual(fs, {
      name: "fs",
      command: "npx",
      args: ["-y", "server"],
      env: ["GH_TOKEN"],
      cwd: join(scratch, "work"),
      confirm: ["write_file"],
      on_crash: { write_file: "never" },
      timeout: 30_000,
      output_limit: 1024 * 1024,
    });
    assert.deepEqual(web, {
      name: "web",
      url: "http://127.0.0.1:9/mcp",
      headers: { Authorization: "Bearer ${T}" },
      confirm: true,
      on_crash: "ask",
      timeout: 5000,
      output_limit: 1024 * 1024,
    });
    assert.deepEqual(loadAgentConfig(undefined).mcpServers, []);
    assertConfigError("mcp_servers: [{ name: x }]\n", /mcp_servers\[0\]: give either command: \(a server started over stdio\) or url:/);
    assertConfigError("mcp_servers: [{ name: x, command: a, url: 'http://h/' }]\n", /mcp_servers\[0\]: give either command:/);
    assertConfigError("mcp_servers: [{ name: x, url: 'http://h/', args: [a] }]\n", /mcp_servers\[0\]: args, env and cwd go with command:/);
    assertConfigError("mcp_servers: [{ name: x, command: a, headers: { A: b } }]\n", /mcp_servers\[0\]: headers and auth go with url:/);
    assertConfigError("mcp_servers: [{ name: x, url: 'ftp://h/' }]\n", /mcp_servers\[0\]\.url: expected an http:\/\/ or https:\/\/ URL/);
    assertConfigError("mcp_servers: [{ name: a_b, command: a }]\n", /mcp_servers\[0\]\.name: expected 1 to 32 letters, digits or '-'/);
    assertConfigError("mcp_servers: [{ name: a, command: a }, { name: a, command: b }]\n", /mcp_servers: two servers have the same name/);
    assertConfigError("mcp_servers: [{ name: a, command: a, on_crash: { t: maybe } }]\n", /mcp_servers\[0\]\.on_crash/);
    assertConfigError("mcp_servers: [{ name: a, command: a, comand: b }]\n", /mcp_servers\[0\]: unknown key "comand"/);
  });

  it("reads a jetstream session block, and names what one lacks", () => {
    const config = loadAgentConfig(configFile("session: { backend: jetstream, servers: nats://127.0.0.1:4222, stream: RUNS, lease_ttl: 3s }\n"));
    assert.deepEqual(config.store, { backend: "jetstream", servers: "nats://127.0.0.1:4222", stream: "RUNS", prefix: undefined, leaseTtlMs: 3000 });
    assertConfigError("session: { backend: jetstream, stream: RUNS }\n", /: session: the jetstream backend needs servers: \(nats:\/\/HOST:PORT\) and stream: /);
    assertConfigError("session: { backend: jetstream, servers: nats://h:1, stream: 'A.B' }\n", /session\.stream: a stream name is letters, digits/);
    assertConfigError("session: { backend: postgres }\n", /session\.backend: /);
  });

  it("reads session.url through the store parser: a URL or a directory beside the file; an unknown scheme keeps its code, masked", () => {
    assert.deepEqual(loadAgentConfig(configFile("session: { url: nats://127.0.0.1:4222/RUNS }\n")).store, {
      backend: "jetstream",
      servers: "nats://127.0.0.1:4222",
      stream: "RUNS",
    });
    assert.deepEqual(loadAgentConfig(configFile("session: { url: ./runs }\n")).store, { backend: "file", dir: join(scratch, "runs") });
    const path = configFile("session: { url: 'mysql://fisk:hunter2@127.0.0.1/runs' }\n");
    assert.throws(
      () => loadAgentConfig(path),
      (error: unknown) =>
        error instanceof BackendError &&
        error.code === "ERR_UNKNOWN_SCHEME" &&
        error.message.startsWith(`${path}: session.url: store "mysql://***@127.0.0.1/runs": no backend for mysql://`) &&
        !error.message.includes("hunter2"),
    );
    assertConfigError("session: { url: ./runs, state_dir: ./other }\n", /: session: url names the store by itself: drop state_dir$/);
    assertConfigError("session: { url: ./runs, backend: jetstream }\n", /: session: url names the store by itself: drop backend$/);
  });

  it("journals new sessions in record version 2 unless session.record_version says 3, and names the versions there are", () => {
    assert.equal(loadAgentConfig(configFile("model: a\n")).recordVersion, 2);
    assert.equal(loadAgentConfig(configFile("session: { record_version: 3 }\n")).recordVersion, 3);
    assertConfigError(
      "session: { record_version: 4 }\n",
      /: session\.record_version: expected 2 \(the default\) or 3 \(the Go implementation's current journal format\)$/,
    );
  });

  it("reports YAML that does not parse with its line, and a file that is not a mapping", () => {
    assertConfigError("model: a\ntools: [\n  - x: : :\n", /:\d+: not valid YAML: /);
    assertConfigError("- a\n- b\n", /expected a mapping of settings/);
  });

  it("reports a config file that does not exist", () => {
    assert.throws(() => loadAgentConfig(join(scratch, "missing.yaml")), /cannot read config .*missing\.yaml: no such file/);
  });
});
