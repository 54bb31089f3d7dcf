// covers: src/cli/replay/replay.ts, src/cli/replay/replay-command.ts, src/cli/replay/replay-text.ts, src/replay/replay-sessions.ts
// covers: src/replay/select-sessions.ts, src/cli/exit-codes.ts
// process: shared
// `fisk-ai replay` through the CLI on the script provider: sessions recorded with `run
// --checkpoint` replay as same against their own agent.yaml (exit 0) and depart against one
// whose script calls another tool at turn 2 (exit 17, the turn and both sides printed, --json
// and --junit); --all with --status and --since; --relax; a journal that does not fold is
// refused (exit 1); --judge reports a judge's verdict; each bad flag is a usage error (exit 2). The side-effect file a recorded
// command tool writes is never written by a replay.
import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { CliResult } from "./helpers/cli-harness.js";
import { commandsInProcess } from "./helpers/in-process-cli.js";
import { replayAgentYaml } from "./helpers/replay-agent.js";

const cli = commandsInProcess(["run", "replay"]);
const dir = realpathSync(mkdtempSync(join(tmpdir(), "fisk-ai-cli-replay-")));
after(() => rmSync(dir, { recursive: true, force: true }));
const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: dir, NO_COLOR: "1" };
const fisk = (args: string[]) => cli(args, { cwd: dir, env });
const MARKS = join(dir, "marks.txt");

function turns(secondTurnCall: string): string {
  return `turns:
  - text: looking
    tool_calls: [{ name: mark, input: { note: first } }, { name: lookup, input: { q: alpha } }]
  - text: more
    tool_calls: [{ name: ${secondTurnCall}, input: { q: beta } }]
  - text: done
`;
}

function agentYaml(script: string, extraTool = ""): string {
  return replayAgentYaml(script, join(dir, "state"), extraTool);
}

function assertExit(result: CliResult, code: number, what: string): void {
  assert.equal(result.code, code, `${what}: ${result.stdout}\n${result.stderr}`);
  assert.doesNotMatch(result.stderr, /^\s+at /m, `${what}: no stack trace`);
}

before(async () => {
  writeFileSync(join(dir, "same.script.yaml"), turns("lookup"));
  writeFileSync(join(dir, "other.script.yaml"), turns("search"));
  writeFileSync(join(dir, "agent.yaml"), agentYaml("same.script.yaml"));
  const search = `  - name: search
    description: Search the web
    command: [echo, "searched {q}"]
    input_schema: { type: object, properties: { q: { type: string } }, required: [q] }
`;
  writeFileSync(join(dir, "candidate.yaml"), agentYaml("other.script.yaml", search));
  for (const name of ["first", "second", "broken"])
    assertExit(await fisk(["run", "--checkpoint", "--name", name, "Find alpha and beta"]), 0, `recording ${name}`);
  assert.equal(readFileSync(MARKS, "utf8"), "first\n".repeat(3));
  rmSync(MARKS);
});

