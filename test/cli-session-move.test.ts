// covers: src/cli/session/mv.ts, src/cli/context/stores.ts, src/runstate/records/journal-codec.ts
// covers: src/session/move-session.ts
// Moving a session between stores, end to end with the real CLI (a session subcommand's
// later calls in this process, never one that is to crash): `export | import -`
// through a slow, late pipe carrying a large journal, and `session mv` between file
// stores and JetStream (a real nats-server), SIGKILLed after each durable step and run
// again, checking at every point that exactly one copy of the session resumes.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { encodeRecord } from "../src/journal.js";
import { CLI, type CliResult } from "./helpers/cli-harness.js";
import { commandsInProcess } from "./helpers/in-process-cli.js";
import { journalRecords } from "./helpers/journal-file.js";
import { startNatsServer, type NatsServer } from "./helpers/nats-server.js";
import { skipWithout } from "./helpers/programs.js";
import { assistantEntry, journalOf, terminalEntry, toolResultEntry } from "./helpers/record-builders.js";
import { eventually } from "./helpers/eventually.js";

const ROOT = mkdtempSync(join(tmpdir(), "fisk-ai-cli-move-"));
after(() => rmSync(ROOT, { recursive: true, force: true }));
const ENV: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: ROOT, XDG_STATE_HOME: join(ROOT, "xdg"), NO_COLOR: "1" };
const FIRST = "The first answer.";
const SECOND = "The answer to the follow-up.";
const THIRD = "The answer back home.";
const FOURTH = "The answer on the second trip.";

// The script answers the prompt, then follow-ups: a resume that plays the next turn is the one that resumed.
writeFileSync(join(ROOT, "agent.yaml"), "provider: script\nmodel: script-move\nscript: answers.yaml\n");
writeFileSync(join(ROOT, "answers.yaml"), `turns:\n${[FIRST, SECOND, THIRD, FOURTH].map((text) => `  - text: "${text}"\n`).join("")}`);

const fisk = commandsInProcess(["session", "run"]);

function cli(args: string[], env: NodeJS.ProcessEnv = ENV): Promise<CliResult> {
  return fisk(args, { cwd: ROOT, env });
}

async function completedSession(name: string, store: string[]): Promise<void> {
  const made = await cli(["run", "--checkpoint", "--name", name, ...store, "hello"]);
  assert.equal(made.code, 0, made.stderr);
  assert.equal(made.stdout, `${FIRST}\n`);
}

function statusIn(listing: CliResult, name: string): string | undefined {
  assert.equal(listing.code, 0, listing.stderr);
  return (JSON.parse(listing.stdout) as { id: string; status: string }[]).find((row) => row.id === name)?.status;
}

/** Resumes the session with a follow-up: it answers from the script's second turn where the session resumes. */
function followUp(name: string, store: string[]): Promise<CliResult> {
  return cli(["run", "--resume", name, ...store, "and then?"]);
}

function assertResumed(result: CliResult, where: string, answer = SECOND): void {
  assert.equal(result.code, 0, `${where}: ${result.stderr}`);
  assert.equal(result.stdout, `${answer}\n`, where);
}

function assertMovedAway(result: CliResult, name: string, to: string, flag: string): void {
  assert.equal(result.code, 13, result.stderr);
  assert.equal(result.stdout, "");
  const lines = result.stderr.trimEnd().split("\n");
  assert.equal(lines.length, 1, result.stderr);
  assert.match(
    lines[0] as string,
    new RegExp(
      `^fisk-ai: session ${name} was moved to ${to.replaceAll("/", "\\/")} on \\S+: it goes on there \\(fisk-ai run --resume ${name} ${flag} ${to.replaceAll("/", "\\/")}\\)$`,
    ),
  );
}

