// covers: src/replay/replay-fork.ts, src/cli/replay/replay-command.ts, src/cli/replay/replay-text.ts, src/trust/session-trust.ts
// `fisk-ai replay --fork`, spawned, on the script provider, with a keyring so every meta is
// signed: a candidate whose script calls another tool at turn 2 departs there, and --fork
// makes a session whose records before its origin are the recording's up to turn 2, whose
// origin is of kind `replay` naming the recording, then the candidate's turn 2, suspended.
// It is this installation's own (not foreign), and `run --resume` continues it with the
// candidate for real: its tool runs then and only then. The recording's bytes never change.
// A `same` replay forks nothing; a foreign recording is not forked (its signed fork would vouch
// for the directory it names); a name the store holds, a store that cannot be written and
// fork flags without --fork each get a clear message.
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { runCli, type CliResult } from "./helpers/cli-harness.js";
import { sharedKeyring } from "./helpers/signing-keys.js";
import { replayAgentYaml } from "./helpers/replay-agent.js";

const dir = realpathSync(mkdtempSync(join(tmpdir(), "fisk-ai-replay-fork-")));
after(() => rmSync(dir, { recursive: true, force: true }));
const STATE = join(dir, "state");
const MARKS = join(dir, "marks.txt");
const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: dir, NO_COLOR: "1", FISK_AI_SIGNING_KEYS: sharedKeyring(dir) };
const fisk = (args: string[]) => runCli(args, { cwd: dir, env });

const SCRIPT = `turns:
  - text: looking
    tool_calls: [{ name: mark, input: { note: first } }, { name: lookup, input: { q: alpha } }]
  - text: more
    tool_calls: [{ name: lookup, input: { q: beta } }]
  - text: done
`;

function agentYaml(script: string): string {
  return replayAgentYaml(script, STATE);
}

function assertExit(result: CliResult, code: number, what: string): void {
  assert.equal(result.code, code, `${what}: ${result.stdout}\n${result.stderr}`);
  assert.doesNotMatch(result.stderr, /^\s+at /m, `${what}: no stack trace`);
}

type Record = { seq: number; protocol: string; [kind: string]: unknown };
const journal = (runId: string): string => readFileSync(join(STATE, `${runId}.json`), "utf8");
const records = (runId: string): Record[] =>
  journal(runId)
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as Record);
const sessions = (): string[] =>
  readdirSync(STATE)
    .filter((name) => name.endsWith(".json"))
    .sort();
const marks = (): string | undefined => {
  try {
    return readFileSync(MARKS, "utf8");
  } catch {
    return undefined;
  }
};

let recorded: string;

before(async () => {
  writeFileSync(join(dir, "same.script.yaml"), SCRIPT);
  writeFileSync(join(dir, "other.script.yaml"), SCRIPT.replace("{ name: lookup, input: { q: beta } }", "{ name: mark, input: { note: beta } }"));
  writeFileSync(join(dir, "agent.yaml"), agentYaml("same.script.yaml"));
  writeFileSync(join(dir, "candidate.yaml"), agentYaml("other.script.yaml"));
  for (const name of ["first", "taken"]) assertExit(await fisk(["run", "--checkpoint", "--name", name, "Find alpha and beta"]), 0, `recording ${name}`);
  assert.equal(marks(), "first\nfirst\n");
  rmSync(MARKS);
  recorded = journal("first");
  assert.ok((records("first")[0]?.meta as { signature?: unknown }).signature, "the recording's meta is signed");
});

