// covers: src/cli/run/stream-json.ts
// process: shared
// `fisk-ai run --output-format stream-json`: the real CLI, offline (the script provider),
// with every line of stdout parsed as one event.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { commandsInProcess } from "./helpers/in-process-cli.js";

/** The file's first call spawned, the later ones in this process (test/helpers/in-process-cli.ts). */
const cli = commandsInProcess(["session", "run", "init", "memory"]);

const ROOT = mkdtempSync(join(tmpdir(), "fisk-ai-cli-stream-json-"));
after(() => rmSync(ROOT, { recursive: true, force: true }));
const ENV: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: ROOT, XDG_STATE_HOME: join(ROOT, "xdg"), NO_COLOR: "1" };

writeFileSync(
  join(ROOT, "agent.yaml"),
  `provider: script
model: script-test
script: script.yaml
tools:
  - name: echo
    description: Echoes its text
    command: [echo, "{text}"]
    input_schema: { type: object, properties: { text: { type: string } }, required: [text] }
`,
);
writeFileSync(join(ROOT, "script.yaml"), `turns:\n  - text: Echoing.\n    tool_calls:\n      - { name: echo, input: { text: hi } }\n  - text: It said hi.\n`);
writeFileSync(join(ROOT, "short.yaml"), `turns:\n  - tool_calls:\n      - { name: echo, input: { text: hi } }\n`);

function events(stdout: string): Record<string, unknown>[] {
  assert.ok(stdout.endsWith("\n"), "every event ends its line");
  return stdout
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("run --output-format stream-json", () => {
  it("prints every event of a run as one JSON object a line, and no plain answer", async () => {
    const result = await cli(["run", "--checkpoint", "--name", "sj1", "--output-format", "stream-json", "say hi"], { cwd: ROOT, env: ENV });
    assert.equal(result.code, 0, result.stderr);
    const all = events(result.stdout);
    assert.deepEqual(
      all.map((event) => event.type),
      [
        "session_started",
        "model_call_started",
        "text_delta",
        "turn_end",
        "tool_call",
        "tool_result",
        "model_call_started",
        "text_delta",
        "turn_end",
        "terminal",
      ],
    );
    assert.deepEqual(all[0], { type: "session_started", session_id: "sj1", resumed: false, checkpointed: true });
    assert.deepEqual(all[2], { type: "text_delta", text: "Echoing." });
    assert.deepEqual(Object.keys(all[3] as object), [
      "type",
      "iteration",
      "stop_reason",
      "text",
      "in_tokens",
      "out_tokens",
      "cache_read_tokens",
      "cache_create_tokens",
    ]);
    assert.deepEqual([all[3]?.iteration, all[3]?.stop_reason, all[3]?.text], [0, "tool_use", "Echoing."]);
    assert.deepEqual(all[4], { type: "tool_call", id: "toolu_script_1_1", name: "echo", input: { text: "hi" } });
    assert.deepEqual(all[5], { type: "tool_result", id: "toolu_script_1_1", name: "echo", content: "hi\n", is_error: false, reused: false });
    const terminal = all[9] as { session_id: string; reason: string; answer: string; counters: Record<string, number> };
    assert.deepEqual([terminal.session_id, terminal.reason, terminal.answer], ["sj1", "completed", "It said hi."]);
    assert.deepEqual([terminal.counters.model_calls, terminal.counters.tool_calls], [2, 1]);
  });

  it("ends a run that stops early with a terminal event naming the reason, and the exit code for it", async () => {
    writeFileSync(join(ROOT, "short-agent.yaml"), "provider: script\nscript: short.yaml\ntools:\n  - { name: echo, description: e, command: [echo, hi] }\n");
    const stopped = await cli(["run", "--config", "short-agent.yaml", "--output-format", "stream-json", "x"], { cwd: ROOT, env: ENV });
    assert.equal(stopped.code, 1, stopped.stderr);
    const last = events(stopped.stdout).at(-1) as { type: string; reason: string; message: string };
    assert.deepEqual([last.type, last.reason], ["terminal", "error"]);
    assert.match(last.message, /script .* has 1 turns/);
  });

  it("refuses an unknown format and a chat in one line, exit 2", async () => {
    const unknown = await cli(["run", "--output-format", "json", "x"], { cwd: ROOT, env: ENV });
    assert.deepEqual([unknown.code, unknown.stdout, unknown.stderr], [2, "", "fisk-ai: --output-format is text or stream-json, not 'json'\n"]);
    const chat = await cli(["run", "--chat", "--output-format", "stream-json", "x"], { cwd: ROOT, env: ENV });
    assert.equal(chat.code, 2);
    assert.match(chat.stderr, /^fisk-ai: --output-format stream-json cannot go with a chat/);
  });
});
