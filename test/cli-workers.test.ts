// covers: src/cli/queue/table.ts, src/cli/submit/submit.ts, src/cli/worker/worker.ts, src/cli/queue/rm.ts, src/cli/context/queue-context.ts, src/cli/context/subcommands.ts
// covers: src/cli/context/pool-context.ts, src/pool/drive-claimed.ts, src/queue/orphans.ts
// covers: src/queue/held-run-store.ts
// covers: src/pool/withdraw-run.ts
// The worker pool on the file store, through the real CLI: submit, worker, queue ls/rm,
// a worker's SIGKILL (takeover), SIGTERM (hand-back), SIGSTOP (the kernel lock still
// fences the run), a worker given another agent, and a small chaos run.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { CLI, startCli, type CliRun } from "./helpers/cli-harness.js";
import { journalRecords } from "./helpers/journal-file.js";
import { kinds, poolChaos, poolWorkspace, StartedWorkers, writePoolConfig } from "./helpers/pool-workspace.js";
import { commandsInProcess } from "./helpers/in-process-cli.js";
import { eventually } from "./helpers/eventually.js";

/** The file's first call spawned, the later ones in this process (test/helpers/in-process-cli.ts). */
const cli = commandsInProcess(["session", "run", "submit", "queue"]);

const root = mkdtempSync(join(tmpdir(), "fisk-ai-workers-"));
after(() => rmSync(root, { recursive: true, force: true }));
let made = 0;
const fresh = (options?: { gateOpen?: boolean }) => poolWorkspace(join(root, `ws-${++made}`), options);

/** Every worker a test started is gone when it ends, whatever it asserted. */
const workers = new StartedWorkers();
after(() => workers.killAll());
const started = (worker: CliRun): CliRun => workers.add(worker);
const printedLine = (worker: CliRun, line: RegExp): Promise<void> => workers.printedLine(worker, line);

/** What a worker printed, once it has stopped at a SIGTERM. */
async function stdoutOf(worker: CliRun): Promise<string> {
  worker.child.kill("SIGTERM");
  return (await worker.done).stdout;
}

const REPO = new URL("../../", import.meta.url).pathname;

/** `shell` running `text` as its script, to its end and that of every process it left writing to its output. */
async function pasteInto(shell: string, text: string, options: { cwd: string; env: NodeJS.ProcessEnv }) {
  const child = spawn(shell, ["-c", text], { ...options, stdio: ["ignore", "pipe", "pipe"] });
  let [stdout, stderr] = ["", ""];
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, "close")) as [number | null];
  return { code, stdout, stderr };
}