describe("fisk-ai replay --fork", () => {
  it("forks a departing replay at the departure; the fork resumes for real with the new agent", async () => {
    const result = await fisk(["replay", "--config", "candidate.yaml", "first", "--fork", "--json"]);
    assertExit(result, 17, "replay --fork departs");
    const [report] = JSON.parse(result.stdout) as { result: string; turn: number; fork?: { runId: string; resume: string } }[];
    assert.equal(report?.result, "departs");
    assert.equal(report?.turn, 2);
    const forkId = report?.fork?.runId as string;
    assert.match(forkId, /^[0-9A-Za-z]{27}$/);
    assert.match(report?.fork?.resume ?? "", new RegExp(`run --resume ${forkId} --state-dir ${STATE}$`));
    assert.equal(marks(), undefined, "the replay ran no tool");
    assert.equal(journal("first"), recorded, "the recording is untouched");

    const original = records("first");
    const turn2 = original.findIndex((record) => record.protocol.endsWith(".assistant") && (record.assistant as { iteration: number }).iteration === 1);
    const fork = records(forkId);
    assert.deepEqual(fork.slice(1, turn2), original.slice(1, turn2), "the records before turn 2 are the recording's");
    assert.deepEqual(fork[turn2]?.origin, { run_id: "first", through_seq: turn2, kind: "replay" });
    const departing = fork[turn2 + 1]?.assistant as { iteration: number; message: { content: { type: string; name?: string; input?: unknown }[] } };
    assert.equal(departing.iteration, 1);
    assert.deepEqual(
      departing.message.content.filter((block) => block.type === "tool_use").map(({ name, input }) => ({ name, input })),
      [{ name: "mark", input: { note: "beta" } }],
    );
    assert.equal((fork[turn2 + 2]?.terminal as { reason: string }).reason, "suspended");
    assert.equal(fork.length, turn2 + 3);
    const signature = (meta: unknown) => (meta as { signature?: { key_id: string } }).signature?.key_id;
    assert.equal(signature(fork[0]?.meta), signature(original[0]?.meta), "the fork's meta is signed with this installation's key");

    const shown = JSON.parse((await fisk(["session", "show", forkId, "--state-dir", STATE, "--json"])).stdout) as { foreign: unknown; status: string };
    assert.equal(shown.foreign, null, "the fork is this installation's own");
    assert.equal(shown.status, "suspended");

    const resumed = await fisk(["run", "--resume", forkId, "--state-dir", STATE]);
    assertExit(resumed, 0, "the fork resumes");
    assert.match(resumed.stderr, /using the session's configuration, .*candidate\.yaml/);
    assert.equal(marks(), "beta\n", "the departing turn's call ran on the resume, once");
    const done = records(forkId);
    assert.equal((done.at(-1)?.terminal as { reason: string }).reason, "completed");
    assert.equal(journal("first"), recorded, "the recording is untouched");
    rmSync(MARKS);
  });

  it("the text report and --junit name the fork and the command that resumes it", async () => {
    const junit = join(dir, "fork.xml");
    const result = await fisk(["replay", "--config", "candidate.yaml", "first", "--fork", "--junit", junit]);
    assertExit(result, 17, "replay --fork, text");
    const forkId = /^first: forked as (\S+); resume with: .* run --resume \1 --state-dir \S+$/m.exec(result.stdout)?.[1];
    assert.ok(forkId !== undefined, result.stdout);
    assert.match(readFileSync(junit, "utf8"), new RegExp(`first: forked as ${forkId}; resume with: `));
    assert.equal(journal("first"), recorded);
  });

  it("a same replay forks nothing", async () => {
    const before = sessions();
    const result = await fisk(["replay", "--config", "agent.yaml", "first", "--fork", "--json"]);
    assertExit(result, 0, "replay --fork, same");
    assert.equal((JSON.parse(result.stdout) as { fork?: unknown }[])[0]?.fork, undefined);
    assert.deepEqual(sessions(), before);
    assert.equal(marks(), undefined);
  });

  it("a fork name the store holds, or the recording's own, is refused: exit 1, the recording and the other session untouched", async () => {
    const taken = journal("taken");
    const before = sessions();
    for (const [name, message] of [
      ["taken", /^first: not forked: the store holds a session taken already: fork under another name$/m],
      ["first", /^first: not forked: first is the recording's own id: fork under another name$/m],
    ] as const) {
      const result = await fisk(["replay", "--config", "candidate.yaml", "first", "--fork", "--fork-name", name]);
      assertExit(result, 1, `--fork-name ${name}`);
      assert.match(result.stdout, message);
    }
    assert.equal(journal("taken"), taken);
    assert.equal(journal("first"), recorded);
    assert.deepEqual(sessions(), before);
  });

  it("a store that cannot be written is named: exit 1, nothing written", async () => {
    writeFileSync(join(dir, "a-file"), "");
    const before = sessions();
    const result = await fisk(["replay", "--config", "candidate.yaml", "first", "--fork", "--fork-to", join(dir, "a-file", "state")]);
    assertExit(result, 1, "--fork-to a store that cannot be written");
    assert.match(result.stdout, /^first: not forked: the fork \S+ could not be written: ENOTDIR/m);
    assert.deepEqual(sessions(), before);
  });

  it("a foreign recording is not forked: a fork signed here would vouch for the directory its journal names", async () => {
    // Another run id and another directory under the recording's signature: what a forged or edited journal looks like.
    const [meta, ...rest] = journal("first").trimEnd().split("\n");
    const forged = JSON.parse(meta as string) as { meta: { run_id: string; cwd?: string } };
    forged.meta.run_id = "forged";
    forged.meta.cwd = "/";
    writeFileSync(join(STATE, "forged.json"), `${[JSON.stringify(forged), ...rest].join("\n")}\n`);
    const before = sessions();
    const result = await fisk(["replay", "--config", "candidate.yaml", "forged", "--fork"]);
    assertExit(result, 1, "--fork of a foreign recording");
    assert.match(result.stdout, /^forged\s+departs at turn 2/m);
    assert.match(
      result.stdout,
      /^forged: not forked: session forged is foreign \(its meta .*does not match what it signs.*\): a fork signed here would vouch for the directory its journal names$/m,
    );
    assert.deepEqual(sessions(), before);
    rmSync(join(STATE, "forged.json"));
  });

  it("refuses fork flags without --fork, and --fork-name for more than one session", async () => {
    const cases: [string[], RegExp][] = [
      [["replay", "--config", "candidate.yaml", "first", "--fork-name", "x"], /--fork-name says where .*: give --fork with it/],
      [["replay", "--config", "candidate.yaml", "first", "--fork-to", STATE], /--fork-to says where .*: give --fork with it/],
      [["replay", "--config", "candidate.yaml", "first", "taken", "--fork", "--fork-name", "x"], /--fork-name names one fork/],
    ];
    for (const [args, message] of cases) {
      const result = await fisk(args);
      assertExit(result, 2, args.join(" "));
      assert.match(result.stderr, message);
    }
  });
});
