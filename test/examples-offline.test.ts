// The README's examples as a new user types them, offline on the script provider: the notes
// chat with its follow-ups (also after a compaction), and each library example with no key,
// the README's loadAgent example among them.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it, type TestContext } from "node:test";
import { FileStore } from "../src/index.js";
import { runCli, startScript } from "./helpers/cli-harness.js";

const REPO = new URL("../../", import.meta.url).pathname;
const NOTES = join(REPO, "examples/notes/agent.yaml");

function home(t: TestContext): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = mkdtempSync(join(tmpdir(), "fisk-offline-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return { dir, env: { PATH: process.env.PATH, HOME: dir, NO_COLOR: "1" } };
}

describe("the notes chat of the README", () => {
  it("answers a follow-up at the prompt and one-shot follow-ups after it", async (t) => {
    const { dir, env } = home(t);
    const chat = await runCli(["run", "--config", NOTES, "--chat", "--checkpoint", "--name", "notes", "Remember to buy milk"], {
      cwd: dir,
      env,
      stdin: "What does it say now?\n",
    });
    assert.equal(chat.code, 0, chat.stderr);
    assert.equal(chat.stdout, "Noted. Your notes file says: buy milk.\nThe notes file says: buy milk.\n");
    for (const prompt of ["Summarize it in one line", "And once more?"]) {
      const followUp = await runCli(["run", "--config", NOTES, "--resume", "notes", prompt], { cwd: dir, env });
      assert.equal(followUp.code, 0, followUp.stderr);
      assert.equal(followUp.stdout, "The notes file says: buy milk.\n");
    }
  });

  it("goes on with the script's next turn after /compact", async (t) => {
    const { dir, env } = home(t);
    const chat = await runCli(["run", "--config", NOTES, "--chat", "--checkpoint", "--name", "notes", "Remember to buy milk"], {
      cwd: dir,
      env,
      stdin: "/compact\nWhat does it say now?\n",
    });
    assert.equal(chat.code, 0, chat.stderr);
    assert.equal(chat.stdout, "Noted. Your notes file says: buy milk.\nThe notes file says: buy milk.\n");
  });
});

describe("the library examples, offline", () => {
  const example = (name: string): string => join(REPO, ".test-build/examples/library", name);

  it("function-tool calls its tool and answers", async (t) => {
    const { env } = home(t);
    const result = await startScript(example("function-tool.js"), [], { cwd: REPO, env }).done;
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, "2 to the power of 10 is 1024.\n");
    assert.equal(result.stderr, "calling power\n2 model calls, 1 tool calls\n");
  });

  it("sub-agents, the library example of docs/sub-agents.md, runs two researchers as child sessions of the lead", async (t) => {
    const { dir, env } = home(t);
    const source = readFileSync(join(REPO, "examples/library/sub-agents.ts"), "utf8");
    const shown = /```ts\n([\s\S]*?)```/.exec(readFileSync(join(REPO, "docs/sub-agents.md"), "utf8"))?.[1];
    assert.equal(shown, source.slice(source.indexOf("import {")), "the docs show the example as it is");
    const result = await startScript(example("sub-agents.js"), [join(REPO, "examples/sub-agents/researcher.yaml")], { cwd: dir, env }).done;
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, "Both researchers noted their findings in research.txt.\n");
    assert.equal(readFileSync(join(dir, "research.txt"), "utf8"), "a finding\na finding\n");
    const sessions = await new FileStore({ dir: join(dir, "sessions") }).list();
    const lead = sessions.find((session) => session.meta?.parent === undefined);
    assert.deepEqual(
      sessions.filter((session) => session !== lead).map((session) => [session.meta?.parent?.run_id, session.status]),
      [
        [lead?.runId, "completed"],
        [lead?.runId, "completed"],
      ],
    );
  });

  it("the README's library example loads the notes agent.yaml and runs it", async (t) => {
    const { dir, env } = home(t);
    const readme = readFileSync(join(REPO, "README.md"), "utf8");
    const block = /```ts\n([^`]*)```/.exec(readme)?.[1] ?? "";
    assert.match(block, /loadAgent\("agent\.yaml"\)/, block);
    const script = join(dir, "example.mjs");
    writeFileSync(
      script,
      block.replace('from "fisk-ai"', `from ${JSON.stringify(join(REPO, "dist/index.js"))}`).replace('"agent.yaml"', JSON.stringify(NOTES)),
    );
    const result = await startScript(script, [], { cwd: dir, env }).done;
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, "Noted. Your notes file says: buy milk.\n");
  });
});