describe("session import - reads a pipe to its end", () => {
  it("takes a large journal from a writer that starts late and writes slowly, byte for byte", async () => {
    const state = join(ROOT, "piped");
    // About 6 MB: many times a pipe's buffer, so the reader waits on the writer again and again.
    const big = "x".repeat(3 * 1024 * 1024);
    const records = journalOf(
      "big",
      assistantEntry(0, "Looking.", ["toolu_1"]),
      toolResultEntry("toolu_1", big),
      assistantEntry(1, big),
      terminalEntry("completed"),
    );
    const journal = join(ROOT, "big.jsonl");
    writeFileSync(journal, records.map((record) => encodeRecord(record)).join(""));
    const writer = join(ROOT, "slow-writer.mjs");
    writeFileSync(
      writer,
      `import { readFileSync } from "node:fs";
const bytes = readFileSync(process.argv[2]);
let at = 0;
const next = () => {
  if (at >= bytes.length) return;
  const piece = bytes.subarray(at, at + 65536);
  at += piece.length;
  if (process.stdout.write(piece)) setTimeout(next, 2); else process.stdout.once("drain", () => setTimeout(next, 2));
};
setTimeout(next, 300);
`,
    );
    const pipeline = spawn("sh", ["-c", `node "$1" "$2" | node "$3" session import - --state-dir "$4"`, "sh", writer, journal, CLI, state], {
      cwd: ROOT,
      env: ENV,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    pipeline.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    pipeline.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = await once(pipeline, "close");
    assert.equal(code, 0, stderr);
    assert.match(stdout, /^imported session big; resume with: /);
    // The piped bytes, then the import mark: who imported it from what file, when.
    const imported = readFileSync(join(state, "big.json"));
    const piped = readFileSync(journal);
    assert.ok(imported.subarray(0, piped.length).equals(piped), "the imported journal starts with the piped one, byte for byte");
    const mark = JSON.parse(imported.subarray(piped.length).toString("utf8")) as { protocol: string; imported: { file: string } };
    assert.equal(mark.protocol, "io.choria.fisk-ai.v1.session.imported");
    assert.equal(mark.imported.file, "-");
  });
});

describe("session mv", () => {
  const natsSkip = skipWithout("nats-server");
  let nats: NatsServer | undefined;
  let natsStore = "";
  before(async () => {
    if (natsSkip !== false) return;
    nats = await startNatsServer();
    natsStore = `${nats.url}/MOVES`;
    const made = await cli(["session", "init-stream", "--store", natsStore]);
    assert.equal(made.code, 0, made.stderr);
  });
  after(() => nats?.stop());

  it("moves a session between file stores: it resumes there, and here says where it went, one line, exit 13; ls shows it moved", async () => {
    const from = ["--state-dir", join(ROOT, "a")];
    const toDir = join(ROOT, "b");
    await completedSession("plain", from);
    const moved = await cli(["session", "mv", "plain", "--to", toDir, ...from]);
    assert.equal(moved.code, 0, moved.stderr);
    assert.match(moved.stdout, new RegExp(`^moved session plain to ${toDir}; resume with: .* run --resume plain --state-dir ${toDir}\\n$`));
    assert.equal(statusIn(await cli(["session", "ls", "--json", ...from]), "plain"), "moved");
    assert.match((await cli(["session", "ls", ...from])).stdout, /^plain\s+moved\s/m);
    assertMovedAway(await followUp("plain", from), "plain", toDir, "--state-dir");
    // Nothing else takes the original further either.
    assert.equal((await cli(["session", "compact", "plain", ...from])).code, 13);
    // The copy is the original's journal without its mark, byte for byte.
    const original = readFileSync(join(ROOT, "a", "plain.json"));
    assert.ok(original.subarray(0, readFileSync(join(toDir, "plain.json")).length).equals(readFileSync(join(toDir, "plain.json"))));
    assert.deepEqual(
      journalRecords(join(ROOT, "a", "plain.json")).map((record) => record.protocol.split(".").at(-1)),
      ["meta", "assistant", "terminal", "moved"],
    );
    assertResumed(await followUp("plain", ["--state-dir", toDir]), "the moved copy");
    // Run again, it has nothing left to do and says so.
    const again = await cli(["session", "mv", "plain", "--to", toDir, ...from]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, new RegExp(`^session plain is in ${toDir} already; resume with: `));
  });

  it("killed after the mark, the original still resumes (the move did not count) and the target has nothing; run again, it finishes", async () => {
    const from = ["--state-dir", join(ROOT, "c")];
    const toDir = join(ROOT, "d");
    await completedSession("cut", from);
    const killed = await cli(["session", "mv", "cut", "--to", toDir, ...from], { ...ENV, FISK_AI_TEST_CRASH_AT: "after-move-mark:1" });
    assert.equal(killed.signal, "SIGKILL", killed.stderr);
    assert.equal(statusIn(await cli(["session", "ls", "--json", "--state-dir", toDir]), "cut"), undefined, "nothing reached the target");
    // Run again: it copies what the first one did not, and the move counts.
    const finished = await cli(["session", "mv", "cut", "--to", toDir, ...from]);
    assert.equal(finished.code, 0, finished.stderr);
    assert.match(finished.stdout, new RegExp(`^finished moving session cut to ${toDir}; `));
    assertMovedAway(await followUp("cut", from), "cut", toDir, "--state-dir");
    assertResumed(await followUp("cut", ["--state-dir", toDir]), "the finished move's copy");
  });

  it("a move killed after the mark and never run again leaves the original the one to resume, and resuming it cancels the move", async () => {
    const from = ["--state-dir", join(ROOT, "e")];
    const toDir = join(ROOT, "f");
    await completedSession("left", from);
    const killed = await cli(["session", "mv", "left", "--to", toDir, ...from], { ...ENV, FISK_AI_TEST_CRASH_AT: "after-move-mark:1" });
    assert.equal(killed.signal, "SIGKILL", killed.stderr);
    assertResumed(await followUp("left", from), "the original of a move cut short");
    assert.equal(statusIn(await cli(["session", "ls", "--json", ...from]), "left"), "completed");
    assert.equal((await followUp("left", ["--state-dir", toDir])).code, 6, "the target never held it");
  });

  it("killed after the copy, the target resumes and the original refuses; run again, it says it is done", async () => {
    const from = ["--state-dir", join(ROOT, "g")];
    const toDir = join(ROOT, "h");
    await completedSession("copied", from);
    const killed = await cli(["session", "mv", "copied", "--to", toDir, ...from], { ...ENV, FISK_AI_TEST_CRASH_AT: "after-move-copy:1" });
    assert.equal(killed.signal, "SIGKILL", killed.stderr);
    assertMovedAway(await followUp("copied", from), "copied", toDir, "--state-dir");
    const again = await cli(["session", "mv", "copied", "--to", toDir, ...from]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^session copied is in .* already; /);
    assertResumed(await followUp("copied", ["--state-dir", toDir]), "the copy");
  });

  it("moves a session back to the directory it left, and forth again: one copy resumes at every step", async () => {
    const home = join(ROOT, "home");
    const away = join(ROOT, "away");
    await completedSession("trip", ["--state-dir", home]);
    assert.equal((await cli(["session", "mv", "trip", "--to", away, "--state-dir", home])).code, 0);
    assertResumed(await followUp("trip", ["--state-dir", away]), "the first move's copy");
    const back = await cli(["session", "mv", "trip", "--to", home, "--state-dir", away]);
    assert.equal(back.code, 0, back.stderr);
    assert.match(back.stdout, new RegExp(`^moved session trip to ${home}; `));
    assertMovedAway(await followUp("trip", ["--state-dir", away]), "trip", home, "--state-dir");
    assertResumed(await followUp("trip", ["--state-dir", home]), "back where it began", THIRD);
    // Home's copy is what came back, byte for byte (away's journal but its mark): the stale one is gone.
    const there = readFileSync(join(away, "trip.json"));
    const came = there.subarray(0, there.length - lastLineLength(there));
    assert.equal(journalRecords(join(away, "trip.json")).at(-1)?.protocol.split(".").at(-1), "moved");
    assert.ok(readFileSync(join(home, "trip.json")).subarray(0, came.length).equals(came));
    const forth = await cli(["session", "mv", "trip", "--to", away, "--state-dir", home]);
    assert.equal(forth.code, 0, forth.stderr);
    assertMovedAway(await followUp("trip", ["--state-dir", home]), "trip", away, "--state-dir");
    assertResumed(await followUp("trip", ["--state-dir", away]), "away a second time", FOURTH);
  });

  it("a move back killed after it cleared the stale copy leaves the original the one to resume; run again, it moves", async () => {
    const home = join(ROOT, "home2");
    const away = join(ROOT, "away2");
    await completedSession("cleared", ["--state-dir", home]);
    assert.equal((await cli(["session", "mv", "cleared", "--to", away, "--state-dir", home])).code, 0);
    const killed = await cli(["session", "mv", "cleared", "--to", home, "--state-dir", away], { ...ENV, FISK_AI_TEST_CRASH_AT: "after-move-clear:1" });
    assert.equal(killed.signal, "SIGKILL", killed.stderr);
    assert.equal(statusIn(await cli(["session", "ls", "--json", "--state-dir", home]), "cleared"), undefined, "the stale copy is gone");
    assert.equal(statusIn(await cli(["session", "ls", "--json", "--state-dir", away]), "cleared"), "completed", "not marked yet");
    const again = await cli(["session", "mv", "cleared", "--to", home, "--state-dir", away]);
    assert.equal(again.code, 0, again.stderr);
    assertMovedAway(await followUp("cleared", ["--state-dir", away]), "cleared", home, "--state-dir");
    assertResumed(await followUp("cleared", ["--state-dir", home]), "moved back after the kill");
  });

  it("refuses a move back over a copy that went on after its move was cancelled: exit 9, nothing marked", async () => {
    const home = join(ROOT, "home3");
    const away = join(ROOT, "away3");
    await completedSession("split", ["--state-dir", home]);
    // Cut after the mark, then resumed at home: the move is cancelled there, and both copies are live.
    const cut = await cli(["session", "mv", "split", "--to", away, "--state-dir", home], { ...ENV, FISK_AI_TEST_CRASH_AT: "after-move-mark:1" });
    assert.equal(cut.signal, "SIGKILL", cut.stderr);
    assertResumed(await followUp("split", ["--state-dir", home]), "the original of a cancelled move");
    await completedSession("split", ["--state-dir", away]);
    const refused = await cli(["session", "mv", "split", "--to", home, "--state-dir", away]);
    assert.equal(refused.code, 9, refused.stderr);
    assert.match(refused.stderr, /already holds another session split: nothing was moved\n$/);
    assert.equal(statusIn(await cli(["session", "ls", "--json", "--state-dir", home]), "split"), "completed");
  });

  it("refuses what it cannot do, one line each: no --to, the store it is in, another session of that id there, a moved session moved elsewhere", async () => {
    const from = ["--state-dir", join(ROOT, "i")];
    await completedSession("stay", from);
    const noTo = await cli(["session", "mv", "stay", ...from]);
    assert.equal(noTo.code, 2, noTo.stderr);
    assert.match(noTo.stderr, /--to/);
    const same = await cli(["session", "mv", "stay", "--to", join(ROOT, "i"), ...from]);
    assert.equal(same.code, 2, same.stderr);
    assert.match(same.stderr, /^fisk-ai: session stay is in .* already: --to names the store it goes to\n$/);
    await completedSession("stay", ["--state-dir", join(ROOT, "j")]);
    const taken = await cli(["session", "mv", "stay", "--to", join(ROOT, "j"), ...from]);
    assert.equal(taken.code, 9, taken.stderr);
    assert.match(taken.stderr, /^fisk-ai: .* already holds another session stay: nothing was moved\n$/);
    assert.equal(statusIn(await cli(["session", "ls", "--json", ...from]), "stay"), "completed", "a refused move leaves no mark");
    assert.equal((await cli(["session", "mv", "stay", "--to", join(ROOT, "k"), ...from])).code, 0);
    assertMovedAway(await cli(["session", "mv", "stay", "--to", join(ROOT, "l"), ...from]), "stay", join(ROOT, "k"), "--state-dir");
    const unknown = await cli(["session", "mv", "nobody", "--to", join(ROOT, "k"), ...from]);
    assert.equal(unknown.code, 6, unknown.stderr);
  });

  it("refuses a store URL no backend has, exit 16, one line without its password, and moves nothing", async () => {
    const from = ["--state-dir", join(ROOT, "m")];
    await completedSession("pg", from);
    const refused = await cli(["session", "mv", "pg", "--to", "mysql://fisk:hunter2@127.0.0.1:3306/runs", ...from]);
    assert.equal(refused.code, 16, refused.stderr);
    assert.equal(refused.stdout, "");
    assert.match(refused.stderr, /^fisk-ai: store "mysql:\/\/\*\*\*@127\.0\.0\.1:3306\/runs": no backend for mysql:\/\/ \(registered: [^\n]*\)\n$/);
    assert.equal(statusIn(await cli(["session", "ls", "--json", ...from]), "pg"), "completed", "a refused move leaves no mark");
    assert.equal(existsSync(join(ROOT, "mysql:")), false, "no directory named after the scheme");
    const badNats = await cli(["session", "mv", "pg", "--to", "nats://fisk:hunter2@127.0.0.1:4222/RUNS", ...from]);
    assert.equal(badNats.code, 2, badNats.stderr);
    assert.ok(!badNats.stderr.includes("hunter2"), badNats.stderr);
    // An empty name is no store: not the working directory.
    const empty = await cli(["session", "mv", "pg", "--to", "", ...from]);
    assert.equal(empty.code, 2, empty.stderr);
    assert.match(empty.stderr, /^fisk-ai: an empty store name: give a directory or a URL/);
    assert.equal(statusIn(await cli(["session", "ls", "--json", ...from]), "pg"), "completed", "a refused move leaves no mark");
  });

  it("moves a session from a file store to JetStream and back, resuming at each end", { skip: natsSkip }, async () => {
    const file = ["--state-dir", join(ROOT, "m")];
    await completedSession("travel", file);
    const there = await cli(["session", "mv", "travel", "--to", natsStore, ...file]);
    assert.equal(there.code, 0, there.stderr);
    assertMovedAway(await followUp("travel", file), "travel", natsStore, "--store");
    assert.equal(statusIn(await cli(["session", "ls", "--json", ...file]), "travel"), "moved");
    assert.equal(statusIn(await cli(["session", "ls", "--json", "--store", natsStore]), "travel"), "completed");
    const back = join(ROOT, "n");
    const killed = await cli(["session", "mv", "travel", "--to", back, "--store", natsStore], { ...ENV, FISK_AI_TEST_CRASH_AT: "after-move-mark:1" });
    assert.equal(killed.signal, "SIGKILL", killed.stderr);
    // The killed move's hold on the session lapses with its lease: until then the session is in use (exit 7).
    let finished = await cli(["session", "mv", "travel", "--to", back, "--store", natsStore]);
    await eventually(
      async () => finished.code !== 7 || (finished = await cli(["session", "mv", "travel", "--to", back, "--store", natsStore])).code !== 7,
      "the killed move's lease to lapse",
      {
        intervalMs: 200,
      },
    );
    assert.equal(finished.code, 0, finished.stderr);
    assert.equal(statusIn(await cli(["session", "ls", "--json", "--store", natsStore]), "travel"), "moved");
    assertMovedAway(await followUp("travel", ["--store", natsStore]), "travel", back, "--state-dir");
    assert.equal(statusIn(await cli(["session", "ls", "--json", "--state-dir", back]), "travel"), "completed");
    assertResumed(await followUp("travel", ["--state-dir", back]), "back in a file store");
  });

  it("moves a session to JetStream and back to the very directory it left", { skip: natsSkip }, async () => {
    const file = ["--state-dir", join(ROOT, "q")];
    await completedSession("homing", file);
    assert.equal((await cli(["session", "mv", "homing", "--to", natsStore, ...file])).code, 0);
    const back = await cli(["session", "mv", "homing", "--to", join(ROOT, "q"), "--store", natsStore]);
    assert.equal(back.code, 0, back.stderr);
    assertMovedAway(await followUp("homing", ["--store", natsStore]), "homing", join(ROOT, "q"), "--state-dir");
    assertResumed(await followUp("homing", file), "back in the directory it left");
    const forth = await cli(["session", "mv", "homing", "--to", natsStore, ...file]);
    assert.equal(forth.code, 0, forth.stderr);
    assertResumed(await followUp("homing", ["--store", natsStore]), "on JetStream a second time", THIRD);
  });

  it("goes to JetStream and back through export | import - pipes: each copy keeps its status, and the copy back resumes", { skip: natsSkip }, async () => {
    const file = ["--state-dir", join(ROOT, "o")];
    const back = ["--state-dir", join(ROOT, "p")];
    await completedSession("piped", file);
    const pipe = async (from: string[], to: string[]): Promise<void> => {
      const line = `node "$1" session export piped ${from.map((_, i) => `"$${i + 2}"`).join(" ")} | node "$1" session import - ${to.map((_, i) => `"$${i + 2 + from.length}"`).join(" ")}`;
      const pipeline = spawn("sh", ["-c", line, "sh", CLI, ...from, ...to], { cwd: ROOT, env: ENV, stdio: ["ignore", "pipe", "pipe"] });
      let stderr = "";
      pipeline.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      const [code] = await once(pipeline, "close");
      assert.equal(code, 0, stderr);
    };
    await pipe(file, ["--store", natsStore]);
    await pipe(["--store", natsStore], back);
    for (const store of [file, ["--store", natsStore], back])
      assert.equal(statusIn(await cli(["session", "ls", "--json", ...store]), "piped"), "completed", store.join(" "));
    // Unsigned (no key made here yet) and imported: foreign, so its journal does not pick its agent.yaml (docs/security.md).
    const bare = await followUp("piped", back);
    assert.equal(bare.code, 2, bare.stderr);
    assert.match(bare.stderr, /session piped is foreign \(it was imported from - by .*\): .* resume it with --config FILE/);
    assertResumed(await followUp("piped", [...back, "--config", join(ROOT, "agent.yaml")]), "piped back to a file store");
  });
});

/** The length of a journal's last line, its newline included. */
function lastLineLength(bytes: Buffer): number {
  return bytes.length - bytes.lastIndexOf(10, bytes.length - 2) - 1;
}
