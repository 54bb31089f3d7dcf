// covers: src/backends/file/file-queue.ts, src/queue/quarantine.ts, src/pool/worker.ts
// The file queue under a stream of junk (issue 54): while two workers run 20 submitted
// runs, random bytes, symlinks, FIFOs, 100 MB sparse files, directories and follow-up
// folders that are files are written into runs/queue/, and garbage behind queued runs.
// Every run finishes, neither worker stops or fails a poll, and every planted thing ends
// in runs/queue/quarantine/ under the name it was planted as.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, it } from "node:test";
import { runCli } from "./helpers/cli-harness.js";
import { eventually } from "./helpers/eventually.js";
import { kinds, poolWorkspace, StartedWorkers } from "./helpers/pool-workspace.js";
import { mulberry32 } from "./helpers/simulated-runs.js";

const root = mkdtempSync(join(tmpdir(), "fisk-ai-queue-fuzz-"));
after(() => rmSync(root, { recursive: true, force: true }));
const workers = new StartedWorkers();
after(() => workers.killAll());

const RUNS = 20;
/** Runs with garbage planted behind them before the workers start: read when each finishes. */
const WITH_GARBAGE_BEHIND = 5;
/** How often the fuzzer plants one more thing while the runs go. */
const PLANT_EVERY_MS = 50;
const SEED = Number(process.env.FISK_AI_FUZZ_SEED ?? Date.now() % 2 ** 31);

it(`20 runs finish under junk written into runs/queue/ (seed ${SEED}, FISK_AI_FUZZ_SEED reproduces it); the pool never stops; every planted thing is quarantined`, async () => {
  const random = mulberry32(SEED);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const randomBytes = (length: number) => Buffer.from(Array.from({ length }, () => Math.floor(random() * 256)));
  const ws = poolWorkspace(join(root, "ws"));
  const queueDir = join(ws.dir, "state", "queue");
  const runIds = Array.from({ length: RUNS }, (_, index) => `fuzz${index}`);
  for (const runId of runIds) {
    const submitted = await runCli(["submit", "Write two notes", "--name", runId], { cwd: ws.dir, env: ws.env });
    assert.equal(submitted.code, 0, submitted.stderr);
  }
  /** What was planted, by the name it is set aside under. */
  const planted = new Set<string>();
  for (const runId of runIds.slice(0, WITH_GARBAGE_BEHIND)) {
    mkdirSync(join(queueDir, `${runId}.behind`));
    writeFileSync(join(queueDir, `${runId}.behind`, "000000000000001-junk.json"), randomBytes(64));
    planted.add(`${runId}.behind_000000000000001-junk.json`);
  }
  let count = 0;
  const plants: ((name: string) => string)[] = [
    (name) => (writeFileSync(join(queueDir, `${name}.json`), randomBytes(1 + Math.floor(random() * 512))), `${name}.json`),
    (name) => (symlinkSync(pick(["/etc/passwd", join(queueDir, "fuzz0.json"), "/nonexistent"]), join(queueDir, `${name}.json`)), `${name}.json`),
    (name) => (execFileSync("mkfifo", [join(queueDir, `${name}.json`)]), `${name}.json`),
    (name) => {
      writeFileSync(join(queueDir, `${name}.json`), "{");
      truncateSync(join(queueDir, `${name}.json`), 100 * 1024 * 1024);
      return `${name}.json`;
    },
    (name) => (mkdirSync(join(queueDir, `${name}.json`)), writeFileSync(join(queueDir, `${name}.json`, "inside"), "x"), `${name}.json`),
    (name) => (writeFileSync(join(queueDir, `${name}.behind`), randomBytes(16)), `${name}.behind`),
    (name) => (writeFileSync(join(queueDir, `.${name}.json`), randomBytes(16)), `_${name}.json`),
    (name) => (
      writeFileSync(
        join(queueDir, `${name}.json`),
        JSON.stringify({ runId: `../${name}`, queued: "", fingerprint: {}, version: 3, afterSeq: 1, state: "queued" }),
      ),
      `${name}.json`
    ),
  ];
  const plantOne = () => {
    const name = `junk${++count}x${Math.floor(random() * 1e6)}`;
    planted.add(pick(plants)(name));
  };

  const pool = [workers.add(ws.worker(["--concurrency", "2"])), workers.add(ws.worker(["--concurrency", "2"]))];
  const fuzzing = setInterval(plantOne, PLANT_EVERY_MS);
  try {
    await eventually(() => runIds.every((runId) => kinds(ws.journal(runId)).at(-1) === "terminal"), "every run to end", { timeoutMs: 300_000 });
  } finally {
    clearInterval(fuzzing);
  }
  // The workers poll every 20 ms: what was planted last is set aside at their next look.
  // A run's follow-up folder stays, empty, once what waited in it is gone (as after a promotion).
  const leftOver = (name: string) => name !== "quarantine" && !(name.endsWith(".behind") && readdirSync(join(queueDir, name)).length === 0);
  await eventually(() => !readdirSync(queueDir).some(leftOver), "the queue to hold nothing but its quarantine").catch((error: Error) => {
    throw new Error(`${error.message}: left ${readdirSync(queueDir).join(", ")} (seed ${SEED})`);
  });
  for (const worker of pool) assert.equal(worker.child.exitCode, null, "the worker is still running");
  for (const worker of pool) worker.child.kill("SIGTERM");
  const stopped = await Promise.all(pool.map((worker) => worker.done));
  for (const { code, stdout, stderr } of stopped) {
    assert.equal(code, 0, stderr);
    assert.doesNotMatch(stderr, /looking for work failed/, `seed ${SEED}`);
    assert.doesNotMatch(stdout, /^dropped /m, `seed ${SEED}`);
  }
  for (const runId of runIds) {
    const journal = ws.journal(runId);
    assert.equal((journal.at(-1) as { terminal?: { reason: string } }).terminal?.reason, "completed", `${runId} (seed ${SEED})`);
    assert.equal(kinds(journal).filter((kind) => kind === "terminal").length, 1, `${runId} ran once (seed ${SEED})`);
  }
  assert.ok(planted.size >= RUNS, `the fuzzer planted ${planted.size} things while the runs went`);
  const quarantine = readdirSync(join(queueDir, "quarantine"));
  assert.deepEqual(quarantine.sort(), [...planted].sort(), `every planted thing, and nothing else, is set aside (seed ${SEED})`);
  const named = stopped.flatMap(({ stdout }) => stdout.split("\n").filter((line) => line.startsWith("quarantined ")));
  assert.equal(named.length, planted.size, "the workers named each once");
  assert.ok(existsSync(join(ws.dir, "state", "fuzz0.json")));
});
