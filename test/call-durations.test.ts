// covers: src/transcript/duration.ts
// process: shared
// Each model call's and tool's duration, from the started_at/ended_at their records keep,
// in `session show --transcript` and the HTML export (the viewer's is in cli-viewer.test.ts);
// a journal written before the times were kept shows none.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { startCli } from "./helpers/cli-harness.js";
import { timedSession, TIMES } from "./helpers/durations.js";
import { plantSession } from "./helpers/shown-sessions.js";

const root = mkdtempSync(join(tmpdir(), "fisk-ai-call-durations-"));
const STORE = join(root, "state");
after(() => rmSync(root, { recursive: true, force: true }));

plantSession(STORE, timedSession("timed", TIMES));
plantSession(STORE, timedSession("slow", { call: ["2026-01-02T10:00:00Z", "2026-01-02T10:03:05Z"] }));
plantSession(STORE, timedSession("older", {}));

const fisk = (args: string[]) => startCli([...args, "--state-dir", STORE], { cwd: root, env: { PATH: process.env.PATH, HOME: root, NO_COLOR: "1" } }).done;
const conversation = (stdout: string) => stdout.slice(stdout.indexOf("\n\n") + 2);

describe("call durations", () => {
  it("session show --transcript gives each timed model call its own line and each timed result its tool's time", async () => {
    const result = await fisk(["session", "show", "timed", "--transcript"]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(
      conversation(result.stdout),
      ["› What is in the notes file?", "(model call, 2.4 s)", "Noting.", '→ note {"text":"toolu_1"}', "← note (312 ms): noted", "Done.", ""].join("\n"),
    );
    const slow = await fisk(["session", "show", "slow", "--transcript"]);
    assert.match(slow.stdout, /^\(model call, 3m 05s\)$/m);
    assert.match(slow.stdout, /^← note: noted$/m, "a result without times shows none");
  });

  it("session show of a journal written before the times were kept shows no duration", async () => {
    const result = await fisk(["session", "show", "older", "--transcript"]);
    assert.equal(result.code, 0, result.stderr);
    assert.doesNotMatch(result.stdout, /^\(model call|\(\d+ ms\)/m);
    assert.match(result.stdout, /^← note: noted$/m);
  });

  it("the HTML export shows them too, and none for the older journal", async () => {
    const out = join(root, "timed.html");
    const result = await fisk(["session", "export", "timed", "--format", "html", "--output", out]);
    assert.equal(result.code, 0, result.stderr);
    const html = readFileSync(out, "utf8");
    assert.match(html, /<div class="entry took[^"]*" [^>]*><pre>model call · 2\.4 s<\/pre><\/div>/);
    assert.match(html, /<summary>← note · 312 ms · 1 line · noted<\/summary>/);
    const older = join(root, "older.html");
    assert.equal((await fisk(["session", "export", "older", "--format", "html", "--output", older])).code, 0);
    const plain = readFileSync(older, "utf8");
    assert.doesNotMatch(plain, /model call ·|· \d+ ms ·/);
    assert.match(plain, /<summary>← note · 1 line · noted<\/summary>/);
  });
});
