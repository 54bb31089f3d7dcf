// covers: src/backends/file/file-queue.ts, src/backends/jetstream/jetstream-queue.ts, src/queue/quarantine.ts, src/queue/run-queue.ts, src/cli/queue/queue-command.ts, src/cli/text/session-list.ts
// covers: src/conformance/queue-quarantine-cases.ts
// A queue no file can stop (issue 54), through the real CLI on the file store: each bad
// entry an attacker can write into runs/queue/ (not JSON, a symlink, a hostile run id, a
// 100 MB sparse file, a FIFO, another run's entry under its name, garbage behind a run)
// is set aside into runs/queue/quarantine/, named in one line by the worker, `queue ls`
// and `session ls`, removed by `queue rm`; the good run is served meanwhile, and a worker
// still stops at SIGTERM. `session ls` does not hang on a FIFO among the journals. On
// JetStream a message that is no entry is set aside as well, and no listing exits 8 on it.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { jetstream } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { initRunStream } from "../src/backends/jetstream/run-stream.js";
import { startCli, type CliResult } from "./helpers/cli-harness.js";
import { startNatsServer } from "./helpers/nats-server.js";
import { skipWithout } from "./helpers/programs.js";
import { poolWorkspace, StartedWorkers, type PoolWorkspace } from "./helpers/pool-workspace.js";

const root = mkdtempSync(join(tmpdir(), "fisk-ai-quarantine-"));
after(() => rmSync(root, { recursive: true, force: true }));
let made = 0;
const workers = new StartedWorkers();
after(() => workers.killAll());

/** Far past what a listing takes: a command still running then hangs. */
const HANG_MS = 30_000;

/** Runs the CLI, killed if it has not ended within HANG_MS (a hang fails the test rather than the file). */
async function cli(ws: PoolWorkspace, args: string[], extra: string[] = []): Promise<CliResult & { hung: boolean }> {
  const run = startCli([...args, ...extra], { cwd: ws.dir, env: ws.env });
  let hung = false;
  const timer = setTimeout(() => {
    hung = true;
    run.child.kill("SIGKILL");
  }, HANG_MS);
  const result = await run.done;
  clearTimeout(timer);
  return { ...result, hung };
}

const queueDir = (ws: PoolWorkspace) => join(ws.dir, "state", "queue");
const quarantined = (ws: PoolWorkspace) => (existsSync(join(queueDir(ws), "quarantine")) ? readdirSync(join(queueDir(ws), "quarantine")) : []);
const linesWith = (text: string, part: string) => text.split("\n").filter((line) => line.includes(part));

/** A valid entry of `runId`'s, as submit wrote it, older than every other: what a worker would look at first. */
function entryLike(ws: PoolWorkspace, of: string, changes: Record<string, unknown>): string {
  const entry = JSON.parse(readFileSync(join(queueDir(ws), `${of}.json`), "utf8")) as Record<string, unknown>;
  return JSON.stringify({ ...entry, queued: "2000-01-01T00:00:00.000Z", ...changes });
}