describe("fisk-ai replay", () => {
  it("replays sessions as same against their own agent.yaml: exit 0, a table, nothing run", async () => {
    const result = await fisk(["replay", "--config", "agent.yaml", "first", "second"]);
    assertExit(result, 0, "replay same");
    assert.match(result.stdout, /^first\s+same\s+3\/3/m);
    assert.match(result.stdout, /^second\s+same\s+3\/3/m);
    assert.match(result.stdout, /2 sessions replayed: 2 same, 0 depart, 0 refused/);
    assert.throws(() => readFileSync(MARKS), "no replay wrote the side-effect file");
  });

  it("a candidate that calls another tool departs at turn 2: exit 17, both sides, --json and --junit", async () => {
    const junit = join(dir, "replay.xml");
    const result = await fisk(["replay", "--config", "candidate.yaml", "first", "--junit", junit]);
    assertExit(result, 17, "replay departs");
    assert.match(result.stdout, /^first\s+departs at turn 2/m);
    assert.match(result.stdout, /recorded: lookup \{"q":"beta"\}/);
    assert.match(result.stdout, /replayed: search \{"q":"beta"\}/);
    const xml = readFileSync(junit, "utf8");
    assert.match(xml, /<testsuite name="fisk-ai replay" tests="1" failures="1" errors="0">/);
    assert.match(xml, /<failure message="departs at turn 2" type="call-not-recorded">/);
    const json = await fisk(["replay", "--config", "candidate.yaml", "first", "second", "--json"]);
    assertExit(json, 17, "replay --json");
    const reports = JSON.parse(json.stdout) as { runId: string; result: string; turn?: number }[];
    assert.deepEqual(
      reports.map((report) => [report.runId, report.result, report.turn]),
      [
        ["first", "departs", 2],
        ["second", "departs", 2],
      ],
    );
    assert.throws(() => readFileSync(MARKS), "no replay wrote the side-effect file");
  });

  it("--relax leaves an argument out: the renamed argument's call still departs by its name, the same call with a new stamp does not", async () => {
    writeFileSync(
      join(dir, "stamped.script.yaml"),
      turns("lookup").replace("{ name: lookup, input: { q: beta } }", "{ name: lookup, input: { q: beta, at: '2026-12-07T20:00:00Z' } }"),
    );
    writeFileSync(join(dir, "stamped.yaml"), agentYaml("stamped.script.yaml"));
    assertExit(await fisk(["replay", "--config", "stamped.yaml", "first"]), 17, "a new argument departs");
    assertExit(await fisk(["replay", "--config", "stamped.yaml", "first", "--relax", "lookup:at"]), 0, "relaxed, it is same");
  });

  it("--judge asks the model another agent.yaml names about the final answers: its verdict beside the result", async () => {
    writeFileSync(join(dir, "judge.script.yaml"), 'turns:\n  - text: "PASS\\nBoth answers say it is done."\nrepeat_from: 1\n');
    writeFileSync(join(dir, "judge.yaml"), "provider: script\nmodel: claude-sonnet-4-5\nscript: ./judge.script.yaml\n");
    const result = await fisk(["replay", "--config", "agent.yaml", "first", "second", "--judge", "judge.yaml"]);
    assertExit(result, 0, "replay --judge");
    assert.match(result.stdout, /^first: judge \(claude-sonnet-4-5, \$[0-9.]+\): pass: Both answers say it is done\.$/m);
    assert.match(result.stdout, /^second: judge \(claude-sonnet-4-5, \$[0-9.]+\): pass: Both answers say it is done\.$/m);
    const json = JSON.parse((await fisk(["replay", "--config", "agent.yaml", "first", "--judge", "judge.yaml", "--json"])).stdout) as {
      judge?: { verdict: string; usage: { modelCalls: number } };
    }[];
    assert.equal(json[0]?.judge?.verdict, "pass");
    assert.equal(json[0]?.judge?.usage.modelCalls, 1);
  });

  it("--all takes every session, --status and --since narrow it", async () => {
    const all = await fisk(["replay", "--config", "agent.yaml", "--all", "--status", "completed", "--since", "1h", "--concurrency", "2", "--json"]);
    assertExit(all, 0, "replay --all");
    assert.deepEqual((JSON.parse(all.stdout) as { runId: string }[]).map((report) => report.runId).sort(), ["broken", "first", "second"]);
    const none = await fisk(["replay", "--config", "agent.yaml", "--status", "error"]);
    assertExit(none, 0, "no session matches");
    assert.match(none.stderr, /no session matches: nothing was replayed/);
  });

  it("a journal that does not fold and a session that does not exist are refused, the others replayed: exit 1", async () => {
    const path = join(dir, "state", "broken.json");
    const lines = readFileSync(path, "utf8").trimEnd().split("\n");
    writeFileSync(path, `${lines.slice(0, 2).join("\n")}\n`);
    appendFileSync(path, `${lines[3]}\n`);
    const result = await fisk(["replay", "--config", "agent.yaml", "first", "broken", "nosuch"]);
    assertExit(result, 1, "a refused session");
    assert.match(result.stdout, /^first\s+same/m);
    assert.match(result.stdout, /^broken\s+refused/m);
    assert.match(result.stdout, /broken: refused: the journal cannot be replayed: .*seq/);
    assert.match(result.stdout, /^nosuch: refused: no session nosuch$/m);
  });

  it("refuses bad flags, each with a usage error naming it", async () => {
    const cases: [string[], RegExp][] = [
      [["replay", "first"], /give --config NEW.yaml/],
      [["replay", "--config", "agent.yaml"], /replay needs sessions/],
      [["replay", "--config", "agent.yaml", "first", "--all"], /not both/],
      [["replay", "--config", "agent.yaml", "--since", "yesterday"], /--since "yesterday": expected an age/],
      [["replay", "--config", "agent.yaml", "--status", "done"], /--status: 'done' is not a status/],
      [["replay", "--config", "agent.yaml", "first", "--concurrency", "0"], /--concurrency takes a number/],
      [["replay", "--config", "agent.yaml", "first", "--relax", "at"], /--relax "at": expected TOOL:PATH/],
    ];
    for (const [args, message] of cases) {
      const result = await fisk(args);
      assertExit(result, 2, args.join(" "));
      assert.match(result.stderr, message);
    }
  });
});