/** The first ```sh block of `text`, as written. */
function shBlock(text: string): string {
  return /```sh\n([^`]*)```/.exec(text)?.[1] ?? "";
}

describe("docs/workers.md's few lines", () => {
  it("paste whole into bash from the repository's root, offline: every session ends as the comments say, nothing journaled twice", async () => {
    const block = shBlock(readFileSync(join(REPO, "docs/workers.md"), "utf8"));
    const readme = shBlock(/\*\*Workers\.\*\*[\s\S]*?(```sh\n[^`]*```)/.exec(readFileSync(join(REPO, "README.md"), "utf8"))?.[1] ?? "");
    assert.ok(readme !== "" && block.startsWith(readme), "the README's lines are the block's first ones, as written");
    assert.doesNotMatch(block, /\bID\b/, "no placeholder to fill in");
    // The user's machine: fisk-ai on the PATH, the clone's examples, its own temporary directory.
    const home = join(root, "paste");
    const [bin, clone, tmp] = ["bin", "clone", "tmp"].map((name) => join(home, name)) as [string, string, string];
    for (const dir of [bin, tmp, join(clone, "examples")]) mkdirSync(dir, { recursive: true });
    cpSync(join(REPO, "examples/workers"), join(clone, "examples/workers"), { recursive: true });
    writeFileSync(join(bin, "fisk-ai"), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`, { mode: 0o755 });
    const env = { PATH: `${bin}:${process.env.PATH}`, HOME: home, TMPDIR: tmp, NO_COLOR: "1" };
    const pasted = await pasteInto("bash", block, { cwd: clone, env });
    assert.equal(pasted.code, 0, pasted.stderr);
    const [dir] = readdirSync(tmp).map((name) => join(tmp, name));
    const listed = await cli(["session", "ls", "--json", "--flat"], { cwd: dir as string, env });
    const statuses = (JSON.parse(listed.stdout) as { id: string; status: string; title?: string }[]).map((row) => row.status);
    assert.deepEqual(statuses, ["completed", "completed", "completed", "completed"], "first, the waited run, cut and the last one; gone withdrawn");
    assert.match(pasted.stdout, /^first\n/);
    assert.match(pasted.stdout, /two notes written\n/);
    assert.equal((await cli(["session", "show", "gone"], { cwd: dir as string, env })).code, 6, "the withdrawn run is gone");
    const first = journalRecords(join(dir as string, "state", "first.json"));
    assert.ok(
      first.some((record) => "user" in record),
      "first's follow-up was journaled on its conversation",
    );
    const cut = journalRecords(join(dir as string, "state", "cut.json"));
    assert.equal(cut.filter((record) => "tool_result" in record).length, 2, "cut's two notes, each journaled once");
  });
});

describe("worker pool on files", () => {
  it("submit prints the id at once; a worker drives the run to its end; submit --wait answers as run does", async () => {
    const ws = fresh();
    const submitted = await cli(["submit", "Write two notes", "--name", "first"], { cwd: ws.dir, env: ws.env });
    assert.equal(submitted.code, 0, submitted.stderr);
    assert.equal(submitted.stdout, "first\n");
    const listed = await cli(["queue", "ls"], { cwd: ws.dir, env: ws.env });
    assert.match(listed.stdout, /^first {2}\S+ {2}queued: waits for a worker/m);

    const worker = started(ws.worker(["--concurrency", "2"]));
    const waited = await cli(["submit", "Write two notes", "--name", "second", "--wait"], { cwd: ws.dir, env: ws.env });
    assert.equal(waited.code, 0, waited.stderr);
    assert.equal(waited.stdout, "two notes written\n");
    assert.match(waited.stderr, /→ note \{"text":"one"\}\n← note: noted one\n→ note \{"text":"two"\}\n← note: noted two/);
    await eventually(() => ws.queued().length === 0, "the queue to empty");
    for (const runId of ["first", "second"])
      assert.deepEqual(kinds(ws.journal(runId)), ["meta", "assistant", "tool_result", "assistant", "tool_result", "assistant", "terminal"]);
    await printedLine(worker, /^finished first: completed$/m);
    await printedLine(worker, /^finished second: completed$/m);
    assert.match(await stdoutOf(worker), /^took first$/m);
    assert.deepEqual((await cli(["queue", "ls"], { cwd: ws.dir, env: ws.env })).stdout, "no session is queued\n");
  });

  it("a worker killed mid-tool loses its run to another at once: the cut tool runs once more, no model call is made again", async () => {
    const ws = fresh({ gateOpen: false });
    await cli(["submit", "Write two notes", "--name", "taken"], { cwd: ws.dir, env: ws.env });
    const first = started(ws.worker());
    await eventually(() => ws.executions().length === 1, "the first worker's tool to start");
    first.child.kill("SIGKILL");
    await first.done;
    const second = started(ws.worker());
    ws.openGate();
    await printedLine(second, /^finished taken: completed$/m);
    assert.deepEqual(ws.executions(), ["one", "one", "two"], "only the call whose result never reached the journal ran again");
    const journal = ws.journal("taken");
    assert.deepEqual(
      kinds(journal),
      ["meta", "assistant", "tool_result", "assistant", "tool_result", "assistant", "terminal"],
      "each model turn journaled once",
    );
    assert.match(await stdoutOf(second), /^took taken\nfinished taken: completed$/m);
  });

  it("SIGTERM hands the worker's run back suspended, exactly once, and exits 0; the next worker repeats nothing", async () => {
    const ws = fresh({ gateOpen: false });
    await cli(["submit", "Write two notes", "--name", "deployed"], { cwd: ws.dir, env: ws.env });
    const first = started(ws.worker());
    await eventually(() => ws.executions().length === 1, "the tool to start");
    first.child.kill("SIGTERM");
    await printedLine(first, /^stopping: handing back 1 run at its next boundary \(signal again to abort\)$/m);
    ws.openGate();
    const stopped = await first.done;
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.match(stopped.stdout, /^handed back deployed: suspended, queued for the pool$/m);
    assert.deepEqual(ws.queued(), ["deployed"], "still queued for the pool");
    assert.deepEqual(
      kinds(ws.journal("deployed")).filter((kind) => kind === "terminal"),
      ["terminal"],
    );

    started(ws.worker());
    await eventually(() => ws.queued().length === 0, "the next worker to finish it");
    assert.deepEqual(ws.executions(), ["one", "two"], "nothing ran twice");
    const journal = ws.journal("deployed");
    assert.deepEqual(kinds(journal), ["meta", "assistant", "tool_result", "terminal", "assistant", "tool_result", "assistant", "terminal"]);
    assert.equal((journal[3] as { terminal: { reason: string } }).terminal.reason, "suspended");
  });

  it("a stopped worker (SIGSTOP) keeps its run: no other worker takes it while the kernel lock is held, and only it appends", async () => {
    const ws = fresh({ gateOpen: false });
    await cli(["submit", "Write two notes", "--name", "paused"], { cwd: ws.dir, env: ws.env });
    const first = started(ws.worker());
    await eventually(() => ws.executions().length === 1, "the tool to start");
    first.child.kill("SIGSTOP");
    const second = started(ws.worker());
    await printedLine(second, /^worker \d+ taking runs/m);
    const listed = await cli(["queue", "ls"], { cwd: ws.dir, env: ws.env });
    assert.match(listed.stdout, new RegExp(`^paused .* running: worker pid ${first.child.pid} `, "m"));
    // The second worker looks every 20 ms: while queue ls ran it found the run held, every time.
    const journalBefore = ws.journal("paused").length;
    await cli(["queue", "ls"], { cwd: ws.dir, env: ws.env });
    assert.equal(ws.journal("paused").length, journalBefore, "nothing appended while its worker is stopped");
    first.child.kill("SIGCONT");
    ws.openGate();
    await printedLine(first, /^finished paused: completed$/m);
    assert.deepEqual(ws.executions(), ["one", "two"]);
    assert.doesNotMatch(await stdoutOf(second), /took paused/);
  });

  it("submit --wait with no worker says, after a moment, that none has taken the run and how to start one; a worker then ends it", async () => {
    const ws = fresh();
    const waiting = startCli(["submit", "Write two notes", "--name", "lonely", "--wait"], { cwd: ws.dir, env: ws.env });
    await waiting.stderrIncludes("no worker has taken lonely yet");
    assert.match(waiting.stderr(), /^fisk-ai: no worker has taken lonely yet: it waits in the queue; start one with: \S+.* worker --config \S*agent\.yaml$/m);
    const worker = started(ws.worker());
    const done = await waiting.done;
    assert.equal(done.code, 0, done.stderr);
    assert.equal(done.stdout, "two notes written\n");
    assert.equal(done.stderr.split("\n").filter((line) => line.includes("no worker has taken")).length, 1, "said once");
    worker.child.kill("SIGTERM");
  });

  it("a worker takes only runs of its own agents; queue ls says why a run waits", async () => {
    const ws = fresh();
    writePoolConfig(ws.dir, "other.yaml", "You are another agent.");
    await cli(["submit", "Write two notes", "--name", "mine", "--config", "agent.yaml"], { cwd: ws.dir, env: ws.env });
    const other = started(ws.worker(["--config", "other.yaml"]));
    await printedLine(other, /^worker \d+ taking runs/m);
    const listed = await cli(["queue", "ls", "--json"], { cwd: ws.dir, env: ws.env });
    const [entry] = JSON.parse(listed.stdout) as { runId: string; status: string }[];
    assert.equal(entry?.runId, "mine");
    // It names the agent's file, as submitted from this directory.
    assert.match(entry?.status ?? "", /^queued: waits for a worker with agent\.yaml \(model script-test, /);
    const both = started(ws.worker(["--config", "other.yaml", "--config", "agent.yaml"]));
    await printedLine(both, /^finished mine: completed$/m);
    assert.doesNotMatch(await stdoutOf(other), /took mine/);
  });

  it("a run that parks for approval leaves the worker; deciding it queues its continuation without another command", async () => {
    const ws = fresh();
    writePoolConfig(ws.dir, "confirm.yaml", "You are a pool test agent.", true);
    const worker = started(ws.worker(["--config", "confirm.yaml"]));
    await cli(["submit", "Write two notes", "--name", "asks", "--config", "confirm.yaml"], { cwd: ws.dir, env: ws.env });
    for (const [round, expected] of [
      [1, ["one"]],
      [2, ["one", "two"]],
    ] as const) {
      await workers.printedTimes(worker, "parked asks:", round);
      assert.match((await cli(["queue", "ls"], { cwd: ws.dir, env: ws.env })).stdout, /^asks .* parked: waits for a decision/m);
      const approved = await cli(["session", "approve", "asks"], { cwd: ws.dir, env: ws.env });
      assert.equal(approved.code, 0, approved.stderr);
      assert.match(approved.stdout, /no call waits now; session asks is queued for the worker pool again/);
      await eventually(() => ws.executions().length === expected.length, `the approved call ${round} to run`);
      assert.deepEqual(ws.executions(), [...expected]);
    }
    await printedLine(worker, /^finished asks: completed$/m);
    assert.deepEqual(ws.queued(), []);
  });

  it("worker --adopt takes an open session whose run --checkpoint died; a worker without it leaves the session alone", async () => {
    const ws = fresh({ gateOpen: false });
    const orphan = startCli(["run", "--checkpoint", "--name", "orphan", "Write two notes"], { cwd: ws.dir, env: ws.env });
    await eventually(() => ws.executions().length === 1, "the run's tool to start");
    orphan.child.kill("SIGKILL");
    await orphan.done;
    ws.openGate();
    // First alone: a worker without --adopt never lists the store, so the session stays orphaned.
    // (Beside an adopting worker it could take the run once that one queued it: a queued run is any worker's.)
    const plain = started(ws.worker());
    await printedLine(plain, /taking runs/);
    assert.match((await cli(["session", "ls"], { cwd: ws.dir, env: ws.env })).stdout, /^orphan +open \(orphaned\) /m);
    assert.doesNotMatch(await stdoutOf(plain), /took orphan/);
    const adopting = started(ws.worker(["--adopt"]));
    await printedLine(adopting, /^finished orphan: completed$/m);
    assert.deepEqual(ws.executions(), ["one", "one", "two"]);
    assert.deepEqual(kinds(ws.journal("orphan")), ["meta", "assistant", "tool_result", "assistant", "tool_result", "assistant", "terminal"]);
  });

  it("a follow-up to a session a run holds waits for it by default, and --if-running reject refuses it", async () => {
    const ws = fresh({ gateOpen: false });
    writeFileSync(join(ws.dir, "notes.script.yaml"), readFileSync(join(ws.dir, "notes.script.yaml"), "utf8") + '  - text: "and more"\n');
    const holder = startCli(["run", "--checkpoint", "--name", "held", "Write two notes"], { cwd: ws.dir, env: ws.env });
    await eventually(() => ws.executions().length === 1, "the run's tool to start");
    const refused = await cli(["submit", "And more", "--resume", "held", "--if-running", "reject"], { cwd: ws.dir, env: ws.env });
    assert.equal(refused.code, 7, refused.stderr);
    assert.match(refused.stderr, /session held is running .*: the follow-up is refused, as --if-running reject asks/);
    const queued = await cli(["submit", "And more", "--resume", "held"], { cwd: ws.dir, env: ws.env });
    assert.equal(queued.code, 0, queued.stderr);
    const worker = started(ws.worker());
    ws.openGate();
    assert.equal((await holder.done).code, 0);
    await printedLine(worker, /^finished held: completed$/m);
    const journal = ws.journal("held");
    assert.deepEqual(kinds(journal).slice(-4), ["terminal", "user", "assistant", "terminal"], "the follow-up went on after the run it waited for");
    assert.deepEqual(ws.executions(), ["one", "two"]);
  });

  it("bad input is one line and its own exit code", async () => {
    const ws = fresh();
    const cases: [string[], number, RegExp][] = [
      [["submit"], 2, /give a prompt/],
      [["submit", "x", "--resume", "a", "--name", "b"], 2, /--name names a new session/],
      [["submit", "x", "--resume", "nosuch"], 6, /no session nosuch/],
      [["worker", "--concurrency", "0"], 2, /--concurrency takes a whole number from 1/],
      [["worker", "stray"], 2, /worker takes no arguments/],
      [["queue", "rm"], 2, /queue rm needs the id/],
      [["queue", "rm", "nosuch"], 6, /session nosuch is not queued/],
    ];
    for (const [args, code, message] of cases) {
      const result = await cli(args, { cwd: ws.dir, env: ws.env });
      assert.equal(result.code, code, `${args.join(" ")}: ${result.stderr}`);
      const lines = result.stderr.trimEnd().split("\n");
      assert.equal(lines.length, 1, `${args.join(" ")}: one line, got ${result.stderr}`);
      assert.match(lines[0] as string, message);
    }
    for (const [args, message] of [
      [["submit", "x", "--resume", "a", "--if-running", "later"], /--if-running is queue .*, reject or interrupt .*, not "later"/],
      [["submit", "x", "--if-running", "reject"], /--if-running applies to a follow-up: add --resume ID/],
    ] as const) {
      const result = await cli([...args], { cwd: ws.dir, env: ws.env });
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, message);
    }
  });

  it("queue rm withdraws a run no worker started, removing its session so --adopt cannot run it, and refuses one a worker drives", async () => {
    const ws = fresh({ gateOpen: false });
    await cli(["submit", "Write two notes", "--name", "driven"], { cwd: ws.dir, env: ws.env });
    const worker = started(ws.worker());
    await eventually(() => ws.executions().length === 1, "the tool to start");
    await cli(["submit", "Write two notes", "--name", "withdrawn"], { cwd: ws.dir, env: ws.env });
    const refused = await cli(["queue", "rm", "driven"], { cwd: ws.dir, env: ws.env });
    assert.equal(refused.code, 7, refused.stderr);
    assert.match(refused.stderr, /session driven is being run by a worker/);
    const withdrawn = await cli(["queue", "rm", "withdrawn"], { cwd: ws.dir, env: ws.env });
    assert.equal(withdrawn.code, 0, withdrawn.stderr);
    assert.equal(withdrawn.stdout, "withdrew withdrawn; it never ran, so its session is removed\n");
    ws.openGate();
    await printedLine(worker, /^finished driven: completed$/m);
    assert.doesNotMatch(await stdoutOf(worker), /took withdrawn/);
    // Withdrawn means ended: no session is left open for an adopting worker to run later.
    assert.doesNotMatch((await cli(["session", "ls"], { cwd: ws.dir, env: ws.env })).stdout, /^withdrawn /m);
  });

  it("chaos: three workers, runs submitted, a random worker SIGKILLed and replaced again and again: every run ends, at most one repeat per kill", async () => {
    const ws = fresh();
    const runs = Array.from({ length: 6 }, (_, index) => `chaos${index}`);
    for (const runId of runs) await cli(["submit", "Write two notes", "--name", runId], { cwd: ws.dir, env: ws.env });
    await poolChaos({ ...ws, startWorker: () => started(ws.worker()) }, runs);
  });
});