/** What each attack plants, given the good run's entry to copy from; the name it is set aside under. */
const ATTACKS: { what: string; plant(ws: PoolWorkspace): void; name: string }[] = [
  { what: "an entry that is not JSON", name: "bad1.json", plant: (ws) => writeFileSync(join(queueDir(ws), "bad1.json"), "{not json") },
  {
    what: "a symlink",
    name: "bad1.json",
    plant: (ws) => {
      writeFileSync(join(ws.dir, "elsewhere.json"), entryLike(ws, "good", { runId: "bad1" }));
      symlinkSync(join(ws.dir, "elsewhere.json"), join(queueDir(ws), "bad1.json"));
    },
  },
  {
    what: "an entry whose run id is ../../etc/passwd",
    name: "bad1.json",
    plant: (ws) => writeFileSync(join(queueDir(ws), "bad1.json"), entryLike(ws, "good", { runId: "../../etc/passwd" })),
  },
  {
    what: "a 100 MB sparse entry",
    name: "bad1.json",
    plant: (ws) => {
      writeFileSync(join(queueDir(ws), "bad1.json"), entryLike(ws, "good", { runId: "bad1" }));
      truncateSync(join(queueDir(ws), "bad1.json"), 100 * 1024 * 1024);
    },
  },
  { what: "a FIFO", name: "bad1.json", plant: (ws) => execFileSync("mkfifo", [join(queueDir(ws), "bad1.json")]) },
  {
    what: "an entry whose run id is not its file name's",
    name: "bad1.json",
    plant: (ws) => writeFileSync(join(queueDir(ws), "bad1.json"), entryLike(ws, "good", {})),
  },
  {
    what: "garbage in a follow-up folder",
    name: "good.behind_000000000000001-garbage.json",
    plant: (ws) => {
      mkdirSync(join(queueDir(ws), "good.behind"));
      writeFileSync(join(queueDir(ws), "good.behind", "000000000000001-garbage.json"), "\u0000\u00ff garbage");
    },
  },
];

describe("a queue no file can stop (file store, through the CLI)", () => {
  for (const attack of ATTACKS) {
    it(`${attack.what}: set aside in one line each by the worker, queue ls and session ls, removed by queue rm; the good run is served and the worker stops at SIGTERM`, async () => {
      const ws = poolWorkspace(join(root, `ws-${++made}`));
      const submitted = await cli(ws, ["submit", "Write two notes", "--name", "good"]);
      assert.equal(submitted.code, 0, submitted.stderr);
      attack.plant(ws);

      const worker = workers.add(ws.worker());
      await workers.printedLine(worker, /^finished good: completed$/m);
      const listed = await cli(ws, ["queue", "ls"]);
      const sessions = await cli(ws, ["session", "ls"]);
      worker.child.kill("SIGTERM");
      const stopped = await worker.done;
      assert.equal(stopped.code, 0, `the worker stopped at SIGTERM: ${stopped.stderr}`);
      assert.equal(linesWith(stopped.stdout, attack.name).length, 1, `the worker named it once:\n${stopped.stdout}`);
      assert.match(stopped.stdout, new RegExp(`^quarantined ${attack.name.replaceAll(".", "\\.")}: .+ \\(fisk-ai queue rm \\S+ removes it\\)$`, "m"));
      assert.doesNotMatch(stopped.stderr, /looking for work failed/);
      assert.equal(linesWith(stopped.stdout, "took good").length, 1, "the good run was taken once");
      assert.deepEqual(quarantined(ws), [attack.name]);

      assert.deepEqual([listed.code, listed.hung], [0, false], listed.stderr);
      assert.equal(linesWith(listed.stdout, attack.name).length, 1, listed.stdout);
      assert.match(listed.stdout, new RegExp(`^${attack.name.replaceAll(".", "\\.")} {2}quarantined: `, "m"));
      assert.deepEqual([sessions.code, sessions.hung], [0, false], sessions.stderr);
      assert.equal(linesWith(sessions.stderr, attack.name).length, 1, sessions.stderr);
      assert.match(sessions.stdout, /^good /m);

      const removed = await cli(ws, ["queue", "rm", attack.name]);
      assert.equal(removed.code, 0, removed.stderr);
      assert.deepEqual(quarantined(ws), []);
      const after = await cli(ws, ["queue", "ls"]);
      assert.equal(after.stdout, "no session is queued\n");
      assert.ok(existsSync(join(ws.dir, "state", "good.json")), "the good session is kept");
    });
  }

  it("queue ls and session ls set a bad entry aside themselves, with no worker running, and session ls does not hang on a FIFO among the journals", async () => {
    const ws = poolWorkspace(join(root, `ws-${++made}`));
    assert.equal((await cli(ws, ["submit", "Write two notes", "--name", "good"])).code, 0);
    writeFileSync(join(queueDir(ws), "bad1.json"), "{not json");
    execFileSync("mkfifo", [join(ws.dir, "state", "pipe.json")]);
    const sessions = await cli(ws, ["session", "ls"]);
    assert.deepEqual([sessions.code, sessions.hung], [0, false], sessions.stderr);
    assert.match(sessions.stderr, /^fisk-ai: 1 queue entry set aside as bad: bad1\.json \(fisk-ai queue ls says why; fisk-ai queue rm NAME removes one\)$/m);
    assert.match(sessions.stdout, /^pipe +corrupt /m);
    const listed = await cli(ws, ["queue", "ls"]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^good {2}\S+ {2}queued: /m);
    assert.match(listed.stdout, /^bad1\.json {2}quarantined: not JSON \(fisk-ai queue rm bad1\.json removes it\)$/m);
    const json = await cli(ws, ["queue", "ls", "--json"]);
    assert.equal(json.code, 0, json.stderr);
    assert.deepEqual(
      (JSON.parse(json.stdout) as { runId: string }[]).map((entry) => entry.runId),
      ["good"],
      "--json keeps its shape: the entries only",
    );
    assert.match(json.stderr, /^fisk-ai: quarantined bad1\.json: not JSON \(fisk-ai queue rm bad1\.json removes it\)$/m);
    const rm = await cli(ws, ["queue", "rm", "nothing.json"]);
    assert.equal(rm.code, 6, "a name neither queued nor quarantined is not found");
    assert.match(rm.stderr, /nothing\.json/);
  });
});

