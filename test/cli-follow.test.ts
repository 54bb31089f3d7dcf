// covers: src/cli/text/session-follow.ts, src/backends/open-backend.ts
// process: shared
// `session show ID --follow` watching a session another process writes: each record is
// printed as it is journaled, and the command ends when the session does, on the file store
// and on JetStream (a real nats-server).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createStore, type Store } from "../src/index.js";
import { startCli } from "./helpers/cli-harness.js";
import { startNatsServer, type NatsServer } from "./helpers/nats-server.js";
import { skipWithout } from "./helpers/programs.js";
import { assistantEntry, metaPayload, terminalEntry, toolResultEntry, userEntry } from "./helpers/record-builders.js";
import { commandsInProcess } from "./helpers/in-process-cli.js";
import { eventually } from "./helpers/eventually.js";

/** The file's first call spawned, the later ones in this process (test/helpers/in-process-cli.ts). */
const cli = commandsInProcess(["session", "run", "init", "memory"]);

const ROOT = mkdtempSync(join(tmpdir(), "fisk-follow-"));
const env = { ...process.env, NO_COLOR: "1" };
after(() => rmSync(ROOT, { recursive: true, force: true }));

/** Writes a session through `store` while `session show --follow` (with `where`) watches it. */
async function followWhileWriting(store: Store, where: string[], runId: string): Promise<void> {
  const journal = await store.create(runId, metaPayload(runId, { prompt: "Watch me work." }));
  await journal.append(2, assistantEntry(0, "Starting.", ["toolu_1"]));
  const follower = startCli(["session", "show", runId, "--follow", ...where], { cwd: ROOT, env });
  let stdout = "";
  follower.child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  await eventually(() => stdout.includes('→ note {"text":"toolu_1"}\n'), "the records so far");
  assert.match(stdout, /^status +running /m, "the header, while the writer holds the session");
  await journal.append(3, toolResultEntry("toolu_1", "the first result"));
  await eventually(() => stdout.includes("← note: the first result\n"), "a result as it is journaled");
  await journal.append(4, assistantEntry(1, "Halfway."));
  await journal.append(5, userEntry("Keep going."));
  await eventually(() => stdout.includes("› Keep going.\n"), "a follow-up as it is journaled");
  await journal.append(6, assistantEntry(2, "Done."));
  await journal.append(7, terminalEntry("completed"));
  assert.equal(follower.child.exitCode, null, "still following: the writer holds the session");
  await journal.close();
  const result = await follower.done;
  assert.equal(result.code, 0, result.stderr);
  assert.equal(
    result.stdout.slice(result.stdout.indexOf("\n\n") + 2),
    [
      "› Watch me work.",
      "Starting.",
      '→ note {"text":"toolu_1"}',
      "← note: the first result",
      "Halfway.",
      "› Keep going.",
      "Done.",
      "── completed ──",
      "",
    ].join("\n"),
  );
}

describe("fisk-ai session show --follow", () => {
  it("prints each record of a running session as the file store journals it, and ends with the session", async () => {
    const dir = join(ROOT, "runs");
    await followWhileWriting(await createStore({ backend: "file", dir }), ["--state-dir", dir], "followed");
  });

  it("ends at once for a session that has ended", async () => {
    const dir = join(ROOT, "ended");
    const store = await createStore({ backend: "file", dir });
    const journal = await store.create("ended", metaPayload("ended"));
    await journal.append(2, assistantEntry(0, "All done."));
    await journal.append(3, terminalEntry("completed"));
    await journal.close();
    const result = await cli(["session", "show", "ended", "--follow", "--state-dir", dir], { cwd: ROOT, env });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /\n\n› What is in the notes file\?\nAll done\.\n── completed ──\n$/);
  });

  it("refuses --json with --follow in one line, exit 2", async () => {
    const result = await cli(["session", "show", "ended", "--follow", "--json", "--state-dir", join(ROOT, "ended")], { cwd: ROOT, env });
    assert.equal(result.code, 2);
    assert.equal(result.stderr, "fisk-ai: session show --json is the state as it is now: give --json or --follow, not both\n");
  });

  describe("on JetStream", { skip: skipWithout("nats-server") }, () => {
    let nats: NatsServer;
    before(async () => {
      nats = await startNatsServer();
    });
    after(async () => {
      await nats?.stop();
    });

    it("prints each record of a running session as it is published, and ends with the session", async () => {
      const url = `nats://127.0.0.1:${nats.port}/FOLLOWED`;
      const init = await cli(["session", "init-stream", "--store", url], { cwd: ROOT, env });
      assert.equal(init.code, 0, init.stderr);
      const store = await createStore({ backend: "jetstream", servers: nats.url, stream: "FOLLOWED" });
      try {
        await followWhileWriting(store, ["--store", url], "followed");
      } finally {
        await store.close();
      }
    });
  });
});
