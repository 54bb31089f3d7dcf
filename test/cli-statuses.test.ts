// covers: src/cli/text/session-list.ts, src/session/compact-session.ts
// process: shared
// Statuses that say what happened, through the real CLI on the offline script provider: a
// suspended session stays suspended through a compaction by hand and its undo, a fork is
// resumable and says so, a one-shot follow-up to a session begun as a chat completes, and a
// call refused for want of someone to ask reads as refused to the model and the user.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import type { CliResult } from "./helpers/cli-harness.js";
import { commandsInProcess } from "./helpers/in-process-cli.js";

/** The file's first call spawned, the later ones in this process (test/helpers/in-process-cli.ts). */
const fisk = commandsInProcess(["session", "run"]);

const ROOT = mkdtempSync(join(tmpdir(), "fisk-ai-cli-statuses-"));
after(() => rmSync(ROOT, { recursive: true, force: true }));
const ENV: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: ROOT, XDG_STATE_HOME: join(ROOT, "xdg"), NO_COLOR: "1" };
const STATE = ["--state-dir", join(ROOT, "state")];
// A long prompt, so a compaction keeping the latest message has something to summarize.
const PROMPT = `hello ${"word ".repeat(200)}`;

writeFileSync(join(ROOT, "agent.yaml"), "provider: script\nscript: turns.yaml\ncompaction: { auto: false, keep_recent: 1 }\n");
// Every turn answers: whichever a call plays, a run that reaches the model completes.
writeFileSync(join(ROOT, "turns.yaml"), `turns:\n${"  - text: An answer.\n".repeat(8)}`);

function cli(args: string[], stdin = ""): Promise<CliResult> {
  return fisk([...args, ...STATE], { cwd: ROOT, env: ENV, stdin });
}

async function statusOf(name: string): Promise<string | undefined> {
  const listing = await cli(["session", "ls", "--json"]);
  assert.equal(listing.code, 0, listing.stderr);
  return (JSON.parse(listing.stdout) as { id: string; status: string }[]).find((row) => row.id === name)?.status;
}

async function suspendedChat(name: string): Promise<void> {
  // The chat's input ends after its first answer: a checkpointed chat that ends is suspended.
  const chat = await cli(["run", "--chat", "--checkpoint", "--name", name, PROMPT]);
  assert.equal(chat.code, 0, chat.stderr);
  assert.equal(await statusOf(name), "suspended");
}

describe("statuses", () => {
  it("session compact and compact --undo keep a suspended session suspended", async () => {
    await suspendedChat("kept");
    const compacted = await cli(["session", "compact", "kept"]);
    assert.equal(compacted.code, 0, compacted.stderr);
    assert.equal(await statusOf("kept"), "suspended", "after the compaction");
    const undone = await cli(["session", "compact", "kept", "--undo"]);
    assert.equal(undone.code, 0, undone.stderr);
    assert.equal(await statusOf("kept"), "suspended", "after its undo");
  });

  it("a fork cut where the run had not stopped is suspended, and resumes; one cut at a terminal record keeps it", async () => {
    await suspendedChat("source");
    const mid = await cli(["session", "fork", "source", "--at", "2", "--name", "mid"]);
    assert.equal(mid.code, 0, mid.stderr);
    assert.equal(await statusOf("mid"), "suspended");
    const whole = await cli(["session", "fork", "source", "--name", "whole"]);
    assert.equal(whole.code, 0, whole.stderr);
    assert.equal(await statusOf("whole"), "suspended");
    const resumed = await cli(["run", "--resume", "mid", "go on"]);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(resumed.stdout, "An answer.\n");
    assert.equal(await statusOf("mid"), "completed");
  });

  it("a one-shot follow-up (no --chat) to a session begun as a chat answers and completes", async () => {
    await suspendedChat("oneshot");
    const followed = await cli(["run", "--resume", "oneshot", "one more thing"]);
    assert.equal(followed.code, 0, followed.stderr);
    assert.equal(followed.stdout, "An answer.\n");
    assert.doesNotMatch(followed.stderr, /Suspended session/);
    assert.equal(await statusOf("oneshot"), "completed");
  });
});

describe("a call refused in a run without --checkpoint (examples/approvals)", () => {
  const config = new URL("../../examples/approvals/agent.yaml", import.meta.url).pathname;
  const dir = join(ROOT, "refused");

  it("is an error result the model takes as denied, the trace and the end say refused, and nothing ran", async () => {
    mkdirSync(dir, { recursive: true });
    const text = await fisk(["run", "--config", config, "Tag release 1.4.2"], { cwd: dir, env: ENV });
    assert.equal(text.code, 0, text.stderr);
    assert.equal(text.stdout, "I did not tag the release.\n", "the script's `when: denied` matched the refusal");
    assert.match(text.stderr, /^← release refused: denied: no one could be asked to allow this call of release \(no terminal or callback\)/m);
    assert.match(
      text.stderr,
      /^1 call refused \(release\): the run went on without it; with --checkpoint a call no one can be asked about waits for 'session approve' instead$/m,
    );
    assert.equal(existsSync(join(dir, "releases.txt")), false, "the release was never tagged");
  });

  it("shows in stream-json as a tool_call marked refused, then its error tool_result", async () => {
    const streamed = await fisk(["run", "--config", config, "--output-format", "stream-json", "Tag release 1.4.2"], { cwd: dir, env: ENV });
    assert.equal(streamed.code, 0, streamed.stderr);
    const events = streamed.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const call = events.findIndex((event) => event.type === "tool_call");
    const result = events.findIndex((event) => event.type === "tool_result");
    assert.ok(call >= 0 && call < result, `a tool_call before the tool_result: ${streamed.stdout}`);
    assert.deepEqual(events[call], { type: "tool_call", id: events[result]?.id, name: "release", input: { version: "1.4.2" }, refused: true });
    assert.equal(events[result]?.is_error, true);
    assert.match(String(events[result]?.content), /^denied: /);
    assert.equal(events.at(-1)?.answer, "I did not tag the release.");
    assert.equal(existsSync(join(dir, "releases.txt")), false);
  });
});
