// Statuses that say what happened, through the real CLI on the offline script provider: a
// suspended session stays suspended through a compaction by hand and its undo, and a one-shot follow-up to a session begun as a chat completes.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { runCli, type CliResult } from "./helpers/cli-harness.js";

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
  return runCli([...args, ...STATE], { cwd: ROOT, env: ENV, stdin });
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

  it("a one-shot follow-up (no --chat) to a session begun as a chat answers and completes", async () => {
    await suspendedChat("oneshot");
    const followed = await cli(["run", "--resume", "oneshot", "one more thing"]);
    assert.equal(followed.code, 0, followed.stderr);
    assert.equal(followed.stdout, "An answer.\n");
    assert.doesNotMatch(followed.stderr, /Suspended session/);
    assert.equal(await statusOf("oneshot"), "completed");
  });
});
