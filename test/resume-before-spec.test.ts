// covers: src/agent/fingerprint.ts, src/agent/agent-spec.ts, src/config/run-options.ts
// process: shared
// Sessions journaled before the configuration took one shape (test/fixtures/resume-before-spec,
// written by main's build before AgentSpec) resume with this build from the same agent.yaml
// without --force: the fingerprint's input is what it was, byte for byte.
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fold, type JournalRecord } from "../src/index.js";
import { decodeJournal } from "../src/runstate/records/journal-codec.js";
import { commandsInProcess } from "./helpers/in-process-cli.js";

/** The file's first call spawned, the later ones in this process (test/helpers/in-process-cli.ts). */
const cli = commandsInProcess(["session", "run"]);
const FIXTURE = new URL("../../test/fixtures/resume-before-spec/", import.meta.url).pathname;
const root = realpathSync(mkdtempSync(join(tmpdir(), "fisk-ai-resume-before-spec-")));
after(() => rmSync(root, { recursive: true, force: true }));

/** A copy of the fixture to work in, with a home of its own: no keyring, no state of the user's. */
function workspace(name: string): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = join(root, name);
  cpSync(FIXTURE, dir, { recursive: true });
  const env = { PATH: process.env.PATH, HOME: dir, XDG_CONFIG_HOME: join(dir, ".config"), XDG_STATE_HOME: join(dir, ".state") };
  return { dir, env };
}

function records(dir: string, runId: string): JournalRecord[] {
  return decodeJournal(readFileSync(join(dir, "runs", `${runId}.json`))).records;
}

describe("sessions journaled before AgentSpec", () => {
  it("a version 2 session parked at a call: approved, it resumes to its answer without --force", async () => {
    const { dir, env } = workspace("v2");
    const approved = await cli(["session", "approve", "parked-v2", "--state-dir", "runs"], { cwd: dir, env });
    assert.equal(approved.code, 0, approved.stderr);
    const resumed = await cli(["run", "--resume", "parked-v2", "--config", "agent.yaml", "--state-dir", "runs", "--cwd", dir], { cwd: dir, env });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.doesNotMatch(resumed.stderr, /configuration changed|--force/);
    assert.match(resumed.stdout, /Noted\./);
    const state = fold(records(dir, "parked-v2"));
    assert.equal(state.terminal?.reason, "completed");
    assert.equal(readFileSync(join(dir, "notes.txt"), "utf8"), "milk\n");
  });

  it("a version 3 session (the Go implementation's hashes), completed: a follow-up takes it further without --force", async () => {
    const { dir, env } = workspace("v3");
    const before = fold(records(dir, "done-v3"));
    assert.equal(before.meta.version, 3);
    const resumed = await cli(["run", "--resume", "done-v3", "--config", "agent-v3.yaml", "--state-dir", "runs", "--cwd", dir, "and again"], { cwd: dir, env });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.doesNotMatch(resumed.stderr, /configuration changed|--force/);
    assert.match(resumed.stdout, /Still noted\./);
    const after = fold(records(dir, "done-v3"));
    assert.equal(after.terminal?.reason, "completed");
    assert.ok(after.counters.modelCalls > before.counters.modelCalls, "the follow-up made a model call");
  });

  it("a changed agent.yaml is still refused: the test can fail", async () => {
    const { dir, env } = workspace("changed");
    const text = readFileSync(join(dir, "agent-v3.yaml"), "utf8").replace("You keep a notes file for the user.", "You keep a diary.");
    writeFileSync(join(dir, "changed.yaml"), text);
    const refused = await cli(["run", "--resume", "done-v3", "--config", "changed.yaml", "--state-dir", "runs", "--cwd", dir, "and again"], { cwd: dir, env });
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /system/);
  });
});