describe("a queue no message can stop (JetStream, through the CLI)", { skip: skipWithout("nats-server") }, () => {
  it("a message that is no entry is set aside and named once by the worker, which serves the good run; session ls, queue ls and queue rm exit 0 on another", async () => {
    const server = await startNatsServer();
    const nc = await connect({ servers: server.url });
    try {
      await initRunStream({ backend: "jetstream", servers: server.url, stream: "BAD", leaseTtlMs: 5000 });
      const ws = poolWorkspace(join(root, `ws-${++made}`));
      const store = ["--store", `${server.url}/BAD`];
      const plant = (runId: string) => jetstream(nc).publish(`$FISK_QUEUE.BAD.run.${runId}`, "{not json");
      // After the submit, which makes the queue's stream.
      assert.equal((await cli(ws, ["submit", "Write two notes", "--name", "good"], store)).code, 0);
      await plant("bad1");
      const worker = workers.add(startCli(["worker", "--poll", "20", ...store], { cwd: ws.dir, env: ws.env }));
      await workers.printedLine(worker, /^finished good: completed$/m);
      await workers.printedLine(worker, /^quarantined run\.bad1\./m);
      worker.child.kill("SIGTERM");
      const stopped = await worker.done;
      assert.equal(stopped.code, 0, stopped.stderr);
      assert.equal(linesWith(stopped.stdout, "bad1").length, 1, stopped.stdout);
      assert.match(stopped.stdout, /^quarantined run\.bad1\.\d+: not JSON \(fisk-ai queue rm run\.bad1\.\d+ removes it\)$/m);

      await plant("bad2");
      const sessions = await cli(ws, ["session", "ls"], store);
      assert.deepEqual([sessions.code, sessions.hung], [0, false], sessions.stderr);
      assert.match(sessions.stderr, /^fisk-ai: 2 queue entries set aside as bad: run\.bad1\.\d+, run\.bad2\.\d+ /m);
      const listed = await cli(ws, ["queue", "ls"], store);
      assert.equal(listed.code, 0, listed.stderr);
      const names = [...listed.stdout.matchAll(/^(run\.bad\d\.\d+) {2}quarantined: not JSON /gm)].map((match) => match[1] as string);
      assert.equal(names.length, 2, listed.stdout);
      const removed = await cli(ws, ["queue", "rm", ...names], store);
      assert.equal(removed.code, 0, removed.stderr);
      assert.equal((await cli(ws, ["queue", "ls"], store)).stdout, "no session is queued\n");
    } finally {
      await nc.close();
      await server.stop();
    }
  });
});
