// covers: src/llm/openai-provider.ts, src/llm/script-provider.ts
// process: shared
// fisk-ai run on its other providers: an OpenAI-compatible endpoint (strict fake on
// loopback, through the official SDK) and the offline script provider of the README.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { startCli } from "./helpers/cli-harness.js";
import { scriptedReplies, startFakeOpenAI } from "./helpers/fake-openai-server.js";
import { commandsInProcess } from "./helpers/in-process-cli.js";

/** The file's first call spawned, the later ones in this process (test/helpers/in-process-cli.ts). */
const cli = commandsInProcess(["session", "run", "init", "memory"]);

const root = mkdtempSync(join(tmpdir(), "fisk-ai-cli-providers-"));
after(() => rmSync(root, { recursive: true, force: true }));
const REPO = new URL("../../", import.meta.url).pathname;

/** The README's quick start run and resume commands, as arguments of the CLI. */
function quickStartCommands(): [string[], string[]] {
  const readme = readFileSync(join(REPO, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Quick start"), readme.indexOf("npm test"));
  const lines = [...section.matchAll(/```sh\n(.*)\n```/g)].map((match) => match[1] as string);
  assert.equal(lines.length, 2, "the quick start has a run command and a resume command");
  const args = (line: string) => {
    const words = [...line.replace(/^npm ci && /, "").matchAll(/"([^"]*)"|(\S+)/g)].map((m) => (m[1] ?? m[2]) as string);
    assert.deepEqual(words.slice(0, 2), ["node", "dist/cli/main.js"], line);
    return words.slice(2);
  };
  return [args(lines[0] as string), args(lines[1] as string)];
}

function baseEnv(dir: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: dir, XDG_STATE_HOME: join(dir, "state"), NO_COLOR: "1" };
}

describe("fisk-ai run on other providers", () => {
  it("runs tools through an OpenAI-compatible endpoint, tool messages right after their call", async () => {
    const server = await startFakeOpenAI(
      scriptedReplies([
        {
          content: "Let me note it.",
          tool_calls: [{ id: "call_1", name: "note", arguments: '{"text":"one"}' }],
          finish_reason: "tool_calls",
          usage: { prompt_tokens: 50, completion_tokens: 10, prompt_tokens_details: { cached_tokens: 20 } },
        },
        { content: "Noted one.", finish_reason: "stop", usage: { prompt_tokens: 80, completion_tokens: 5 } },
      ]),
      { apiKey: "sk-openai-test" },
    );
    try {
      const dir = join(root, "openai");
      mkdirSync(dir);
      writeFileSync(
        join(dir, "agent.yaml"),
        `provider: openai
model: llama3.2
base_url: ${server.url}
tools:
  - name: note
    description: Echo a note
    command: [echo, "noted {text}"]
    input_schema: { type: object, properties: { text: { type: string } }, required: [text] }
retry: { max_attempts: 2, base_delay: 10ms }
`,
      );
      const result = await cli(["run", "--checkpoint", "--name", "oa", "note one"], {
        cwd: dir,
        env: { ...baseEnv(dir), OPENAI_API_KEY: "sk-openai-test" },
      });
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, "Noted one.\n");
      assert.ok(
        server.requests.every((request) => request.accepted),
        server.requests.map((request) => request.rejection).join("; "),
      );
      const second = server.requests[1]?.body as { messages: { role: string; tool_call_id?: string; content?: string }[] };
      assert.deepEqual(
        second.messages.map((message) => message.role),
        ["system", "user", "assistant", "tool"],
      );
      assert.equal(second.messages[3]?.tool_call_id, "call_1");
      assert.equal(second.messages[3]?.content, "noted one\n");
      const journal = readFileSync(join(dir, "state", "fisk-ai", "runs", "oa.json"), "utf8");
      const meta = JSON.parse(journal.split("\n")[0] as string) as { meta: { fingerprint: { provider: string } } };
      assert.equal(meta.meta.fingerprint.provider, "openai");
      assert.match(journal, /"cache_read_tokens":20/);
    } finally {
      await server.close();
    }
  });

  it("plays the README's quick start twice in a row, each run suspended at the announced pause and resumed", async () => {
    const [start, resume] = quickStartCommands();
    const dir = join(root, "script");
    mkdirSync(dir);
    symlinkSync(join(REPO, "examples"), join(dir, "examples"));
    const env = baseEnv(dir);
    for (const round of [1, 2]) {
      const run = startCli(start, { cwd: dir, env });
      await run.stderrIncludes("press Ctrl-C now");
      await run.stderrIncludes("→ pause");
      run.child.kill("SIGINT");
      const suspended = await run.done;
      assert.equal(suspended.code, 3, suspended.stderr);
      assert.match(suspended.stderr, /Suspended session \S+; resume with: /);
      const resumed = await cli(resume, { cwd: dir, env });
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.equal(resumed.stdout, "Noted. Your notes file says: buy milk.\n");
      assert.equal(readFileSync(join(dir, "notes.txt"), "utf8"), "buy milk\n".repeat(round), "the note was written once a run");
    }
  });

  it("points at the top-level help for the exit codes in --help", async () => {
    const result = await cli(["run", "--help"], { cwd: root, env: baseEnv(root) });
    assert.equal(result.code, 0);
    assert.match(result.stdout, /^Exit codes: 'fisk-ai --help' lists them \(0 done, 2 usage or configuration error, 3 suspended, 10 awaiting approval\)\.$/m);
  });
});
