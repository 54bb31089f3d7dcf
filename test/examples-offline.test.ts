// covers: src/backends/file/file-store.ts, src/runstate/records/records.ts, src/replay/replay-session.ts
// The README's examples as a new user types them, offline on the script provider: the notes
// chat with its follow-ups (also after a compaction), and each library example with no key,
// the README's loadAgent example among them.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it, type TestContext } from "node:test";
import { FileStore } from "../src/index.js";
import { PROTOCOLS } from "../src/journal.js";
import { runCli, startScript } from "./helpers/cli-harness.js";
import { journalRecords } from "./helpers/journal-file.js";

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

  it("replay-test, the node:test file of docs/replay.md, passes both its tests", async (t) => {
    const { env } = home(t);
    const result = await startScript(example("replay-test.js"), [], { cwd: REPO, env }).done;
    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
    assert.match(result.stdout, /^# pass 2$/m);
    assert.match(result.stdout, /^# fail 0$/m);
  });

  it("function-tool calls its tool and answers", async (t) => {
    const { env } = home(t);
    const result = await startScript(example("function-tool.js"), [], { cwd: REPO, env }).done;
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, "2 to the power of 10 is 1024.\n");
    assert.equal(result.stderr, "calling power\nmodel calls: 2, tool calls: 1\n");
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

  it("sub-agents, run where its researcher.yaml is not, fails naming each child that failed", async (t) => {
    const { dir, env } = home(t);
    const result = await startScript(example("sub-agents.js"), [], { cwd: dir, env }).done;
    assert.equal(result.code, 1, result.stdout);
    assert.equal(result.stdout, "");
    const lines = result.stderr.trim().split("\n");
    assert.equal(lines.length, 2, result.stderr);
    for (const line of lines) assert.match(line, /^a researcher failed: .*researcher\.yaml/);
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

  it("suspend-resume suspends on Ctrl-C while its tool counts and resumes in a second process without counting again", async (t) => {
    const { dir, env } = home(t);
    const script = example("suspend-resume.js");
    const first = startScript(script, ["start", "sessions", "Count to 10"], { cwd: dir, env });
    await first.stderrIncludes("counting 1 of 10");
    first.child.kill("SIGINT");
    const stopped = await first.done;
    assert.equal(stopped.code, 0, stopped.stderr);
    const suspended = JSON.parse(stopped.stdout) as { runId: string; reason: string; toolCalls: number };
    assert.deepEqual([suspended.reason, suspended.toolCalls], ["suspended", 1]);
    assert.match(stopped.stderr, new RegExp(`\\nresume it with: node .*suspend-resume\\.js resume sessions ${suspended.runId}\\n$`));
    const journal = join(dir, "sessions", `${suspended.runId}.json`);
    const result = journalRecords(journal).find((record) => record.protocol === PROTOCOLS.tool_result);
    assert.match(JSON.stringify(result), /stopped at \d+ of 10: the run was asked to suspend/);
    assert.equal(terminalReason(journal), "suspended");
    const meta = journalRecords(journal)[0];
    assert.equal(
      meta?.protocol === PROTOCOLS.meta ? meta.meta.fingerprint.model : undefined,
      "script-demo",
      "offline, the session names the script's model, not Claude's",
    );

    const resumed = await startScript(script, ["resume", "sessions", suspended.runId], { cwd: dir, env }).done;
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(resumed.stderr, "", "the resume does not count again");
    assert.deepEqual(JSON.parse(resumed.stdout), {
      runId: suspended.runId,
      reason: "completed",
      answer: "The count was stopped before 10, and that is where it stays.",
      toolCalls: 1,
    });
    assert.equal(journalRecords(journal).filter((record) => record.protocol === PROTOCOLS.tool_result).length, 1);
    assert.equal(terminalReason(journal), "completed");
  });

  it("http-handler answers a POST on a free port, refuses to resume the completed session, and stops on SIGTERM", async (t) => {
    const { dir, env } = home(t);
    const app = startScript(example("http-handler.js"), ["sessions"], { cwd: dir, env: { ...env, PORT: "0" } });
    t.after(() => app.child.kill("SIGKILL"));
    await app.stderrIncludes("listening on ");
    const base = `http://127.0.0.1:${/listening on (\d+)/.exec(app.stderr())?.[1]}/sessions/first`;
    const answered = await postJson(base, { prompt: "What does the page say?" });
    assert.equal(answered.status, 200, JSON.stringify(answered.body));
    assert.deepEqual([answered.body.runId, answered.body.reason, answered.body.answer], ["first", "completed", "The page says: Hello from a data URL"]);
    const again = await postJson(base, {});
    assert.equal(again.status, 409);
    assert.match(String(again.body.error), /is completed/);
    assert.equal(terminalReason(join(dir, "sessions", "first.json")), "completed");
    app.child.kill("SIGTERM");
    const stopped = await app.done;
    assert.equal(stopped.code, 0, stopped.stderr);
  });
});

/** POSTs `body` as JSON, as curl -d does, and reads the JSON answer. */
async function postJson(url: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, { method: "POST", body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** How the journal at `path` ended, from its terminal record. */
function terminalReason(path: string): string | undefined {
  const last = journalRecords(path).at(-1);
  return last?.protocol === PROTOCOLS.terminal ? last.terminal.reason : undefined;
}
